// How Sigma's log sources and field names meet cairn's events: the tables
// the importer converts through, written down here and rendered in
// docs/sigma.md. A log source cairn has no parser for is not mapped (its
// rules are skipped, not imported to never fire); a field a mapped source
// does not carry makes its rule skipped, with the field named.
import type { QueryNode } from '../ast.js';
import { lookupTable } from '../../lib/lookup-table.js';

export interface LogsourceMapping {
  /** What the Sigma logsource must say (product, service, category); absent keys match anything. */
  when: { product?: string; service?: string; category?: string };
  /** What it means in cairn, as text for the docs. */
  means: string;
  /** The query the rule's detection is restricted to (null: every event). */
  filter: QueryNode | null;
  /** Sigma field names of this source and the ECS fields cairn parses them into (a lookupTable: rules may name any field). */
  fields: Readonly<Record<string, string>>;
  /** Field names are cairn's own (any field name is taken as written): rules exported from cairn. */
  cairnNames?: true;
  /**
   * Where the parser keeps the source's own fields under their own names (Windows event data under
   * winlog.event_data., a Zeek log's fields under zeek.<log>.): a field the table does not translate, shaped like the
   * source's names, is read there.
   */
  own?: { prefix: string; shape: RegExp };
}

function programs(...names: string[]): QueryNode {
  const tests: QueryNode[] = names.map((value) => ({ kind: 'eq', field: 'process.name', value }));
  return tests.length === 1 ? tests[0]! : { kind: 'or', children: tests };
}

/** Events of one ECS category (web, network, authentication). */
function category(value: string): QueryNode {
  return { kind: 'eq', field: 'event.category', value };
}

const WEB = category('web');
const DNS: QueryNode = { kind: 'exists', field: 'dns.question.name' };

/** Sources whose fields are the parser's own: only the common table and ECS names apply. */
const NO_FIELDS = lookupTable<string>({});

/** Web server and proxy logs share the W3C/Sigma field names; Sigma's Zeek http rules use them too. */
const W3C_WEB_NAMES: Record<string, string> = {
  'c-ip': 'source.ip',
  'c-uri': 'url.original',
  'cs-uri': 'url.original',
  uri: 'url.original',
  // Sigma's webserver rules put paths in cs-uri-query ("endswith: /mgmt/tm/util/bash"): it is the request target, path and query.
  'c-uri-query': 'url.original',
  'cs-uri-query': 'url.original',
  'c-uri-stem': 'url.path',
  'cs-uri-stem': 'url.path',
  'c-uri-extension': 'url.extension',
  'cs-method': 'http.request.method',
  method: 'http.request.method',
  'c-useragent': 'user_agent.original',
  'cs-user-agent': 'user_agent.original',
  user_agent: 'user_agent.original',
  useragent: 'user_agent.original',
  'cs-host': 'url.domain',
  host: 'url.domain',
  'cs-referer': 'http.request.referrer',
  'cs-referrer': 'http.request.referrer',
  'sc-status': 'http.response.status_code',
  status: 'http.response.status_code',
  'cs-username': 'user.name',
  'cs-bytes': 'http.request.body.bytes',
  'sc-bytes': 'http.response.body.bytes',
  'r-dns': 'destination.domain',
  'dst_ip': 'destination.ip',
  'dst_port': 'destination.port',
  'src_ip': 'source.ip',
};
const WEB_FIELDS = lookupTable<string>(W3C_WEB_NAMES);

const DNS_FIELDS = lookupTable<string>({
  query: 'dns.question.name',
  QueryName: 'dns.question.name',
  answer: 'dns.answers.data',
  answers: 'dns.answers.data',
  record_type: 'dns.question.type',
  qtype_name: 'dns.question.type',
  'id.orig_h': 'source.ip',
  'id.orig_p': 'source.port',
  'id.resp_h': 'destination.ip',
  'id.resp_p': 'destination.port',
  src_ip: 'source.ip',
  dst_ip: 'destination.ip',
  rcode_name: 'dns.response_code',
  trans_id: 'dns.id',
  qclass_name: 'dns.question.class',
  proto: 'network.transport',
  uid: 'zeek.session_id',
  rejected: 'zeek.dns.rejected',
  Z: 'zeek.dns.Z',
});

