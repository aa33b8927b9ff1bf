// The Snare tab form Snare agents and NXLog (to_syslog_snare) forward over
// syslog, one event per line after the syslog header:
//
//   MSWinEventLog<TAB>criticality<TAB>log name<TAB>counter<TAB>Mon Jan 01 10:00:00 2024<TAB>event id<TAB>source
//   <TAB>user<TAB>SID type<TAB>event type<TAB>computer<TAB>category<TAB>data<TAB>expanded message<TAB>checksum
//
// The event's data is only in the rendered message ("An account failed to
// log on. Subject: Security ID: S-1-0-0 Account Name: - ..."), its lines and
// tabs turned into spaces. The message is read back into EventData's names
// by the labels of Microsoft's Security event texts, under the section each
// sits in (Subject, New Logon, Network Information ...): enough for the
// mapping to find the accounts, addresses, processes and codes.
import { parseLogTime } from '../envelope.js';
import type { ParseContext } from '../types.js';
import { lookupTable, setOwn } from '../../../lib/lookup-table.js';
import type { WinEvent } from './record.js';
import { escapeRegExp } from '../../../lib/regex-escape.js';

const MARKER = 'MSWinEventLog\t';

export function looksLikeSnare(raw: string): boolean {
  return raw.includes(MARKER);
}

/** Section headings: the EventData prefix of the account labels that follow. */
const SECTIONS = lookupTable<string>({
  'Subject': 'Subject',
  'Creator Subject': 'Subject',
  'New Logon': 'Target',
  'Account For Which Logon Failed': 'Target',
  'Account Whose Credentials Were Used': 'Target',
  'Target Subject': 'Target',
  'Target Account': 'Target',
  'New Account': 'Target',
  'Account That Was Locked Out': 'Target',
  'Account Information': 'Target',
  'Logon Account': 'Target',
  'Member': 'Member',
  'Group': 'Group',
  'Network Information': '',
  'Process Information': '',
  'Logon Information': '',
  'Failure Information': '',
  'Detailed Authentication Information': '',
  'Service Information': '',
  'Task Information': '',
  'Additional Information': '',
  'Attributes': '',
});

/** Labels whose EventData name does not depend on the section. */
const LABELS = lookupTable<string>({
  'Logon Type': 'LogonType',
  'Workstation Name': 'WorkstationName',
  'Source Workstation': 'Workstation',
  'Source Network Address': 'IpAddress',
  'Source Port': 'IpPort',
  'Client Address': 'IpAddress',
  'Client Port': 'IpPort',
  'Process ID': 'ProcessId',
  'Process Name': 'ProcessName',
  'New Process ID': 'NewProcessId',
  'New Process Name': 'NewProcessName',
  'Creator Process ID': 'ProcessId',
  'Creator Process Name': 'ParentProcessName',
  'Process Command Line': 'CommandLine',
  'Token Elevation Type': 'TokenElevationType',
  'Mandatory Label': 'MandatoryLabel',
  'Failure Reason': 'FailureReason',
  'Status': 'Status',
  'Sub Status': 'SubStatus',
  'Result Code': 'Status',
  'Failure Code': 'Status',
  'Error Code': 'Status',
  'Logon Process': 'LogonProcessName',
  'Authentication Package': 'AuthenticationPackageName',
  'Package Name (NTLM only)': 'LmPackageName',
  'Service Name': 'ServiceName',
  'Service File Name': 'ServiceFileName',
  'Service Type': 'ServiceType',
  'Service Start Type': 'ServiceStartType',
  'Service Account': 'ServiceAccount',
  'Service ID': 'ServiceSid',
  'Task Name': 'TaskName',
  'Ticket Options': 'TicketOptions',
  'Ticket Encryption Type': 'TicketEncryptionType',
  'Pre-Authentication Type': 'PreAuthType',
  'Supplied Realm Name': 'TargetDomainName',
  'User ID': 'TargetSid',
  'Group Name': 'TargetUserName',
  'Group Domain': 'TargetDomainName',
  'Object Server': 'ObjectServer',
  'Object Type': 'ObjectType',
  'Object Name': 'ObjectName',
  'Handle ID': 'HandleId',
  'Accesses': 'AccessList',
  'Access Mask': 'AccessMask',
  'Caller Computer Name': 'Workstation',
  // Known labels not kept: they end the value before them.
  'Restricted Admin Mode': '',
  'Virtual Account': '',
  'Elevated Token': '',
  'Impersonation Level': '',
  'Network Account Name': '',
  'Network Account Domain': '',
  'Transited Services': '',
  'Key Length': '',
  'Certificate Issuer Name': '',
  'Certificate Serial Number': '',
  'Certificate Thumbprint': '',
  'Privileges': '',
  'Display Name': '',
  'User Principal Name': '',
  'Home Directory': '',
  'Home Drive': '',
  'Script Path': '',
  'Profile Path': '',
  'User Workstations': '',
  'Password Last Set': '',
  'Account Expires': '',
  'Primary Group ID': '',
  'Allowed To Delegate To': '',
  'Old UAC Value': '',
  'New UAC Value': '',
  'User Account Control': '',
  'User Parameters': '',
  'SID History': '',
  'Logon Hours': '',
  'Resource Attributes': '',
  'Transaction ID': '',
  'Access Request Information': '',
  'Target Server Name': '',
  'Task Content': '',
});

