// Web server error logs: Apache httpd 2.2 ("[time] [level] [client ip] msg")
// and 2.4 ("[time] [module:level] [pid n:tid m] [client ip:port] AHnnnnn: msg",
// also behind a syslog header), and nginx ("YYYY/MM/DD hh:mm:ss [level]
// pid#tid: *conn msg, client: ip, server: ..., request: "...", host: ...").
// The client goes to source.ip, the user an auth module names to user.name,
// the level to log.level, the module to log.logger. What the server refused
// (failed authentication, access denied by rule or by ModSecurity, a limit
// exceeded, a missing file or script a client asked for, a malformed request)
// is event.outcome failure; notices and the server's own trouble are not.
import { parseLogTime } from '../envelope.js';
import type { EventFields, FormatParser, ParseContext } from '../types.js';
import { readEndpoint, setRequestUrl } from './web-access.js';

const APACHE =
  /^(?:\[(?<time>[A-Z][a-z]{2} [A-Z][a-z]{2} +\d{1,2} \d{2}:\d{2}:\d{2}(?:\.\d+)? \d{4})\] )?\[(?:(?<module>[\w-]*):)?(?<level>emerg|alert|crit|error|warn|notice|info|debug|trace\d)\] (?:\[pid (?<pid>\d+)(?::tid \d+)?\] )?(?:\(\d+\)[^:[]*: )?(?<clients>(?:\[client (?:\[[^\]]+\](?::\d+)?|[^\]]+)\] ?)*)(?:(?<code>AH\d{5}): )?(?<message>.*)$/;
const APACHE_CLIENT = /\[client (\[[^\]]+\](?::\d+)?|[^\]]+)\]/g;
// The client is the last ", client: " (what comes before it may quote a user name the client chose).
// The message may span lines: FastCGI's stderr is quoted as it came.
const NGINX = /^(?<time>\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2}) \[(?<level>\w+)\] (?<pid>\d+)#\d+: (?:\*\d+ )?(?<message>[\s\S]*)$/;
const NGINX_CLIENT = /^(?<message>[\s\S]*), client: (?<client>[^,\s]+)(?<context>(?:, (?:server|request|upstream|host|referrer|subrequest|port): .*)?)$/;
const NGINX_REQUEST = /, request: "(?<method>[A-Z]+) (?<url>\S+)(?: HTTP\/(?<version>[\d.]+))?"/;
const NGINX_HOST = /, host: "(?<host>[^"]*)"/;

type Verdict = { category: string[]; action: string; user?: string };