const NETWORK_FIELDS = lookupTable<string>({
  src_ip: 'source.ip',
  src_port: 'source.port',
  dst_ip: 'destination.ip',
  dst_port: 'destination.port',
  'id.orig_h': 'source.ip',
  'id.orig_p': 'source.port',
  'id.resp_h': 'destination.ip',
  'id.resp_p': 'destination.port',
  action: 'event.action',
  protocol: 'network.transport',
});

/** FortiGate's key names (FortiOS log reference) and where the device catalogue puts their values. */
const FORTIGATE_FIELDS = lookupTable<string>({
  srcip: 'source.ip',
  srcport: 'source.port',
  dstip: 'destination.ip',
  dstport: 'destination.port',
  action: 'event.action',
  user: 'user.name',
  logid: 'event.code',
  logdesc: 'event.reason',
  msg: 'message',
  level: 'log.level',
  devname: 'observer.name',
  policyid: 'rule.id',
  type: 'fortinet.firewall.type',
  subtype: 'fortinet.firewall.subtype',
  cfgpath: 'fortinet.firewall.cfgpath',
  cfgobj: 'fortinet.firewall.cfgobj',
  cfgattr: 'fortinet.firewall.cfgattr',
});

/** Lines of a network vendor's devices, as the device catalogue (pipeline/parser/devices/catalogue) names the vendor and product. */
function device(vendor: string, product?: string): QueryNode {
  const byVendor: QueryNode = { kind: 'eq', field: 'observer.vendor', value: vendor };
  return product ? { kind: 'and', children: [byVendor, { kind: 'eq', field: 'observer.product', value: product }] } : byVendor;
}

/** Fields every source carries (the parser's own). */
const COMMON_FIELDS = lookupTable<string>({
  user: 'user.name',
  User: 'user.name',
  hostname: 'host.hostname',
  Hostname: 'host.hostname',
  pid: 'process.pid',
});

// ---------------------------------------------------------------------------
// Zeek (pipeline/parser/zeek/): the connection's four-tuple as ECS, the fields a log's mapping copies into ECS as they
// are, and every other field of the log kept under zeek.<dataset>.<field> (Zeek's value as written).

const ZEEK_CONNECTION = {
  'id.orig_h': 'source.ip',
  'id.orig_p': 'source.port',
  'id.resp_h': 'destination.ip',
  'id.resp_p': 'destination.port',
  src_ip: 'source.ip',
  src_port: 'source.port',
  dst_ip: 'destination.ip',
  dst_port: 'destination.port',
  uid: 'zeek.session_id',
  community_id: 'network.community_id',
};

/** proto, or the transport the log's analyzer runs over, for the logs whose events have one. */
const TRANSPORT = { proto: 'network.transport' };

/** Zeek's field names: lower-case words, dotted for nested records (certificate.serial, times.modified). */
const ZEEK_NAME = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

/** A Zeek log's mapping; x509.log alone is about no connection. */
function zeekLog(service: string, dataset: string, filter: QueryNode, fields: Record<string, string>, connection = true): LogsourceMapping {
  return {
    when: { product: 'zeek', service },
    means: `Zeek ${service}.log`,
    filter,
    fields: lookupTable({ ...(connection ? ZEEK_CONNECTION : {}), ...fields }),
    own: { prefix: `zeek.${dataset}.`, shape: ZEEK_NAME },
  };
}

const dataset = (name: string): QueryNode => ({ kind: 'eq', field: 'event.dataset', value: name });

