// Windows event and Zeek lines for the parse + enrich benchmark: a generated
// set in every shipping form the parsers read (Winlogbeat, NXLog and XML
// Windows events, the Snare tab form; Zeek JSON and TSV), varied in
// addresses, ids and names so that caches do not answer every line, plus
// the inputs of Elastic's windows, system/security and zeek pipeline tests
// when ../shared/data/elastic-integrations is there.
import fs from 'node:fs';
import path from 'node:path';
import { readCorpus } from '../scripts/elastic-corpus.js';
import type { SampleLine } from './lib.js';

const NS = "xmlns='http://schemas.microsoft.com/win/2004/08/events/event'";

function xml(provider: string, id: number, channel: string, second: number, data: Record<string, string>, keywords = '0x8020000000000000'): string {
  const items = Object.entries(data).map(([k, v]) => `<Data Name='${k}'>${v}</Data>`).join('');
  return `<Event ${NS}><System><Provider Name='${provider}'/><EventID>${id}</EventID><Version>2</Version><Level>0</Level><Task>12544</Task><Opcode>0</Opcode><Keywords>${keywords}</Keywords><TimeCreated SystemTime='2024-03-05T10:${String(second % 60).padStart(2, '0')}:13.4011234Z'/><EventRecordID>${1000 + second}</EventRecordID><Correlation/><Execution ProcessID='652' ThreadID='7788'/><Channel>${channel}</Channel><Computer>ws${second % 50}.corp.example</Computer><Security/></System><EventData>${items}</EventData></Event>`;
}

/** One variant of each Windows form, the n-th: addresses, users and hosts differ with n. */
function windowsVariant(n: number): SampleLine[] {
  const ip = `10.${(n >> 8) & 255}.${n & 255}.${(n * 7) % 250 + 1}`;
  const user = `user${n % 300}`;
  const logon = {
    SubjectUserSid: 'S-1-5-18', SubjectUserName: `WS${n % 50}$`, SubjectDomainName: 'CORP', SubjectLogonId: '0x3e7',
    TargetUserSid: `S-1-5-21-3623811015-3361044348-30300820-${1000 + (n % 300)}`, TargetUserName: user, TargetDomainName: 'CORP', TargetLogonId: `0x${(n * 977).toString(16)}`,
    LogonType: n % 3 === 0 ? '10' : '3', LogonProcessName: 'NtLmSsp', AuthenticationPackageName: 'NTLM', WorkstationName: `WS${n % 90}`, ProcessId: '0x0', ProcessName: '-', IpAddress: ip, IpPort: String(49152 + (n % 10000)),
  };
  const sysmon = {
    RuleName: '-', UtcTime: `2024-03-05 10:${String(n % 60).padStart(2, '0')}:00.118`, ProcessGuid: `{9f32b55f-2f1c-65e6-a402-${String(n).padStart(12, '0')}}`, ProcessId: String(1000 + n),
    Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', CommandLine: `powershell.exe -nop -c Get-Item C:\\Users\\${user}\\file${n}.txt`, CurrentDirectory: `C:\\Users\\${user}\\`, User: `CORP\\${user}`,
    IntegrityLevel: 'Medium', Hashes: 'SHA1=04B4E5C3C4C3D5A1E3F3B6A5C1D2E3F4A5B6C7D8,MD5=7353F60B1739074EB17C5F4DDDEFE239,SHA256=DE96A6E69944335375DC1AC238336066889D9FFC7D73628EF4FE1B1B160AB32C,IMPHASH=741776AACCFC5B71FF59832DCDCACE0F',
    ParentProcessId: String(400 + n), ParentImage: 'C:\\Windows\\explorer.exe', ParentCommandLine: 'C:\\Windows\\explorer.exe',
  };
  return [
    {
      source: 'winlogbeat',
      raw: JSON.stringify({
        '@timestamp': '2024-03-05T10:12:13.456Z',
        event: { code: '4624', kind: 'event', provider: 'Microsoft-Windows-Security-Auditing', outcome: 'success' },
        host: { name: `ws${n % 50}.corp.example` },
        agent: { type: 'winlogbeat', version: '8.13.0' },
        winlog: { channel: 'Security', event_id: '4624', provider_name: 'Microsoft-Windows-Security-Auditing', computer_name: `ws${n % 50}.corp.example`, record_id: String(n), keywords: ['Audit Success'], time_created: '2024-03-05T10:12:13.401Z', event_data: logon },
      }),
    },
    { source: 'windows', raw: xml('Microsoft-Windows-Security-Auditing', 4625, 'Security', n, { ...logon, Status: '0xc000006d', SubStatus: '0xc000006a', FailureReason: '%%2313' }, '0x8010000000000000') },
    { source: 'sysmon', raw: xml('Microsoft-Windows-Sysmon', 1, 'Microsoft-Windows-Sysmon/Operational', n, sysmon, '0x8000000000000000') },
    {
      source: 'nxlog',
      raw: JSON.stringify({
        EventTime: '2024-03-05 10:30:03', Hostname: `ws${n % 50}.corp.example`, EventType: 'INFO', Severity: 'INFO', EventID: 3, SourceName: 'Microsoft-Windows-Sysmon', Channel: 'Microsoft-Windows-Sysmon/Operational',
        UtcTime: sysmon.UtcTime, ProcessGuid: sysmon.ProcessGuid, ProcessId: sysmon.ProcessId, Image: sysmon.Image, User: sysmon.User, Protocol: 'tcp', Initiated: 'true', SourceIsIpv6: 'false',
        SourceIp: ip, SourcePort: String(50000 + (n % 10000)), DestinationIsIpv6: 'false', DestinationIp: `198.51.100.${n % 250}`, DestinationPort: '443', DestinationPortName: 'https',
      }),
    },
    {
      source: 'syslog',
      raw: `<13>Mar  5 10:20:00 ws${n % 50} MSWinEventLog\t1\tSecurity\t${n}\tTue Mar 05 10:20:00 2024\t4688\tMicrosoft-Windows-Security-Auditing\tN/A\tN/A\tSuccess Audit\tws${n % 50}.corp.example\tProcess Creation\t\tA new process has been created.    Creator Subject:   Security ID:  S-1-5-21-1-2-3-1013   Account Name:  ${user}   Account Domain:  CORP   Logon ID:  0x8DCDC    Process Information:   New Process ID:  0x${(n + 4096).toString(16)}   New Process Name: C:\\Windows\\System32\\whoami.exe   Creator Process ID: 0x22f0   Creator Process Name: C:\\Windows\\System32\\cmd.exe   Process Command Line: whoami /priv    Token Elevation Type indicates the type of token.\t${n}`,
    },
  ];
}