// Message shapes that mean the server refused the client, most specific
// first. Each is anchored at the start of the message: the rest of a message
// often quotes what the client sent (a path, a user name), which must not
// pass for the server's verdict.
const REFUSALS: [RegExp, (m: RegExpExecArray) => Verdict][] = [
  [
    /^(?:Digest: )?(?:user (?<user>[^\s:"]*):? (?:authentication failure|password mismatch|authorization failure)|user (?<user2>\S*) not found\b|user [`'"](?<user3>[^'"`]*)['"] in realm .* not found|Authorization of user (?<user4>\S+) to access .* failed|client used wrong authentication scheme|realm mismatch|unknown algorithm|invalid qop|invalid nonce \S+ received - (?!hash is not))/,
    (m) => ({ category: ['authentication'], action: 'authentication-failed', user: m.groups?.user ?? m.groups?.user2 ?? m.groups?.user3 ?? m.groups?.user4 }),
  ],
  [/^user "(?<user>[^"]*)"(?:: password mismatch| was not found in)|^no user\/password was provided for basic authentication(?<challenge>)/, (m) => ({ category: ['authentication'], action: m.groups?.challenge === undefined ? 'authentication-failed' : 'authentication-challenge', user: m.groups?.user })],
  [/^(?:WAR \[Login denied for user "(?<user>[^"]*)"|ERR \[Could not retrieve user (?<user2>\S+) details)/, (m) => ({ category: ['authentication'], action: 'authentication-failed', user: m.groups?.user ?? m.groups?.user2 })],
  [/^(?:ModSecurity: |client denied by server configuration|Directory index forbidden by|access forbidden by rule|directory index of .* is forbidden)/, () => ({ category: ['web'], action: 'access-denied' })],
  [/^limiting (?:requests|connections)/, () => ({ category: ['web'], action: 'rate-limited' })],
  [/^(?:File does not exist|script '?[^']*'? not found or unable to stat|script not found or unable to stat|Got error 'Primary script unknown|open\(\) "[^"]*" failed \(2: No such file or directory\)|"[^"]*" is not found \(2: No such file or directory\)|attempt to invoke directory as script)/, () => ({ category: ['web'], action: 'not-found' })],
  [/^(?:Invalid URI in request|request failed: (?:URI too long|erroneous characters after protocol string)|Invalid method in request|client sent invalid|Hostname \S+ provided via SNI, but no hostname provided|SSL_do_handshake\(\) failed|client sent too long|request line too long)/, () => ({ category: ['web'], action: 'bad-request' })],
  [/^\/bin\/\w*sh: (?:warning: \S+: ignoring function definition attempt|error importing function definition)/, () => ({ category: ['intrusion_detection'], action: 'shellshock-attempt' })],
];

function classify(message: string, fields: EventFields): void {
  for (const [pattern, verdict] of REFUSALS) {
    const m = pattern.exec(message);
    if (!m) continue;
    const v = verdict(m);
    fields['event.category'] = v.category;
    fields['event.type'] = v.category[0] === 'authentication' ? ['info'] : ['denied'];
    fields['event.action'] = v.action;
    fields['event.outcome'] = v.action === 'authentication-challenge' ? 'unknown' : 'failure';
    if (v.user) fields['user.name'] = v.user;
    return;
  }
  fields['event.category'] = ['web'];
  fields['event.type'] = ['error'];
}

/** "127.0.0.1:51380", "[2001:db8::1]:5", "2001:db8::1" (no port), "127.0.0.1". */
function clientAddress(text: string): { ip: string; port?: number } | null {
  const endpoint = readEndpoint(text);
  return endpoint?.ip ? { ip: endpoint.ip, port: endpoint.port } : null;
}

function parseApache(line: string, ctx: ParseContext): EventFields | null {
  const m = APACHE.exec(line);
  if (!m?.groups) return null;
  const g = m.groups;
  const fields: EventFields = {};
  if (g.time) {
    const timestamp = parseLogTime(g.time, ctx);
    if (timestamp) fields['@timestamp'] = timestamp;
  }
  fields['log.level'] = g.level!;
  if (g.module) fields['log.logger'] = g.module;
  if (g.pid) fields['process.pid'] = Number(g.pid);
  if (g.code) fields['error.code'] = g.code;
  // ModSecurity repeats the client; the last one is the address it judged.
  const clients = [...(g.clients ?? '').matchAll(APACHE_CLIENT)].map((c) => clientAddress(c[1]!.trim())).filter((c) => c !== null);
  const client = clients[clients.length - 1];
  if (client) {
    fields['source.ip'] = client.ip;
    if (client.port !== undefined) fields['source.port'] = client.port;
  }
  fields.message = g.message!;
  classify(g.message!, fields);
  return fields;
}

function parseNginx(line: string, ctx: ParseContext): EventFields | null {
  const m = NGINX.exec(line);
  if (!m?.groups) return null;
  const g = m.groups;
  const fields: EventFields = {};
  const timestamp = parseLogTime(g.time!, ctx);
  if (timestamp) fields['@timestamp'] = timestamp;
  fields['log.level'] = g.level!;
  fields['process.pid'] = Number(g.pid);
  let message = g.message!;
  const withClient = NGINX_CLIENT.exec(message);
  if (withClient?.groups) {
    message = withClient.groups.message!;
    const client = clientAddress(withClient.groups.client!);
    if (client) fields['source.ip'] = client.ip;
    const context = withClient.groups.context ?? '';
    const request = NGINX_REQUEST.exec(context);
    if (request?.groups) {
      fields['http.request.method'] = request.groups.method!;
      setRequestUrl(fields, request.groups.url!);
      if (request.groups.version) fields['http.version'] = request.groups.version;
    }
    const host = NGINX_HOST.exec(context);
    if (host?.groups?.host) fields['url.domain'] = host.groups.host.replace(/:\d+$/, '').toLowerCase();
  }
  fields.message = message;
  classify(message, fields);
  return fields;
}

/** The error-log fields of `line` (Apache or nginx), or null when it is neither. */
export function parseErrorLine(line: string, ctx: ParseContext): EventFields | null {
  const fields = line.startsWith('[') ? parseApache(line, ctx) : /^\d{4}\//.test(line) ? parseNginx(line, ctx) : null;
  if (fields) fields['event.kind'] = 'event';
  return fields;
}

export const webError: FormatParser = {
  name: 'web-error',
  detect: (raw) => (raw.startsWith('[') && /^\[[A-Z][a-z]{2} [A-Z][a-z]{2} /.test(raw)) || /^\d{4}\/\d{2}\/\d{2} \d{2}:\d{2}:\d{2} \[/.test(raw),
  parse: (raw, ctx) => parseErrorLine(raw.trimEnd(), ctx),
};