const ZEEK_LOGS: LogsourceMapping[] = [
  zeekLog('conn', 'connection', dataset('zeek.connection'), { ...TRANSPORT, orig_ip_bytes: 'source.bytes', resp_ip_bytes: 'destination.bytes', orig_pkts: 'source.packets', resp_pkts: 'destination.packets' }),
  zeekLog('http', 'http', dataset('zeek.http'), {
    ...TRANSPORT,
    // The web server names Sigma's Zeek http rules use too, for the fields http.log has.
    'c-ip': 'source.ip',
    'c-uri': 'url.original',
    'cs-uri': 'url.original',
    'c-uri-query': 'url.original',
    'cs-uri-query': 'url.original',
    'c-uri-stem': 'url.path',
    'cs-uri-stem': 'url.path',
    'cs-method': 'http.request.method',
    'c-useragent': 'user_agent.original',
    'cs-user-agent': 'user_agent.original',
    useragent: 'user_agent.original',
    'cs-host': 'url.domain',
    'cs-referer': 'http.request.referrer',
    'cs-referrer': 'http.request.referrer',
    'sc-status': 'http.response.status_code',
    status: 'http.response.status_code',
    'cs-username': 'user.name',
    'cs-bytes': 'http.request.body.bytes',
    'sc-bytes': 'http.response.body.bytes',
    method: 'http.request.method',
    host: 'url.domain',
    uri: 'url.original',
    referrer: 'http.request.referrer',
    version: 'http.version',
    user_agent: 'user_agent.original',
    request_body_len: 'http.request.body.bytes',
    response_body_len: 'http.response.body.bytes',
    status_code: 'http.response.status_code',
    username: 'user.name',
  }),
  zeekLog('ssl', 'ssl', dataset('zeek.ssl'), {
    ...TRANSPORT,
    cipher: 'tls.cipher',
    curve: 'tls.curve',
    server_name: 'tls.client.server_name',
    resumed: 'tls.resumed',
    established: 'tls.established',
    subject: 'tls.server.subject',
    issuer: 'tls.server.issuer',
    client_subject: 'tls.client.subject',
    client_issuer: 'tls.client.issuer',
    ja3: 'tls.client.ja3',
    ja3s: 'tls.server.ja3s',
  }),
  zeekLog('x509', 'x509', dataset('zeek.x509'), {
    'certificate.version': 'file.x509.version_number',
    'certificate.serial': 'file.x509.serial_number',
    'certificate.key_alg': 'file.x509.public_key_algorithm',
    'certificate.sig_alg': 'file.x509.signature_algorithm',
    'certificate.key_length': 'file.x509.public_key_size',
    'certificate.exponent': 'file.x509.public_key_exponent',
    'san.dns': 'file.x509.alternative_names',
  }, false),
  zeekLog('files', 'files', dataset('zeek.files'), { mime_type: 'file.mime_type', filename: 'file.name', md5: 'file.hash.md5', sha1: 'file.hash.sha1', sha256: 'file.hash.sha256', total_bytes: 'file.size' }),
  zeekLog('notice', 'notice', dataset('zeek.notice'), { ...TRANSPORT, note: 'rule.name', msg: 'rule.description' }),
  zeekLog('smb_files', 'smb_files', dataset('zeek.smb_files'), { ...TRANSPORT, size: 'file.size' }),
  zeekLog('dhcp', 'dhcp', dataset('zeek.dhcp'), { ...TRANSPORT, uids: 'zeek.session_id' }),
  // ntlm.log's hostname is the client's, not the host that logged the event (host.hostname).
  zeekLog('ntlm', 'ntlm', dataset('zeek.ntlm'), { ...TRANSPORT, hostname: 'zeek.ntlm.hostname' }),
  ...(['ssh', 'dce_rpc', 'smb_mapping', 'rdp'] as const).map((log) => zeekLog(log, log, dataset(`zeek.${log}`), TRANSPORT)),
  // kerberos.log (UDP or TCP) and weird.log do not say the transport.
  ...(['weird', 'kerberos'] as const).map((log) => zeekLog(log, log, dataset(`zeek.${log}`), {})),
];

// ---------------------------------------------------------------------------
// Windows (pipeline/parser/windows/): Sysmon's field names translated to the ECS fields the parser writes where the
// value is the same (Image is process.executable, for Sysmon 1 and Security 4688 alike); every other field of the
// event's data is kept under winlog.event_data.<Name> as Windows names it.

