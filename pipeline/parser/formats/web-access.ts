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

// Up to four space-separated tokens (vhost, client, ident, user), the time in brackets,
// an optional vhost, the quoted request, status and size, then optional quoted referrer and agent.
const ACCESS =
  /^(?<tokens>(?:\S+ +){2,4})\[(?<time>[^\]]{10,40})\] (?:(?<vhost>[^\s"]+) )?"(?<request>(?:[^"\\]|\\.)*)" (?<status>\d{3}|-) (?<bytes>\d+|-)(?: "(?<referrer>(?:[^"\\]|\\.)*)" "(?<agent>(?:[^"\\]|\\.)*)")?(?<rest>.*)$/;
const REQUEST = /^(?<method>[A-Z][A-Z_-]{1,15}) (?<url>\S+)(?: HTTP\/(?<version>\d(?:\.\d)?))?$/;
const FORWARDED = /"(?<xff>(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9a-f:]+:[0-9a-f:]*)(?:, ?[^"]*)?)"\s*$/i;
const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

function unescape(text: string): string {
  return text.replace(/\\(["\\])/g, '$1');
}

function setClient(fields: EventFields, token: string): boolean {
  const ip = canonicalIp(token);
  if (ip) fields['source.ip'] = ip;
  else if (HOST_NAME.test(token) && token.includes('.')) fields['source.domain'] = token.toLowerCase();
  else return false;
  return true;
}

/** The access-log fields of `line`, or null when it is not an access log line. */
export function parseAccessLine(line: string, ctx: ParseContext): EventFields | null {
  const m = ACCESS.exec(line);
  if (!m?.groups) return null;
  const g = m.groups;
  const tokens = g.tokens!.trim().split(/ +/);
  // The client is the first token that is an address or host; a virtual host may come before it.
  const fields: EventFields = {};
  const clientAt = tokens.length >= 4 && !canonicalIp(tokens[0]!) && canonicalIp(tokens[1]!) ? 1 : 0;
  if (!setClient(fields, tokens[clientAt]!.replace(/^::ffff:/, ''))) return null;
  if (clientAt === 1) fields['url.domain'] = tokens[0]!.replace(/:\d+$/, '').toLowerCase();
  const user = tokens[tokens.length - 1]!.replace(/^"|"$/g, '');
  if (user !== '-' && user !== '' && tokens.length - clientAt >= 3) fields['user.name'] = user;
  const timestamp = parseLogTime(g.time!, ctx);
  if (timestamp) fields['@timestamp'] = timestamp;
  if (g.vhost && g.vhost !== '-') fields['url.domain'] = g.vhost.toLowerCase();

  const request = unescape(g.request!);
  const r = REQUEST.exec(request);
  if (r?.groups) {
    fields['http.request.method'] = r.groups.method!;
    fields['url.original'] = r.groups.url!;
    const q = r.groups.url!.indexOf('?');
    fields['url.path'] = q < 0 ? r.groups.url! : r.groups.url!.slice(0, q);
    if (q >= 0 && q + 1 < r.groups.url!.length) fields['url.query'] = r.groups.url!.slice(q + 1);
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
    const fields = parseAccessLine(raw.trimEnd(), ctx);
    if (fields) fields.message = raw.trimEnd();
    return fields;
  },
};
