// Web server access logs: Apache and nginx "common" and "combined" formats
// and their usual variants (a virtual host first or after the time, an
// authenticated user, a request time or X-Forwarded-For list after the
// agent, IPv6 clients, "-" for what is missing, escaped quotes, a French
// month name), also behind a syslog header. Fields after ECS: source.ip (or
// source.domain), user.name, http.request.method, url.original/path/query,
// http.version, http.response.status_code and body.bytes,
// http.request.referrer, user_agent.original; the outcome follows the status
// (4xx and 5xx fail).
import { parseLogTime } from '../envelope.js';
import { canonicalIp } from '../ip.js';
import type { EventFields, FormatParser, ParseContext } from '../types.js';

// Before the time in brackets, two to five words (a list of addresses counting as one): an
// optional server (virtual host or address, with a port), the client (or a list of addresses,
// bare or quoted, the original client first), ident and user; then an optional vhost, the quoted request, status and size, then optional quoted
// referrer and agent.
const ACCESS =
  /^(?<tokens>(?:(?:"[^"]{0,2000}"|\S+(?:, +\S+){0,10}) +){2,5})\[(?<time>[^\]]{10,40})\] (?:(?<vhost>[^\s"]+) )?"(?<request>(?:[^"\\]|\\.)*)" (?<status>\d{3}|-) (?<bytes>\d+|-)(?: "(?<referrer>(?:[^"\\]|\\.)*)" "(?<agent>(?:[^"\\]|\\.)*)")?(?<rest>.*)$/;
const REQUEST = /^(?<method>[A-Z][A-Z_-]{1,15}) (?<url>\S+)(?: HTTP\/(?<version>\d(?:\.\d)?))?$/;
const FORWARDED = /"(?<xff>(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f:]+:[0-9a-f:]*)(?:, ?[^"]*)?)"\s*$/i;
const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

function unescape(text: string): string {
  return text.replace(/\\(["\\])/g, '$1');
}

export interface Endpoint {
  ip?: string;
  /** A host name with a dot (not "localhost", not "unix:"). */
  domain?: string;
  port?: number;
}

/** "203.0.113.5", "203.0.113.5:80", "[2001:db8::1]:443", "2001:db8::1", "www.example.org:8080"; null when it is none of these. */
export function readEndpoint(text: string): Endpoint | null {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  const whole = bracketed ? null : canonicalIp(text.replace(/^::ffff:/, ''));
  if (whole) return { ip: whole };
  const m = bracketed ?? /^(.*?)(?::(\d{1,5}))?$/.exec(text)!;
  const port = m[2] !== undefined ? Number(m[2]) : undefined;
  const ip = canonicalIp(m[1]!.replace(/^::ffff:/, ''));
  if (ip) return { ip, port };
  if (!bracketed && HOST_NAME.test(m[1]!) && m[1]!.includes('.')) return { domain: m[1]!.toLowerCase(), port };
  return null;
}

function setEndpoint(fields: EventFields, side: 'source' | 'destination', endpoint: Endpoint | null): void {
  if (!endpoint) return;
  if (endpoint.ip) fields[`${side}.ip`] = endpoint.ip;
  if (endpoint.domain) fields[`${side}.domain`] = endpoint.domain;
  if (endpoint.port !== undefined) fields[`${side}.port`] = endpoint.port;
}

/** url.original, and url.path and url.query of a request target. */
export function setRequestUrl(fields: EventFields, url: string): void {
  fields['url.original'] = url;
  if (!url.startsWith('/') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) return;
  const path = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
  const q = path.indexOf('?');
  fields['url.path'] = q < 0 ? path : path.slice(0, q);
  if (q >= 0 && q + 1 < path.length) fields['url.query'] = path.slice(q + 1);
}

/**
 * The words before the time: [server] client ident user, where the client
 * may be a list of addresses ("203.0.113.9, 10.0.0.1", quoted or not) that
 * proxies built, the original client first.
 */
function readPeers(tokens: string, fields: EventFields): void {
  const words = tokens
    .trim()
    .replace(/"([^"]*)"/g, (_, list: string) => list.replace(/\s+/g, ''))
    .replace(/,\s+/g, ',')
    .split(/ +/);
  // Two words are "client user" (no ident); three or more end with ident and user.
  const peers = words.length >= 3 ? words.slice(0, -2) : words.slice(0, 1);
  const user = words.length >= 3 ? words[words.length - 1]! : undefined;
  if (user !== undefined && user !== '-' && user !== '') fields['user.name'] = user;
  const clients = peers.slice(peers.length >= 2 ? 1 : 0).join(',').split(',').filter((c) => c !== '' && c !== '-');
  if (peers.length >= 2) {
    const server = readEndpoint(peers[0]!);
    setEndpoint(fields, 'destination', server);
    if (server?.domain) fields['url.domain'] = server.domain;
  }
  setEndpoint(fields, 'source', clients.length > 0 ? readEndpoint(clients[0]!) : null);
}

/** The access-log fields of `line`, or null when it is not an access log line. */
export function parseAccessLine(line: string, ctx: ParseContext): EventFields | null {
  const m = ACCESS.exec(line);
  if (!m?.groups) return null;
  const g = m.groups;
  const fields: EventFields = {};
  readPeers(g.tokens!, fields);
  const timestamp = parseLogTime(g.time!, ctx);
  if (!timestamp) return null;
  fields['@timestamp'] = timestamp;
  if (g.vhost && g.vhost !== '-') fields['url.domain'] = g.vhost.toLowerCase();

  const request = unescape(g.request!);
  const r = REQUEST.exec(request);
  if (r?.groups) {
    fields['http.request.method'] = r.groups.method!;
    setRequestUrl(fields, r.groups.url!);
    if (r.groups.version) fields['http.version'] = r.groups.version;
  } else if (request !== '') {
    fields['url.original'] = request; // not HTTP: a scan, TLS to a plain port, junk
  }
  if (g.status !== '-') fields['http.response.status_code'] = Number(g.status);
  if (g.bytes !== '-') fields['http.response.body.bytes'] = Number(g.bytes);
  if (g.referrer && g.referrer !== '-') fields['http.request.referrer'] = unescape(g.referrer);
  if (g.agent && g.agent !== '-') fields['user_agent.original'] = unescape(g.agent);
  const forwarded = FORWARDED.exec(g.rest ?? '');
  const forwardedIp = forwarded ? canonicalIp(forwarded.groups!.xff!.split(',')[0]!.trim()) : null;
  if (forwardedIp) fields['network.forwarded_ip'] = forwardedIp;

  const status = fields['http.response.status_code'];
  fields['event.kind'] = 'event';
  fields['event.category'] = ['web'];
  fields['event.type'] = typeof status === 'number' && status >= 400 ? ['access', 'error'] : ['access'];
  fields['event.action'] = 'http-request';
  if (typeof status === 'number') fields['event.outcome'] = status >= 400 ? 'failure' : 'success';
  return fields;
}

export const webAccess: FormatParser = {
  name: 'web-access',
  // Cheap: a bracketed time followed by a quoted request.
  detect: (raw) => raw.includes('] "') && raw.indexOf(' [') > 0,
  parse(raw, ctx) {
    // One request per line: lines a shipper's multiline setting glued on are other requests.
    const newline = raw.indexOf('\n');
    const fields = parseAccessLine((newline < 0 ? raw : raw.slice(0, newline)).trimEnd(), ctx);
    if (fields) fields.message = raw.trimEnd();
    return fields;
  },
};
