// PowerShell's events (the classic "Windows PowerShell" log: 400, 403, 600,
// 800; Microsoft-Windows-PowerShell/Operational: 4103-4106) and AppLocker's
// (8002-8007) to ECS, as Elastic's `windows` package maps them. PowerShell
// writes its context as "Name=Value" lines (classic, in the third data item)
// or "Name = Value" lines (4103's ContextInfo): the host application is the
// command line, the host id the process's entity id, the user who ran it.
import type { EventFields } from '../types.js';
import { setOwn } from '../../../lib/lookup-table.js';
import { put, putAccount, putFile, putQualifiedUser, windowsNumber } from './fields.js';
import { present, type WinEvent } from './record.js';

/**
 * "\tHostName=ConsoleHost\n\tHostApplication=powershell.exe -nop ..." (classic) or "        Host Name = ConsoleHost\n ..."
 * (4103) by name, spaces removed and lower-cased: "Runspace ID" and "RunspaceId" are one name.
 */
export function contextValues(text: string): Record<string, string> {
  const values: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const name = line.slice(0, eq).replace(/\s+/g, '').toLowerCase();
    const value = line.slice(eq + 1).trim();
    if (value !== '' && /^[a-z]{1,40}$/.test(name)) setOwn(values, name, value);
  }
  return values;
}

function addHost(fields: EventFields, context: Record<string, string>): void {
  put(fields, 'process.command_line', context.hostapplication);
  put(fields, 'process.title', context.hostname);
  put(fields, 'process.entity_id', context.hostid);
  put(fields, 'powershell.engine.version', context.engineversion);
  put(fields, 'powershell.process.executable_version', context.hostversion);
  put(fields, 'powershell.runspace_id', context.runspaceid);
  put(fields, 'powershell.pipeline_id', context.pipelineid);
  put(fields, 'powershell.command.name', context.commandname);
  put(fields, 'powershell.command.type', context.commandtype);
  put(fields, 'powershell.command.path', context.commandpath);
  put(fields, 'powershell.command.value', context.commandline);
  put(fields, 'powershell.id', context.shellid);
  const sequence = windowsNumber(context.sequencenumber);
  if (sequence !== undefined) fields['event.sequence'] = sequence;
}

export function addPowerShell(fields: EventFields, e: WinEvent): void {
  const d = e.data;
  // Classic events: the context is param3 (400, 403, 600: after the new and previous state) or param2 (800: after the
  // command, before the pipeline's details); 4103 writes it as ContextInfo.
  const classic = [d.param3, d.param2, d.ContextInfo].find((text) => text !== undefined && /Host ?Name ?=/.test(text));
  if (classic !== undefined) {
    const context = contextValues(classic);
    addHost(fields, context);
    // 800 says UserId=DOMAIN\user; 4103 says User = DOMAIN\user, and Connected User for a remote session.
    putQualifiedUser(fields, 'user.', context.userid ?? context.user);
    if (context.connecteduser !== undefined) {
      putQualifiedUser(fields, 'source.user.', context.connecteduser);
      putQualifiedUser(fields, 'destination.user.', context.user);
    }
    if (e.eventId === '400' || e.eventId === '403') {
      put(fields, 'powershell.engine.new_state', d.param1);
      put(fields, 'powershell.engine.previous_state', d.param2);
    }
    if (e.eventId === '600') {
      put(fields, 'powershell.provider.name', d.param1);
      put(fields, 'powershell.provider.new_state', d.param2);
    }
    if (context.scriptname !== undefined) putFile(fields, context.scriptname);
  }
  // 4104-4106: the script block; its text stays in winlog.event_data.ScriptBlockText.
  put(fields, 'powershell.file.script_block_id', d.ScriptBlockId);
  put(fields, 'powershell.runspace_id', d.RunspaceId);
  if (present(d.Path) !== undefined) putFile(fields, d.Path);
}

/** "O=EXAMPLE CORP, L=..., S=..., C=US\PRODUCT\FILE.EXE\1.2.3.4": the publisher, product, binary and version of the file. */
function addFqbn(fields: EventFields, fqbn: string | undefined): void {
  const value = present(fqbn);
  if (value === undefined) return;
  const [publisher, product, binary, version] = value.split('\\');
  for (const part of (publisher ?? '').split(/,\s*(?=[A-Z]+=)/)) {
    const eq = part.indexOf('=');
    const key = part.slice(0, eq);
    const v = part.slice(eq + 1).trim();
    if (v === '') continue;
    if (key === 'O') fields['file.x509.subject.organization'] = v;
    else if (key === 'C') fields['file.x509.subject.country'] = v;
    else if (key === 'S') fields['file.x509.subject.state_or_province'] = v;
    else if (key === 'L') fields['file.x509.subject.locality'] = v;
    else if (key === 'CN') fields['file.x509.subject.common_name'] = v;
  }
  put(fields, 'file.pe.product', product);
  put(fields, 'file.pe.original_file_name', binary);
  put(fields, 'file.pe.file_version', version);
}

export function addAppLocker(fields: EventFields, e: WinEvent): void {
  // AppLocker writes its fields under UserData (RuleAndFileData); some forwarders flatten them into EventData.
  const d = { ...e.data, ...e.userData };
  putFile(fields, d.FullFilePath ?? d.FilePath);
  put(fields, 'file.hash.sha256', d.FileHash);
  addFqbn(fields, d.Fqbn);
  const pid = windowsNumber(d.TargetProcessId);
  if (pid !== undefined) fields['process.pid'] = pid;
  put(fields, 'rule.name', d.RuleName);
  put(fields, 'rule.id', d.RuleId);
  putAccount(fields, 'user.', e.userName, e.userDomain, d.TargetUser ?? e.userSid);
  if (e.eventId === '8004' || e.eventId === '8007') fields['event.outcome'] = 'failure';
  if (e.eventId === '8002' || e.eventId === '8005') fields['event.outcome'] = 'success';
}
