// Sysmon events (Microsoft-Windows-Sysmon/Operational) to ECS, as Elastic's
// `windows` package maps them, field names from Sysmon's schema: the process
// (and its parent, or the source process of events 8 and 10), the file, the
// network connection, the DNS query, the registry key and value.
import { canonicalIp } from '../ip.js';
import type { EventFields } from '../types.js';
import { lookupTable } from '../../../lib/lookup-table.js';
import { put, putExecutable, putFile, putHashes, putIp, putPort, putQualifiedUser, windowsNumber } from './fields.js';
import { present, type WinEvent } from './record.js';

/** Events whose Hashes are the process image's; the others' are the file's (driver, DLL, stream, deleted file). */
const PROCESS_HASHES = new Set(['1', '23', '24', '25']);

const PROCESS_PE = { original_file_name: 'process.pe.original_file_name', company: 'process.pe.company', description: 'process.pe.description', file_version: 'process.pe.file_version', product: 'process.pe.product' };
const FILE_PE = { original_file_name: 'file.pe.original_file_name', company: 'file.pe.company', description: 'file.pe.description', file_version: 'file.pe.file_version', product: 'file.pe.product' };

function addProcesses(fields: EventFields, e: WinEvent): void {
  const d = e.data;
  put(fields, 'process.entity_id', d.ProcessGuid ?? d.SourceProcessGuid ?? d.SourceProcessGUID);
  const pid = windowsNumber(d.ProcessId ?? d.SourceProcessId);
  if (pid !== undefined) fields['process.pid'] = pid;
  const thread = windowsNumber(d.SourceThreadId);
  if (thread !== undefined) fields['process.thread.id'] = thread;
  putExecutable(fields, 'process.', d.Image ?? d.SourceImage);
  put(fields, 'process.command_line', d.CommandLine);
  put(fields, 'process.working_directory', d.CurrentDirectory);
  put(fields, 'process.parent.entity_id', d.ParentProcessGuid);
  const parentPid = windowsNumber(d.ParentProcessId);
  if (parentPid !== undefined) fields['process.parent.pid'] = parentPid;
  putExecutable(fields, 'process.parent.', d.ParentImage);
  put(fields, 'process.parent.command_line', d.ParentCommandLine);
  // Image loads describe the DLL in OriginalFileName, Company ...; the other events describe the process.
  const pe = e.eventId === '7' ? FILE_PE : PROCESS_PE;
  put(fields, pe.original_file_name, d.OriginalFileName);
  put(fields, pe.company, d.Company);
  put(fields, pe.description, d.Description);
  put(fields, pe.file_version, d.FileVersion);
  put(fields, pe.product, d.Product);
  putHashes(fields, PROCESS_HASHES.has(e.eventId) ? 'process.' : 'file.', d.Hashes ?? d.Hash);
}

function addFiles(fields: EventFields, e: WinEvent): void {
  const d = e.data;
  putFile(fields, d.TargetFilename ?? d.ImageLoaded ?? d.Device);
  // Named pipes (17, 18) are names, not paths.
  put(fields, 'file.name', d.PipeName);
  put(fields, 'file.code_signature.subject_name', d.Signature);
  put(fields, 'file.code_signature.status', d.SignatureStatus);
  if (d.Signed === 'true') fields['file.code_signature.signed'] = true;
  if (d.SignatureStatus === 'Valid') fields['file.code_signature.valid'] = true;
}

function addNetwork(fields: EventFields, e: WinEvent): void {
  const d = e.data;
  const transport = present(d.Protocol);
  if (transport !== undefined) fields['network.transport'] = transport.toLowerCase();
  putIp(fields, 'source.ip', d.SourceIp);
  putPort(fields, 'source.port', d.SourcePort);
  put(fields, 'source.domain', d.SourceHostname);
  putIp(fields, 'destination.ip', d.DestinationIp);
  putPort(fields, 'destination.port', d.DestinationPort);
  put(fields, 'destination.domain', d.DestinationHostname);
  put(fields, 'network.protocol', e.eventId === '22' ? 'dns' : (d.DestinationPortName ?? d.SourcePortName));
  // Initiated: the host in the event opened the connection.
  if (d.Initiated === 'true') fields['network.direction'] = 'egress';
  if (d.Initiated === 'false') fields['network.direction'] = 'ingress';
  if (d.SourceIsIpv6 === 'true') fields['network.type'] = 'ipv6';
  if (d.SourceIsIpv6 === 'false') fields['network.type'] = 'ipv4';
}

/** QueryResults: "type:  5 cdn.example.net;::ffff:192.0.2.1;192.0.2.2;" — the addresses the name resolved to. */
function addDns(fields: EventFields, e: WinEvent): void {
  put(fields, 'dns.question.name', e.data.QueryName);
  const results = present(e.data.QueryResults);
  if (results === undefined) return;
  const ips: string[] = [];
  for (const answer of results.split(';')) {
    const ip = answer.startsWith('type:') ? null : canonicalIp(answer.trim());
    if (ip && !ips.includes(ip)) ips.push(ip);
  }
  if (ips.length > 0) fields['dns.resolved_ip'] = ips;
}

const HIVES = lookupTable<string>({
  HKEY_CLASSES_ROOT: 'HKCR',
  HKCR: 'HKCR',
  HKEY_CURRENT_CONFIG: 'HKCC',
  HKCC: 'HKCC',
  HKEY_CURRENT_USER: 'HKCU',
  HKCU: 'HKCU',
  HKEY_LOCAL_MACHINE: 'HKLM',
  HKLM: 'HKLM',
  HKEY_USERS: 'HKU',
  HKU: 'HKU',
});

/** Registry events (12-14): the key's path split as ECS registry.* does, the value's data with its type. */
function addRegistry(fields: EventFields, e: WinEvent): void {
  const path = present(e.data.TargetObject);
  if (path === undefined) return;
  fields['registry.path'] = path;
  const parts = path.split('\\');
  const hive = HIVES[parts[0]!];
  if (hive) {
    fields['registry.hive'] = hive;
    if (parts.length > 1) fields['registry.key'] = parts.slice(1).join('\\');
  }
  fields['registry.value'] = parts[parts.length - 1]!;
  const details = present(e.data.Details);
  if (details === undefined) return;
  const dword = /^DWORD \((0x[0-9a-fA-F]{8})\)$/.exec(details);
  const qword = /^QWORD \((0x[0-9a-fA-F]{8})-(0x[0-9a-fA-F]{8})\)$/.exec(details);
  if (dword) {
    fields['registry.data.type'] = 'REG_DWORD';
    fields['registry.data.strings'] = [String(Number.parseInt(dword[1]!, 16))];
  } else if (qword) {
    fields['registry.data.type'] = 'REG_QWORD';
    fields['registry.data.strings'] = [String((BigInt(qword[1]!) << 32n) + BigInt(qword[2]!))];
  } else {
    fields['registry.data.type'] = details === 'Binary Data' ? 'REG_BINARY' : 'REG_SZ';
    fields['registry.data.strings'] = [details];
  }
}

export function addSysmon(fields: EventFields, e: WinEvent): void {
  addProcesses(fields, e);
  addFiles(fields, e);
  addNetwork(fields, e);
  if (e.eventId === '22') addDns(fields, e);
  if (e.eventId === '12' || e.eventId === '13' || e.eventId === '14') addRegistry(fields, e);
  putQualifiedUser(fields, 'user.', e.data.User);
  put(fields, 'rule.name', e.data.RuleName);
  if (e.eventId === '27' || e.eventId === '255') fields['event.outcome'] = 'failure';
}
