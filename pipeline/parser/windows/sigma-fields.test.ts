// Sigma's Windows log sources (query/sigma/mapping.ts) against what this
// parser writes: for events holding every field of Sysmon's schema (and a
// Security 4688, the other source of process_creation), each field a rule
// of the category may name must map to a field the parsed events have, and
// each field the category's table translates must be one of them.
import { describe, expect, it } from 'vitest';
import { findLogsource, mapField } from '../../../query/sigma/mapping.js';
import type { EventFields, ParseContext } from '../types.js';
import { windows } from './index.js';

const CTX: ParseContext = { source: 'windows', receivedAt: Date.UTC(2025, 5, 1) };

/** The fields of each Sysmon event, from Sysmon's schema (sysmon -s), version 15. */
const SYSMON_SCHEMA: Record<number, string> = {
  1: 'RuleName UtcTime ProcessGuid ProcessId Image FileVersion Description Product Company OriginalFileName CommandLine CurrentDirectory User LogonGuid LogonId TerminalSessionId IntegrityLevel Hashes ParentProcessGuid ParentProcessId ParentImage ParentCommandLine ParentUser',
  2: 'RuleName UtcTime ProcessGuid ProcessId Image TargetFilename CreationUtcTime PreviousCreationUtcTime User',
  3: 'RuleName UtcTime ProcessGuid ProcessId Image User Protocol Initiated SourceIsIpv6 SourceIp SourceHostname SourcePort SourcePortName DestinationIsIpv6 DestinationIp DestinationHostname DestinationPort DestinationPortName',
  5: 'RuleName UtcTime ProcessGuid ProcessId Image User',
  6: 'RuleName UtcTime ImageLoaded Hashes Signed Signature SignatureStatus',
  7: 'RuleName UtcTime ProcessGuid ProcessId Image ImageLoaded FileVersion Description Product Company OriginalFileName Hashes Signed Signature SignatureStatus User',
  8: 'RuleName UtcTime SourceProcessGuid SourceProcessId SourceImage TargetProcessGuid TargetProcessId TargetImage NewThreadId StartAddress StartModule StartFunction SourceUser TargetUser',
  9: 'RuleName UtcTime ProcessGuid ProcessId Image Device User',
  10: 'RuleName UtcTime SourceProcessGUID SourceProcessId SourceThreadId SourceImage TargetProcessGUID TargetProcessId TargetImage GrantedAccess CallTrace SourceUser TargetUser',
  11: 'RuleName UtcTime ProcessGuid ProcessId Image TargetFilename CreationUtcTime User',
  12: 'RuleName EventType UtcTime ProcessGuid ProcessId Image TargetObject User',
  13: 'RuleName EventType UtcTime ProcessGuid ProcessId Image TargetObject Details User',
  14: 'RuleName EventType UtcTime ProcessGuid ProcessId Image TargetObject NewName User',
  15: 'RuleName UtcTime ProcessGuid ProcessId Image TargetFilename CreationUtcTime Hash Contents User',
  17: 'RuleName EventType UtcTime ProcessGuid ProcessId PipeName Image User',
  18: 'RuleName EventType UtcTime ProcessGuid ProcessId PipeName Image User',
  22: 'RuleName UtcTime ProcessGuid ProcessId QueryName QueryStatus QueryResults Image User',
  23: 'RuleName UtcTime ProcessGuid ProcessId User Image TargetFilename Hashes IsExecutable Archived',
  25: 'RuleName UtcTime ProcessGuid ProcessId Image Type User',
  26: 'RuleName UtcTime ProcessGuid ProcessId User Image TargetFilename Hashes IsExecutable',
  29: 'RuleName UtcTime ProcessGuid ProcessId User Image TargetFilename Hashes',
};

const PROCESS_CREATED_4688 = 'SubjectUserSid SubjectUserName SubjectDomainName SubjectLogonId NewProcessId NewProcessName TokenElevationType ProcessId CommandLine TargetUserSid TargetUserName TargetDomainName TargetLogonId ParentProcessName MandatoryLabel';