/** Windows event data names: PascalCase words (TargetUserName, ScriptBlockText, param1 of classic events). */
const EVENT_DATA_NAME = /^(?:[A-Z][A-Za-z0-9_]*|param\d{1,2})$/;

const WINDOWS_COMMON = {
  EventID: 'event.code',
  Provider_Name: 'winlog.provider_name',
  Channel: 'winlog.channel',
  Computer: 'host.name',
  ComputerName: 'host.name',
  Hostname: 'host.name',
  hostname: 'host.name',
  // Sysmon's User is "DOMAIN\\user", as rules write it; user.name holds the user part only.
  User: 'winlog.event_data.User',
};

/** The process that acted, in every Sysmon event that names one. */
const ACTOR = {
  Image: 'process.executable',
  ProcessId: 'process.pid',
  ProcessGuid: 'process.entity_id',
};

/** A process created (Sysmon 1, Security 4688): the process, its parent, its PE details and hashes. */
const PROCESS = {
  ...ACTOR,
  CommandLine: 'process.command_line',
  CurrentDirectory: 'process.working_directory',
  ParentImage: 'process.parent.executable',
  ParentCommandLine: 'process.parent.command_line',
  ParentProcessId: 'process.parent.pid',
  ParentProcessGuid: 'process.parent.entity_id',
  OriginalFileName: 'process.pe.original_file_name',
  Company: 'process.pe.company',
  Description: 'process.pe.description',
  Product: 'process.pe.product',
  FileVersion: 'process.pe.file_version',
  md5: 'process.hash.md5',
  sha1: 'process.hash.sha1',
  sha256: 'process.hash.sha256',
  Imphash: 'process.pe.imphash',
};

/** Driver and image loads describe the loaded file: its path and hashes. */
const LOADED_FILE = {
  ImageLoaded: 'file.path',
  md5: 'file.hash.md5',
  sha1: 'file.hash.sha1',
  sha256: 'file.hash.sha256',
  Imphash: 'file.pe.imphash',
};

/** An image load also names the DLL's PE details. */
const LOADED_IMAGE = {
  ...LOADED_FILE,
  OriginalFileName: 'file.pe.original_file_name',
  Company: 'file.pe.company',
  Description: 'file.pe.description',
  Product: 'file.pe.product',
  FileVersion: 'file.pe.file_version',
};

const NETWORK = {
  Protocol: 'network.transport',
  SourceIp: 'source.ip',
  SourcePort: 'source.port',
  SourceHostname: 'source.domain',
  DestinationIp: 'destination.ip',
  DestinationPort: 'destination.port',
  DestinationHostname: 'destination.domain',
};

/** Events of a channel, optionally of some event ids. */
function channel(name: string, ...ids: number[]): QueryNode {
  const test: QueryNode = { kind: 'eq', field: 'winlog.channel', value: name };
  if (ids.length === 0) return test;
  const codes: QueryNode[] = ids.map((id) => ({ kind: 'eq', field: 'event.code', value: String(id) }));
  return { kind: 'and', children: [test, codes.length === 1 ? codes[0]! : { kind: 'or', children: codes }] };
}

const SYSMON_CHANNEL = 'Microsoft-Windows-Sysmon/Operational';
const sysmon = (...ids: number[]) => channel(SYSMON_CHANNEL, ...ids);
/** Sysmon registry events of one EventType (CreateKey, DeleteKey, SetValue ...). */
function registryEvents(id: number, ...types: string[]): QueryNode {
  const typeTests: QueryNode[] = types.map((value) => ({ kind: 'eq', field: 'winlog.event_data.EventType', value }));
  return { kind: 'and', children: [sysmon(id), typeTests.length === 1 ? typeTests[0]! : { kind: 'or', children: typeTests }] };
}

function windows(when: { category?: string; service?: string }, means: string, filter: QueryNode | null, fields: Record<string, string> = {}): LogsourceMapping {
  return {
    when: { product: 'windows', ...when },
    means,
    filter,
    fields: lookupTable({ ...WINDOWS_COMMON, ...fields }),
    own: { prefix: 'winlog.event_data.', shape: EVENT_DATA_NAME },
  };
}