/** Account labels, named by their section's prefix (SubjectUserName, TargetUserName, MemberName ...). */
const ACCOUNT_LABELS = lookupTable<string>({
  'Security ID': 'UserSid',
  'Account Name': 'UserName',
  'Account Domain': 'DomainName',
  'Logon ID': 'LogonId',
  'Linked Logon ID': 'LinkedLogonId',
  'Logon GUID': 'LogonGuid',
});

/** Member: and Group: sections use other names (MemberSid, MemberName; TargetSid of the group). */
const SECTION_ACCOUNT_NAMES = lookupTable<Record<string, string>>({
  Member: { 'Security ID': 'MemberSid', 'Account Name': 'MemberName' },
  Group: { 'Security ID': 'TargetSid', 'Account Name': 'TargetUserName', 'Account Domain': 'TargetDomainName' },
});

const ALL_LABELS = [...Object.keys(SECTIONS), ...Object.keys(LABELS), ...Object.keys(ACCOUNT_LABELS)]
  .sort((a, b) => b.length - a.length)
  .map((label) => escapeRegExp(label));
/** Any label followed by its colon; longest first, so "Process Name" is not read as "Name". */
const LABEL = new RegExp(`(?:^|\\s)(${ALL_LABELS.join('|')}):`, 'g');

/** The rendered message read back into EventData's names. */
export function readMessage(message: string, into: Record<string, string>): void {
  const found: { label: string; start: number; end: number }[] = [];
  for (const m of message.matchAll(LABEL)) found.push({ label: m[1]!, start: m.index!, end: m.index! + m[0].length });
  let section = '';
  found.forEach(({ label, end }, i) => {
    const value = message.slice(end, found[i + 1]?.start ?? message.length).trim();
    const heading = SECTIONS[label];
    if (heading !== undefined) {
      section = heading;
      // "Logon Account: bob" (4776) is a heading with a value.
      if (value !== '' && label === 'Logon Account') setOwn(into, 'TargetUserName', value);
      return;
    }
    if (value === '') return;
    // The explanation after the last field follows a blank line (a run of spaces once lines are joined).
    const paragraph = /\s{3,}/.exec(value);
    const kept = paragraph ? value.slice(0, paragraph.index) : value;
    const special = SECTION_ACCOUNT_NAMES[section]?.[label];
    const account = ACCOUNT_LABELS[label];
    const name = special ?? (account !== undefined ? `${section || 'Subject'}${account}` : LABELS[label]);
    if (name && kept !== '' && into[name] === undefined) setOwn(into, name, kept);
  });
  // The Subject's and Target's SIDs are SubjectUserSid and TargetUserSid; account changes name the target TargetSid too.
  if (into.TargetUserSid !== undefined && into.TargetSid === undefined) into.TargetSid = into.TargetUserSid;
}

/** Snare's event types: the audit outcome of Security events. */
function auditOf(type: string | undefined): 'success' | 'failure' | undefined {
  if (type === 'Success Audit' || type === 'AUDIT_SUCCESS') return 'success';
  if (type === 'Failure Audit' || type === 'AUDIT_FAILURE') return 'failure';
  return undefined;
}

export function readSnare(raw: string, ctx: ParseContext): WinEvent | null {
  const at = raw.indexOf(MARKER);
  if (at < 0) return null;
  const parts = raw.slice(at).split('\t', 16);
  const eventId = parts[5]?.trim();
  if (!eventId || !/^\d{1,5}$/.test(eventId)) throw new Error(`Snare line without an event id: ${JSON.stringify(parts[5] ?? '')}`);
  const user = parts[7]?.trim();
  const slash = user ? user.indexOf('\\') : -1;
  const message = parts[13]?.trim();
  const data: Record<string, string> = {};
  if (message) readMessage(message, data);
  return {
    eventId,
    channel: parts[2]?.trim() || undefined,
    recordId: parts[3]?.trim() || undefined,
    time: parts[4] ? parseLogTime(parts[4].trim(), ctx) : undefined,
    provider: parts[6]?.trim() || undefined,
    userName: user && user !== 'N/A' ? (slash >= 0 ? user.slice(slash + 1) : user) : undefined,
    userDomain: user && user !== 'N/A' && slash > 0 ? user.slice(0, slash) : undefined,
    audit: auditOf(parts[9]?.trim()),
    computer: parts[10]?.trim() || undefined,
    task: parts[11]?.trim() || undefined,
    data,
    userData: {},
    message,
  };
}