/** A plausible value for a field, by the shape of its name. */
function value(name: string, eventId: number): string {
  if (name === 'UtcTime' || name.endsWith('UtcTime')) return '2024-03-05 10:30:00.118';
  if (name.endsWith('Guid') || name.endsWith('GUID')) return '{9f32b55f-2f1c-65e6-a402-000000000b00}';
  if (name === 'ProcessId' && eventId === 4688) return '0x22f0';
  if (name.endsWith('ProcessId') || name.endsWith('ThreadId')) return eventId === 4688 ? '0x1a2c' : '6120';
  if (name.endsWith('Ip')) return '192.0.2.42';
  if (name.endsWith('Port')) return '443';
  if (name === 'Hashes') return 'SHA1=04B4E5C3C4C3D5A1E3F3B6A5C1D2E3F4A5B6C7D8,MD5=7353F60B1739074EB17C5F4DDDEFE239,SHA256=DE96A6E69944335375DC1AC238336066889D9FFC7D73628EF4FE1B1B160AB32C,IMPHASH=741776AACCFC5B71FF59832DCDCACE0F';
  if (name.endsWith('User') || name.endsWith('UserName')) return 'CORP\\alice';
  if (name === 'TargetObject') return 'HKLM\\SOFTWARE\\Microsoft\\Windows\\CurrentVersion\\Run\\Updater';
  if (name === 'Details') return 'DWORD (0x00000001)';
  if (name === 'Protocol') return 'tcp';
  if (name === 'Initiated' || name === 'Signed' || name.endsWith('IsIpv6') || name === 'IsExecutable' || name === 'Archived') return 'true';
  if (name === 'SignatureStatus') return 'Valid';
  if (name === 'RuleName') return 'technique_id=T1059';
  if (name === 'QueryResults') return 'type:  5 cdn.example.net;::ffff:198.51.100.7;';
  if (name.endsWith('Image') || name.endsWith('ImageLoaded') || name.endsWith('ProcessName') || name === 'TargetFilename') return 'C:\\Windows\\System32\\example.exe';
  if (name === 'PipeName') return '\\PSEXESVC';
  if (name === 'Device') return '\\Device\\HarddiskVolume2';
  return `${name} value`;
}

function event(id: number, names: string, channel: string, provider: string): EventFields {
  const data = names
    .split(' ')
    .map((name) => `<Data Name='${name}'>${value(name, id)}</Data>`)
    .join('');
  const xml =
    `<Event xmlns='http://schemas.microsoft.com/win/2004/08/events/event'><System><Provider Name='${provider}'/><EventID>${id}</EventID>` +
    `<TimeCreated SystemTime='2024-03-05T10:30:00.120Z'/><Channel>${channel}</Channel><Computer>ws042.corp.example</Computer></System><EventData>${data}</EventData></Event>`;
  return windows.parse(xml, CTX)!;
}

const SYSMON_EVENTS = Object.entries(SYSMON_SCHEMA).map(([id, names]) => ({ id: Number(id), names: names.split(' '), fields: event(Number(id), names, 'Microsoft-Windows-Sysmon/Operational', 'Microsoft-Windows-Sysmon') }));

/** Sigma's Windows categories, and the Sysmon events each selects (query/sigma/mapping.ts filters). */
const CATEGORIES: Record<string, number[]> = {
  process_creation: [1],
  process_termination: [5],
  network_connection: [3],
  dns_query: [22],
  registry_add: [12],
  registry_delete: [12],
  registry_set: [13],
  registry_rename: [14],
  registry_event: [12, 13, 14],
  file_event: [11],
  file_change: [2],
  file_delete: [23, 26],
  file_executable_detected: [29],
  create_stream_hash: [15],
  image_load: [7],
  driver_load: [6],
  process_access: [10],
  create_remote_thread: [8],
  raw_access_thread: [9],
  pipe_created: [17, 18],
  process_tampering: [25],
};

describe('Sigma Windows fields', () => {
  for (const [category, ids] of Object.entries(CATEGORIES)) {
    it(`${category}: every Sysmon field of its events maps to one the parsed events have; every translation is written`, () => {
      const mapping = findLogsource({ product: 'windows', category });
      expect(mapping, category).not.toBeNull();
      const events = SYSMON_EVENTS.filter((e) => ids.includes(e.id));
      const extra = category === 'process_creation' ? [{ names: PROCESS_CREATED_4688.split(' '), fields: event(4688, PROCESS_CREATED_4688, 'Security', 'Microsoft-Windows-Security-Auditing') }] : [];
      const written = new Set([...events, ...extra].flatMap((e) => Object.keys(e.fields)));
      for (const e of [...events, ...extra]) {
        for (const name of e.names) {
          const target = mapField(mapping!, name);
          expect(target, `${category} ${name}`).not.toBeNull();
          expect(written.has(target!), `${category} ${name} -> ${target}`).toBe(true);
        }
      }
      for (const [sigma, ecs] of Object.entries(mapping!.fields)) {
        if (ecs.startsWith('winlog.event_data.')) continue;
        expect(written.has(ecs), `${category}: ${sigma} -> ${ecs}`).toBe(true);
      }
    });
  }
});