const PS_CLASSIC = { Data: 'winlog.event_data.param3', HostApplication: 'process.command_line', HostName: 'process.title' };

const WINDOWS_LOGS: LogsourceMapping[] = [
  windows({ category: 'process_creation' }, 'Sysmon 1 and Security 4688', { kind: 'or', children: [sysmon(1), channel('Security', 4688)] }, PROCESS),
  windows({ category: 'process_termination' }, 'Sysmon 5', sysmon(5), ACTOR),
  windows({ category: 'network_connection' }, 'Sysmon 3', sysmon(3), { ...ACTOR, ...NETWORK }),
  windows({ category: 'dns_query' }, 'Sysmon 22', sysmon(22), { ...ACTOR, QueryName: 'dns.question.name' }),
  windows({ category: 'registry_add' }, 'Sysmon 12, keys created', registryEvents(12, 'CreateKey'), { ...ACTOR, TargetObject: 'registry.path' }),
  windows({ category: 'registry_delete' }, 'Sysmon 12, keys and values deleted', registryEvents(12, 'DeleteKey', 'DeleteValue'), { ...ACTOR, TargetObject: 'registry.path' }),
  windows({ category: 'registry_set' }, 'Sysmon 13', sysmon(13), { ...ACTOR, TargetObject: 'registry.path' }),
  windows({ category: 'registry_rename' }, 'Sysmon 14', sysmon(14), { ...ACTOR, TargetObject: 'registry.path' }),
  windows({ category: 'registry_event' }, 'Sysmon 12, 13, 14', sysmon(12, 13, 14), { ...ACTOR, TargetObject: 'registry.path' }),
  windows({ category: 'file_event' }, 'Sysmon 11', sysmon(11), { ...ACTOR, TargetFilename: 'file.path' }),
  windows({ category: 'file_change' }, 'Sysmon 2', sysmon(2), { ...ACTOR, TargetFilename: 'file.path' }),
  windows({ category: 'file_delete' }, 'Sysmon 23 and 26', sysmon(23, 26), { ...ACTOR, TargetFilename: 'file.path' }),
  windows({ category: 'file_executable_detected' }, 'Sysmon 29', sysmon(29), { ...ACTOR, TargetFilename: 'file.path' }),
  windows({ category: 'file_block' }, 'Sysmon 27 and 28', sysmon(27, 28), { ...ACTOR, TargetFilename: 'file.path' }),
  windows({ category: 'create_stream_hash' }, 'Sysmon 15', sysmon(15), { ...ACTOR, TargetFilename: 'file.path' }),
  windows({ category: 'image_load' }, 'Sysmon 7', sysmon(7), { ...ACTOR, ...LOADED_IMAGE }),
  windows({ category: 'driver_load' }, 'Sysmon 6', sysmon(6), LOADED_FILE),
  windows({ category: 'process_access' }, 'Sysmon 10', sysmon(10), { SourceImage: 'process.executable', SourceProcessId: 'process.pid', SourceProcessGUID: 'process.entity_id' }),
  windows({ category: 'create_remote_thread' }, 'Sysmon 8', sysmon(8), { SourceImage: 'process.executable', SourceProcessId: 'process.pid', SourceProcessGuid: 'process.entity_id' }),
  windows({ category: 'raw_access_thread' }, 'Sysmon 9', sysmon(9), { ...ACTOR, Device: 'file.path' }),
  windows({ category: 'pipe_created' }, 'Sysmon 17 and 18', sysmon(17, 18), { ...ACTOR, PipeName: 'file.name' }),
  windows({ category: 'process_tampering' }, 'Sysmon 25', sysmon(25), ACTOR),
  windows({ category: 'wmi_event' }, 'Sysmon 19, 20, 21', sysmon(19, 20, 21)),
  windows({ category: 'clipboard_capture' }, 'Sysmon 24', sysmon(24), ACTOR),
  windows({ category: 'sysmon_status' }, 'Sysmon 4 and 16', sysmon(4, 16)),
  windows({ category: 'sysmon_error' }, 'Sysmon 255', sysmon(255)),
  windows({ category: 'ps_script' }, 'PowerShell 4104 (script blocks)', channel('Microsoft-Windows-PowerShell/Operational', 4104)),
  windows({ category: 'ps_module' }, 'PowerShell 4103 (pipeline execution)', channel('Microsoft-Windows-PowerShell/Operational', 4103)),
  windows({ category: 'ps_classic_start' }, 'Windows PowerShell 400', channel('Windows PowerShell', 400), PS_CLASSIC),
  windows({ category: 'ps_classic_provider_start' }, 'Windows PowerShell 600', channel('Windows PowerShell', 600), PS_CLASSIC),
  windows({ category: 'ps_classic_script' }, 'Windows PowerShell 800', channel('Windows PowerShell', 800), { ...PS_CLASSIC, Data: 'winlog.event_data.param2' }),
  windows({ service: 'security' }, 'the Security channel', channel('Security')),
  windows({ service: 'system' }, 'the System channel', channel('System')),
  windows({ service: 'application' }, 'the Application channel', channel('Application')),
  windows({ service: 'sysmon' }, 'the Sysmon channel', sysmon()),
  windows({ service: 'powershell' }, 'PowerShell/Operational', channel('Microsoft-Windows-PowerShell/Operational')),
  windows({ service: 'powershell-classic' }, 'Windows PowerShell', channel('Windows PowerShell')),
  windows({ service: 'applocker' }, 'the AppLocker channels', { kind: 'glob', field: 'winlog.channel', pattern: 'microsoft-windows-applocker/*' }),
];

