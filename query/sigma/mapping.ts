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

/** Web server and proxy logs share the W3C/Sigma field names. */
const WEB_FIELDS = lookupTable<string>({
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
});

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

/** Fields every source carries (the parser's own). */
const COMMON_FIELDS = lookupTable<string>({
  user: 'user.name',
  User: 'user.name',
  hostname: 'host.hostname',
  Hostname: 'host.hostname',
  pid: 'process.pid',
});

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
  { when: { product: 'zeek', service: 'dns' }, means: 'Zeek dns.log', filter: DNS, fields: DNS_FIELDS },
  { when: { category: 'dns' }, means: 'DNS events (Zeek, Suricata)', filter: DNS, fields: DNS_FIELDS },
  { when: { category: 'firewall' }, means: 'firewall events (iptables, Cisco ASA, CEF/LEEF firewalls)', filter: category('network'), fields: NETWORK_FIELDS },
];

export function findLogsource(logsource: Record<string, string>): LogsourceMapping | null {
  return LOGSOURCES.find(({ when }) => Object.entries(when).every(([key, value]) => logsource[key]?.toLowerCase() === value)) ?? null;
}

/** The ECS field for a Sigma field under this log source: its table, the common table, or an ECS name written as such. */
export function mapField(mapping: LogsourceMapping, field: string): string | null {
  if (mapping.cairnNames) return /^[A-Za-z_@][A-Za-z0-9_.@-]*$/.test(field) ? field : null;
  return mapping.fields[field] ?? COMMON_FIELDS[field] ?? (ECS_ROOTS.some((root) => field.startsWith(`${root}.`)) ? field : null);
}

/** A Sigma rule that already names ECS fields (source.ip, user.name ...) keeps them. */
const ECS_ROOTS = ['source', 'destination', 'client', 'server', 'user', 'host', 'process', 'event', 'url', 'http', 'dns', 'network', 'user_agent', 'file', 'service', 'observer', 'rule', 'tls'];

/** The Sigma name of an ECS field under this log source, for export; the ECS name when it has none. */
export function sigmaField(mapping: LogsourceMapping | null, ecs: string): string {
  const entry = mapping ? Object.entries(mapping.fields).find(([, e]) => e === ecs) : undefined;
  return entry?.[0] ?? ecs;
}

/** Sigma levels to cairn severities (informational rules become low ones). */
export const LEVEL_TO_SEVERITY = lookupTable<'low' | 'medium' | 'high' | 'critical'>({
  informational: 'low',
  low: 'low',
  medium: 'medium',
  high: 'high',
  critical: 'critical',
});