/** One variant of Zeek's busiest logs, as JSON and as TSV lines. */
function zeekVariant(n: number): SampleLine[] {
  const orig = `10.${(n >> 8) & 255}.${n & 255}.${(n * 3) % 250 + 1}`;
  const resp = `198.51.100.${n % 250}`;
  const ts = 1_700_000_000 + n + 0.123456;
  const uid = `C${(n * 2654435761).toString(36).padStart(16, 'x').slice(0, 17)}`;
  const id = { ts, uid, 'id.orig_h': orig, 'id.orig_p': 40000 + (n % 20000), 'id.resp_h': resp };
  const tsv = (...values: (string | number)[]) => values.join('\t');
  return [
    { source: 'zeek', raw: JSON.stringify({ ...id, 'id.resp_p': 443, proto: 'tcp', service: 'ssl', duration: 2.25, orig_bytes: 517, resp_bytes: 4400 + n, conn_state: 'SF', local_orig: true, local_resp: false, missed_bytes: 0, history: 'ShADadFf', orig_pkts: 12, orig_ip_bytes: 1153, resp_pkts: 10, resp_ip_bytes: 4932, tunnel_parents: [] }) },
    { source: 'zeek', raw: JSON.stringify({ ...id, 'id.resp_p': 53, proto: 'udp', trans_id: n % 65535, rtt: 0.02, query: `host${n % 500}.example.com`, qclass: 1, qclass_name: 'C_INTERNET', qtype: 1, qtype_name: 'A', rcode: 0, rcode_name: 'NOERROR', AA: false, TC: false, RD: true, RA: true, Z: 0, answers: [`203.0.113.${n % 250}`], TTLs: [300.0], rejected: false }) },
    { source: 'zeek', raw: JSON.stringify({ ...id, 'id.resp_p': 80, trans_depth: 1, method: 'GET', host: `www${n % 40}.example.com`, uri: `/path/${n}?q=${n % 7}`, version: '1.1', user_agent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64)', request_body_len: 0, response_body_len: 5120, status_code: n % 9 === 0 ? 404 : 200, status_msg: 'OK', tags: [], resp_fuids: ['FbkDQc3ZhK4kRTnXG4'], resp_mime_types: ['text/html'] }) },
    { source: 'zeek', raw: JSON.stringify({ ...id, 'id.resp_p': 443, version: 'TLSv13', cipher: 'TLS_AES_256_GCM_SHA384', curve: 'x25519', server_name: `api${n % 60}.example.org`, resumed: false, established: true, ssl_history: 'CsiI' }) },
    { source: 'zeek', raw: tsv(ts.toFixed(6), uid, orig, 40000 + (n % 20000), resp, 443, 'tcp', 'ssl', '2.250000', 517, 4400, 'SF', 'T', 'F', 0, 'ShADadFf', 12, 1153, 10, 4932, '(empty)') },
    { source: 'zeek', raw: tsv(ts.toFixed(6), uid, orig, 40000 + (n % 20000), resp, 53, 'udp', n % 65535, '0.021500', `host${n % 500}.example.com`, 1, 'C_INTERNET', 1, 'A', 0, 'NOERROR', 'F', 'F', 'T', 'T', 0, `203.0.113.${n % 250}`, '300.000000', 'F') },
  ];
}

/** The Elastic pipeline tests' inputs of these packages, when the corpus is there. */
function elasticInputs(samplesDir: string, packages: readonly string[]): SampleLine[] {
  const corpus = path.join(samplesDir, 'elastic-integrations');
  if (!fs.existsSync(corpus)) return [];
  return readCorpus(corpus)
    .filter((test) => packages.includes(test.package) && (test.package !== 'system' || test.stream === 'security'))
    .flatMap((test) => test.inputs.map((input) => ({ source: test.package, raw: input.raw })));
}

export function windowsLines(samplesDir: string, variants = 400): SampleLine[] {
  return [...Array.from({ length: variants }, (_, n) => windowsVariant(n)).flat(), ...elasticInputs(samplesDir, ['windows', 'system'])];
}

export function zeekLines(samplesDir: string, variants = 400): SampleLine[] {
  return [...Array.from({ length: variants }, (_, n) => zeekVariant(n)).flat(), ...elasticInputs(samplesDir, ['zeek'])];
}