/** Most specific first: the first whose `when` the rule's logsource satisfies wins. */
export const LOGSOURCES: LogsourceMapping[] = [
  { when: { product: 'cairn' }, means: "any cairn event, fields named as cairn names them (how rules written in cairn export); service: names the artifact source", filter: null, fields: NO_FIELDS, cairnNames: true },
  { when: { product: 'linux', service: 'sshd' }, means: 'sshd and sshd-session syslog lines', filter: programs('sshd', 'sshd-session'), fields: NO_FIELDS },
  { when: { product: 'linux', service: 'vsftpd' }, means: 'vsftpd lines (syslog or its own log)', filter: { kind: 'or', children: [programs('vsftpd'), { kind: 'eq', field: 'service.name', value: 'ftp' }] }, fields: NO_FIELDS },
  { when: { product: 'linux', service: 'cron' }, means: 'cron daemon lines', filter: programs('cron', 'CRON', 'crond', 'anacron', 'crontab'), fields: NO_FIELDS },
  { when: { product: 'linux', service: 'clamav' }, means: 'ClamAV lines (clamd, freshclam)', filter: programs('clamd', 'freshclam', 'clamav-milter', 'clamscan'), fields: NO_FIELDS },
  { when: { product: 'linux', service: 'guacamole' }, means: 'Apache Guacamole lines', filter: { kind: 'or', children: [programs('guacd', 'guacamole'), { kind: 'eq', field: 'service.name', value: 'guacamole' }] }, fields: NO_FIELDS },
  { when: { product: 'linux', service: 'sudo' }, means: 'sudo lines', filter: programs('sudo'), fields: NO_FIELDS },
  { when: { product: 'linux', service: 'auth' }, means: 'authentication lines of any program (sshd, PAM, su, sudo, login ...)', filter: category('authentication'), fields: NO_FIELDS },
  { when: { product: 'linux', service: 'syslog' }, means: 'every syslog line', filter: null, fields: NO_FIELDS },
  { when: { product: 'linux' }, means: 'every Linux log line cairn parses', filter: null, fields: NO_FIELDS },
  { when: { category: 'webserver' }, means: 'web access and error logs (Apache, nginx, lighttpd, ...)', filter: WEB, fields: WEB_FIELDS },
  { when: { service: 'apache' }, means: 'Apache httpd error logs (keyword rules)', filter: WEB, fields: WEB_FIELDS },
  { when: { service: 'nginx' }, means: 'nginx error logs (keyword rules)', filter: WEB, fields: WEB_FIELDS },
  { when: { product: 'apache' }, means: 'Apache httpd access and error logs', filter: WEB, fields: WEB_FIELDS },
  { when: { product: 'nginx' }, means: 'nginx access and error logs', filter: WEB, fields: WEB_FIELDS },
  { when: { category: 'proxy' }, means: 'proxy and web access logs (Squid, HAProxy, ...)', filter: WEB, fields: WEB_FIELDS },
  { when: { product: 'zeek', service: 'dns' }, means: 'Zeek dns.log', filter: DNS, fields: DNS_FIELDS, own: { prefix: 'zeek.dns.', shape: ZEEK_NAME } },
  ...ZEEK_LOGS,
  ...WINDOWS_LOGS,
  { when: { category: 'dns' }, means: 'DNS events (Zeek, Suricata)', filter: DNS, fields: DNS_FIELDS },
  { when: { product: 'fortigate' }, means: 'FortiGate logs (traffic, event, UTM), fields under their FortiOS key names', filter: device('Fortinet', 'FortiGate'), fields: FORTIGATE_FIELDS },
  // Sigma's rules for routers and switches are keywords over the line; the service (aaa, bgp, ldp) names a feature, not a log format.
  { when: { product: 'cisco' }, means: 'Cisco devices (IOS, IOS-XE, IOS-XR, NX-OS, ASA, FTD, ISE, Meraki), keyword rules', filter: device('Cisco'), fields: NO_FIELDS },
  { when: { product: 'juniper' }, means: 'Juniper devices (Junos, SRX, ScreenOS), keyword rules', filter: device('Juniper'), fields: NO_FIELDS },
  { when: { product: 'huawei' }, means: 'Huawei firewalls, routers and switches, keyword rules', filter: device('Huawei'), fields: NO_FIELDS },
  { when: { category: 'firewall' }, means: 'firewall events (iptables, Cisco ASA, CEF/LEEF firewalls)', filter: category('network'), fields: NETWORK_FIELDS },
];

