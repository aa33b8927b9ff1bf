// Security channel events (and the service installs of the System channel)
// to ECS, as Elastic's `system` package maps them: whose account user.* is
// (events.ts UserRule), the source of a network logon, the process that
// logged on or was created with its parent, logon types and failure codes
// in words, the outcome Windows audited.
import type { EventFields } from '../types.js';
import type { EventSpec } from './events.js';
import { FAILURE_REASONS, KERBEROS_STATUS, LOGON_STATUS, LOGON_TYPES } from './events.js';
import { put, putAccount, putExecutable, putFile, putIp, putPort, windowsNumber } from './fields.js';
import { present, type WinEvent } from './record.js';

function addUsers(fields: EventFields, spec: EventSpec, e: WinEvent): void {
  const d = e.data;
  const subject = () => putAccount(fields, 'user.', d.SubjectUserName, d.SubjectDomainName, d.SubjectUserSid);
  switch (spec.user) {
    case 'target':
      putAccount(fields, 'user.', d.TargetUserName, d.TargetDomainName, d.TargetUserSid ?? d.TargetSid);
      break;
    case 'subject':
    case 'computer':
      subject();
      break;
    case 'changed':
      subject();
      putAccount(fields, 'user.target.', d.TargetUserName, d.TargetDomainName, d.TargetSid ?? d.TargetUserSid);
      // 4781 renames an account: OldTargetUserName is the account, NewTargetUserName its new name.
      put(fields, 'user.changes.name', d.NewTargetUserName);
      break;
    case 'run-as':
      subject();
      putAccount(fields, 'user.effective.', d.TargetUserName, d.TargetDomainName, d.TargetUserSid);
      break;
    case 'group': {
      subject();
      putAccount(fields, 'group.', d.TargetUserName, d.TargetDomainName, d.TargetSid);
      // MemberName is the member's distinguished name (CN=Bob,OU=Staff,DC=corp,DC=example), or "-".
      const member = present(d.MemberName);
      const cn = member && /^CN=/i.test(member) ? member.slice(3).split(/(?<!\\),/)[0]!.replaceAll('\\,', ',') : member;
      put(fields, 'user.target.name', cn);
      put(fields, 'user.target.id', d.MemberSid);
      break;
    }
    case 'cleared':
      putAccount(fields, 'user.', e.userData.SubjectUserName, e.userData.SubjectDomainName, e.userData.SubjectUserSid);
      break;
    case 'session':
      putAccount(fields, 'user.', d.AccountName, d.AccountDomain, undefined);
      putIp(fields, 'source.ip', d.ClientAddress === 'LOCAL' ? '127.0.0.1' : d.ClientAddress);
      put(fields, 'source.domain', d.ClientName);
      break;
  }
}

/** The process that logged the event, or for 4688 the process created and its parent. */
function addProcess(fields: EventFields, e: WinEvent): void {
  const d = e.data;
  if (e.eventId === '4688') {
    const pid = windowsNumber(d.NewProcessId);
    const parentPid = windowsNumber(d.ProcessId);
    if (pid !== undefined) fields['process.pid'] = pid;
    if (parentPid !== undefined) fields['process.parent.pid'] = parentPid;
    putExecutable(fields, 'process.', d.NewProcessName);
    putExecutable(fields, 'process.parent.', d.ParentProcessName);
    put(fields, 'process.command_line', d.CommandLine);
    return;
  }
  // A network logon has no local process: Windows writes 0x0 and "-".
  const pid = windowsNumber(d.ProcessId);
  if (pid !== undefined && pid > 0) fields['process.pid'] = pid;
  putExecutable(fields, 'process.', d.ProcessName);
}

/** Where a network logon, ticket request or credential check came from. */
function addSource(fields: EventFields, e: WinEvent): void {
  const d = e.data;
  putIp(fields, 'source.ip', d.IpAddress);
  putPort(fields, 'source.port', d.IpPort);
  put(fields, 'source.domain', d.WorkstationName ?? d.Workstation);
}

function addLogon(fields: EventFields, e: WinEvent): void {
  const d = e.data;
  const type = present(d.LogonType);
  if (type !== undefined) fields['winlog.logon.type'] = LOGON_TYPES[type] ?? type;
  put(fields, 'winlog.logon.id', d.TargetLogonId ?? d.SubjectLogonId);
  if (e.eventId === '4625' || e.eventId === '4776') {
    const status = present(d.Status)?.toLowerCase();
    const subStatus = present(d.SubStatus)?.toLowerCase();
    if (status !== undefined && LOGON_STATUS[status]) fields['winlog.logon.failure.status'] = LOGON_STATUS[status];
    if (subStatus !== undefined && LOGON_STATUS[subStatus]) fields['winlog.logon.failure.sub_status'] = LOGON_STATUS[subStatus];
  }
  const reason = present(d.FailureReason);
  if (reason !== undefined) fields['winlog.logon.failure.reason'] = FAILURE_REASONS[reason] ?? reason;
  if (e.eventId === '4768' || e.eventId === '4769' || e.eventId === '4770' || e.eventId === '4771') {
    const status = present(d.Status)?.toLowerCase();
    if (status !== undefined) fields['winlog.event_data.StatusDescription'] = KERBEROS_STATUS[status] ?? status;
  }
}

/** The audited outcome, and what the event's own result code says where one decides it. */
function outcome(e: WinEvent): 'success' | 'failure' | undefined {
  if (e.eventId === '4625' || e.eventId === '4771') return 'failure';
  const status = present(e.data.Status)?.toLowerCase();
  if ((e.eventId === '4776' || e.eventId === '4768' || e.eventId === '4769') && status !== undefined) return status === '0x0' ? 'success' : 'failure';
  return e.audit;
}

/** Objects of 4663 and 4656-4660: a file's path when the object is a file. */
function addObject(fields: EventFields, e: WinEvent): void {
  if (present(e.data.ObjectType) === 'File') putFile(fields, e.data.ObjectName);
}

export function addSecurity(fields: EventFields, spec: EventSpec | undefined, e: WinEvent): void {
  if (spec) {
    fields['event.category'] = [...spec.category];
    fields['event.type'] = [...spec.type];
    fields['event.action'] = spec.action;
    addUsers(fields, spec, e);
  }
  addSource(fields, e);
  addProcess(fields, e);
  addLogon(fields, e);
  addObject(fields, e);
  put(fields, 'service.name', e.data.ServiceName);
  const result = outcome(e);
  if (result) fields['event.outcome'] = result;
}