export function findLogsource(logsource: Record<string, string>): LogsourceMapping | null {
  return LOGSOURCES.find(({ when }) => Object.entries(when).every(([key, value]) => logsource[key]?.toLowerCase() === value)) ?? null;
}

/** The ECS field for a Sigma field under this log source: its table, the common table, or an ECS name written as such. */
export function mapField(mapping: LogsourceMapping, field: string): string | null {
  if (mapping.cairnNames) return /^[A-Za-z_@][A-Za-z0-9_.@-]*$/.test(field) ? field : null;
  const mapped = mapping.fields[field] ?? COMMON_FIELDS[field];
  if (mapped !== undefined) return mapped;
  if (ECS_ROOTS.some((root) => field.startsWith(`${root}.`))) return field;
  return mapping.own && mapping.own.shape.test(field) ? mapping.own.prefix + field : null;
}

/** A Sigma rule that already names ECS fields (source.ip, user.name ...) keeps them. */
const ECS_ROOTS = ['source', 'destination', 'client', 'server', 'user', 'host', 'process', 'event', 'url', 'http', 'dns', 'network', 'user_agent', 'file', 'service', 'observer', 'rule', 'tls'];

/** The Sigma name of an ECS field under this log source, for export; the ECS name when it has none. */
export function sigmaField(mapping: LogsourceMapping | null, ecs: string): string {
  const entry = mapping ? Object.entries(mapping.fields).find(([, e]) => e === ecs) : undefined;
  if (entry) return entry[0];
  const own = mapping?.own;
  return own && ecs.startsWith(own.prefix) && own.shape.test(ecs.slice(own.prefix.length)) ? ecs.slice(own.prefix.length) : ecs;
}

/** Sigma levels to cairn severities (informational rules become low ones). */
export const LEVEL_TO_SEVERITY = lookupTable<'low' | 'medium' | 'high' | 'critical'>({
  informational: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  critical: 'critical',
});
