// Suricata EVE JSON (one object per line) to flat ECS fields. Categorisation
// follows Filebeat's suricata module; dns covers the v1, v2 and v3 layouts.
import { canonicalIp } from '../ip.js';
import type { EventFields, FormatParser } from '../types.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

// Character codes the hand-written readers below test for.
const DASH = 0x2d;
const COLON = 0x3a;
const DOT = 0x2e;
const PLUS = 0x2b;

// ---------------------------------------------------------------------------
// Addresses. canonicalIp costs ~20 µs for anything that is not dotted IPv4
// (ipaddr.js validates IPv4 by catching a thrown Error), so the common cases
// are answered here with the same result, and the rest is remembered.

/** Strict dotted decimal, parts 0-255 without leading zeros: what canonicalIp returns unchanged. */
function isCanonicalIpv4(value: string): boolean {
  let parts = 0;
  let part = 0;
  let digits = 0;
  for (let i = 0; i <= value.length; i++) {
    const c = i < value.length ? value.charCodeAt(i) : DOT;
    if (c === DOT) {
      if (digits === 0 || part > 255) return false;
      parts++;
      part = 0;
      digits = 0;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9 || (digits === 1 && part === 0) || digits === 3) return false;
    part = part * 10 + d;
    digits++;
  }
  return parts === 4;
}

function isVisibleAscii(code: number): boolean {
  return code > 0x20 && code < 0x7f;
}

const IP_CACHE_LIMIT = 50_000;
const ipCache = new Map<string, string | null>();

/** canonicalIp(value), fast for IPv4 and for names; shared with the other network formats. */
export function canonicalIpFast(value: string): string | null {
  if (isCanonicalIpv4(value)) return value;
  // Without a colon, bracket, zone or whitespace to trim, canonicalIp accepts only canonical IPv4.
  if (!value.includes(':') && !value.includes('[') && !value.includes('%') && isVisibleAscii(value.charCodeAt(0)) && isVisibleAscii(value.charCodeAt(value.length - 1))) return null;
  let ip = ipCache.get(value);
  if (ip === undefined) {
    if (ipCache.size >= IP_CACHE_LIMIT) ipCache.clear();
    ip = canonicalIp(value);
    ipCache.set(value, ip);
  }
  return ip;
}

// ---------------------------------------------------------------------------
// Timestamps. Suricata writes "2018-07-05T15:07:20.910626-0400", a form
// Date.parse does not reliably accept (zone without a colon), so it is read
// by position: cheaper than a regex, and strict about what it accepts.

/** The number written by `length` digits at `at`, or -1 when one is not a digit. */
function digitsAt(value: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const d = value.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) return -1;
    n = n * 10 + d;
  }
  return n;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Minutes east of UTC of the zone that starts at `at` ("Z", "+hhmm", "-hh:mm", none = UTC), or null. */
function zoneOffsetMinutes(value: string, at: number): number | null {
  if (at === value.length) return 0;
  const sign = value.charCodeAt(at);
  if (value[at] === 'Z' || value[at] === 'z') return at + 1 === value.length ? 0 : null;
  if (sign !== PLUS && sign !== DASH) return null;
  const hours = digitsAt(value, at + 1, 2);
  const minutesAt = value.charCodeAt(at + 3) === COLON ? at + 4 : at + 3;
  const minutes = digitsAt(value, minutesAt, 2);
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || minutesAt + 2 !== value.length) return null;
  return (sign === DASH ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * Epoch milliseconds of an ISO 8601 time as Suricata writes it, the fraction
 * truncated (not rounded) to the millisecond; null when malformed.
 */
export function parseEveTime(value: string): number | null {
  if (value.length < 19) return null;
  const separator = value[10];
  if (value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH || value.charCodeAt(13) !== COLON || value.charCodeAt(16) !== COLON) return null;
  if (separator !== 'T' && separator !== ' ') return null;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return null;
  let at = 19;
  let millis = 0;
  if (value.charCodeAt(at) === DOT) {
    const start = ++at;
    while (at < value.length && digitsAt(value, at, 1) >= 0) at++;
    if (at === start) return null;
    // The first three digits of the fraction, padded: ".9" is 900 ms.
    for (let i = start; i < start + 3; i++) millis = millis * 10 + (i < at ? value.charCodeAt(i) - 48 : 0);
  }
  const offset = zoneOffsetMinutes(value, at);
  if (offset === null) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * 60_000;
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

/**
 * new Date(ms).toISOString() for years 1000-9999, in a quarter of its time:
 * calendar date from the day number by Hinnant's civil_from_days.
 */
export function isoString(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const msOfDay = ms - days * 86_400_000;
  const era = Math.floor((days + 719_468) / 146_097);
  const dayOfEra = days + 719_468 - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 1000 || year > 9999) return new Date(ms).toISOString();
  const hour = Math.floor(msOfDay / 3_600_000);
  const minute = Math.floor(msOfDay / 60_000) % 60;
  const second = Math.floor(msOfDay / 1000) % 60;
  const millis = msOfDay % 1000;
  const digits = (n: number) => TWO_DIGITS[n] ?? '';
  return `${digits(Math.floor(year / 100))}${digits(year % 100)}-${digits(month)}-${digits(day)}T${digits(hour)}:${digits(minute)}:${digits(second)}.${digits(Math.floor(millis / 10))}${millis % 10}Z`;
}

function isoTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = parseEveTime(value);
  return ms === null ? undefined : isoString(ms);
}

// ---------------------------------------------------------------------------
// Categorisation by event_type, as Filebeat's suricata module does it.

interface Categorisation {
  kind?: string;
  category: readonly string[];
  type?: readonly string[];
  /** network.protocol when the record has no usable app_proto. */
  protocol?: string;
}

const NETWORK = ['network'];
const WEB = ['network', 'web'];
const protocolEvent = (protocol: string): Categorisation => ({ category: NETWORK, type: ['protocol'], protocol });

const APP_LAYER_EVENTS = ['dns', 'tls', 'ssh', 'smtp', 'ftp', 'smb', 'krb5', 'ikev2', 'mqtt', 'snmp', 'tftp', 'rdp', 'rfb', 'dhcp', 'sip', 'nfs', 'dcerpc', 'modbus', 'dnp3', 'quic', 'pgsql', 'ldap', 'bittorrent-dht', 'websocket'];

/** A Map, not an object literal: event_type is data, and "constructor" must not find Object's. */
const CATEGORISATION = new Map<string, Categorisation>([
  ...APP_LAYER_EVENTS.map((protocol): [string, Categorisation] => [protocol, protocolEvent(protocol)]),
  ['ftp_data', protocolEvent('ftp')],
  ['alert', { kind: 'alert', category: ['network', 'intrusion_detection'] }],
  // Engine counters are measurements, not network activity (ECS event.kind "metric").
  ['stats', { kind: 'metric', category: [] }],
  ['flow', { category: NETWORK, type: ['connection'] }],
  ['netflow', { category: NETWORK, type: ['connection'] }],
  ['drop', { category: NETWORK, type: ['connection', 'denied'] }],
  ['fileinfo', { category: NETWORK, type: ['info'] }],
  ['anomaly', { category: NETWORK, type: ['info'] }],
  ['http', { category: WEB, type: ['access', 'protocol'], protocol: 'http' }],
  ['http2', { category: WEB, type: ['access', 'protocol'], protocol: 'http2' }],
]);

/** app_proto values that name no protocol. */
const NO_PROTOCOL = new Set(['failed', 'unknown', 'template', 'template-rust']);

function networkProtocol(record: Json, categorisation: Categorisation | undefined): string | undefined {
  const appProto = text(record.app_proto)?.toLowerCase();
  if (appProto && !NO_PROTOCOL.has(appProto)) return appProto === 'ftp-data' ? 'ftp' : appProto;
  return categorisation?.protocol;
}

function addCategorisation(fields: EventFields, eventType: string, record: Json): void {
  const known = CATEGORISATION.get(eventType);
  const protocol = networkProtocol(record, known);
  fields['event.kind'] = known?.kind ?? 'event';
  const category = known ? known.category : NETWORK;
  if (category.length > 0) fields['event.category'] = category.slice();
  // An unknown event type is an app-layer record when it names a protocol, else plain information.
  const type = known ? (known.type?.slice() ?? []) : [protocol ? 'protocol' : 'info'];
  if (type.length > 0) fields['event.type'] = type;
  if (protocol) fields['network.protocol'] = protocol;
}

// ---------------------------------------------------------------------------
// Parts every record type may carry.

// Field names are written out whole throughout: a name built per event
// (`${prefix}.ip`) is a new string V8 must look up before every store.

function setIp(fields: EventFields, ipField: string, addressField: string, value: unknown): void {
  if (typeof value !== 'string') return;
  const ip = canonicalIpFast(value);
  // Not an address after all: ECS keeps such a value in .address.
  if (ip) fields[ipField] = ip;
  else if (value !== '') fields[addressField] = value;
}

function addEndpoints(fields: EventFields, record: Json): void {
  setIp(fields, 'source.ip', 'source.address', record.src_ip);
  setIp(fields, 'destination.ip', 'destination.address', record.dest_ip);
  const sourcePort = count(record.src_port);
  const destinationPort = count(record.dest_port);
  if (sourcePort !== undefined) fields['source.port'] = sourcePort;
  if (destinationPort !== undefined) fields['destination.port'] = destinationPort;
  const proto = text(record.proto);
  if (proto) fields['network.transport'] = proto.toLowerCase();
  const communityId = text(record.community_id);
  if (communityId) fields['network.community_id'] = communityId;
  const iface = text(record.in_iface);
  if (iface) fields['observer.ingress.interface.name'] = iface;
  const sensor = text(record.host);
  if (sensor) fields['observer.hostname'] = sensor;
  // flow_id ties the records of one flow together (alert, http, fileinfo, flow).
  if (typeof record.flow_id === 'number') fields['suricata.eve.flow_id'] = String(record.flow_id);
}

function addSpan(fields: EventFields, counters: Json): void {
  const start = typeof counters.start === 'string' ? parseEveTime(counters.start) : null;
  const end = typeof counters.end === 'string' ? parseEveTime(counters.end) : null;
  if (start !== null) fields['event.start'] = isoString(start);
  if (end !== null) fields['event.end'] = isoString(end);
  // event.duration is in nanoseconds (ECS).
  if (start !== null && end !== null && end >= start) fields['event.duration'] = (end - start) * 1_000_000;
}

const PACKETS = { source: 'source.packets', destination: 'destination.packets', network: 'network.packets' };
const BYTES = { source: 'source.bytes', destination: 'destination.bytes', network: 'network.bytes' };

function setCounters(fields: EventFields, names: typeof PACKETS, fromSource: number | undefined, fromDestination: number | undefined): void {
  if (fromSource !== undefined) fields[names.source] = fromSource;
  if (fromDestination !== undefined) fields[names.destination] = fromDestination;
  if (fromSource !== undefined || fromDestination !== undefined) fields[names.network] = (fromSource ?? 0) + (fromDestination ?? 0);
}

/** A flow's counters cover both directions: "toserver" is what the source sent. */
function addFlow(fields: EventFields, flow: Json): void {
  setCounters(fields, PACKETS, count(flow.pkts_toserver), count(flow.pkts_toclient));
  setCounters(fields, BYTES, count(flow.bytes_toserver), count(flow.bytes_toclient));
  addSpan(fields, flow);
}

/** A netflow record is one direction: everything in it was sent by the source. */
function addNetflow(fields: EventFields, netflow: Json): void {
  setCounters(fields, PACKETS, count(netflow.pkts), undefined);
  setCounters(fields, BYTES, count(netflow.bytes), undefined);
  addSpan(fields, netflow);
}

function addFlowState(fields: EventFields, flow: Json): void {
  const type = fields['event.type'];
  if (!Array.isArray(type)) return;
  if (flow.state === 'new') type.push('start');
  else if (flow.state === 'closed') type.push('end');
}

function addAlert(fields: EventFields, alert: Json): void {
  const signatureId = count(alert.signature_id);
  const signature = text(alert.signature);
  const category = text(alert.category);
  const severity = count(alert.severity);
  const revision = count(alert.rev);
  if (signatureId !== undefined) fields['rule.id'] = String(signatureId);
  if (signature) fields['rule.name'] = signature;
  if (category) fields['rule.category'] = category;
  if (revision !== undefined) fields['rule.version'] = String(revision);
  if (severity !== undefined) fields['event.severity'] = severity;
  // "blocked" is what an IPS did with the packet: ECS calls that "denied".
  const action = alert.action === 'blocked' ? 'denied' : alert.action === 'allowed' ? 'allowed' : undefined;
  if (action) fields['event.type'] = [action];
}

function addDestinationDomain(fields: EventFields, domain: string): void {
  const current = fields['destination.domain'];
  if (current === undefined) fields['destination.domain'] = domain;
  else if (current !== domain && !(Array.isArray(current) && current.includes(domain))) {
    fields['destination.domain'] = Array.isArray(current) ? [...current, domain] : [String(current), domain];
  }
}

// ---------------------------------------------------------------------------
// HTTP

/** url.* from the request target: origin form ("/a?b#c") or, through proxies, absolute form. */
function addUrl(fields: EventFields, url: string): void {
  fields['url.original'] = url;
  let target = url;
  if (url.charCodeAt(0) !== 0x2f) {
    const schemeEnd = url.indexOf('://');
    if (schemeEnd <= 0) return; // authority form (CONNECT host:port): no path
    const authorityStart = schemeEnd + 3;
    const pathStart = url.indexOf('/', authorityStart);
    const authority = url.slice(authorityStart, pathStart < 0 ? undefined : pathStart);
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    const portAt = host.startsWith('[') ? host.indexOf(']:') + 1 : host.lastIndexOf(':');
    fields['url.scheme'] = url.slice(0, schemeEnd).toLowerCase();
    const domain = portAt > 0 ? host.slice(0, portAt) : host;
    if (domain) fields['url.domain'] = domain;
    target = pathStart < 0 ? '/' : url.slice(pathStart);
  }
  const fragmentAt = target.indexOf('#');
  if (fragmentAt >= 0) {
    if (fragmentAt + 1 < target.length) fields['url.fragment'] = target.slice(fragmentAt + 1);
    target = target.slice(0, fragmentAt);
  }
  const queryAt = target.indexOf('?');
  if (queryAt >= 0) {
    if (queryAt + 1 < target.length) fields['url.query'] = target.slice(queryAt + 1);
    target = target.slice(0, queryAt);
  }
  if (target) fields['url.path'] = target;
}

function addHttp(fields: EventFields, http: Json, eventType: string): void {
  const hostname = text(http.hostname);
  const url = text(http.url);
  if (url) addUrl(fields, url);
  if (hostname) {
    addDestinationDomain(fields, hostname);
    fields['url.domain'] = hostname;
  }
  const method = text(http.http_method);
  // ECS (since 1.6) keeps the method's case as sent.
  if (method) fields['http.request.method'] = method;
  const status = count(http.status);
  if (status !== undefined) {
    fields['http.response.status_code'] = status;
    // Only an http record describes the exchange; other records just carry its metadata.
    if (eventType === 'http') fields['event.outcome'] = status < 400 ? 'success' : 'failure';
  }
  const length = count(http.length);
  if (length !== undefined) fields['http.response.body.bytes'] = length;
  const userAgent = text(http.http_user_agent);
  if (userAgent) fields['user_agent.original'] = userAgent;
  const referrer = text(http.http_refer);
  if (referrer) fields['http.request.referrer'] = referrer;
  const protocol = text(http.protocol);
  if (protocol?.startsWith('HTTP/')) fields['http.version'] = protocol.slice(5);
}

// ---------------------------------------------------------------------------
// TLS

/** "TLS 1.2" -> tls / 1.2, "SSLv3" -> ssl / 3. */
function addTlsVersion(fields: EventFields, version: string): void {
  if (version === 'UNDETERMINED') return;
  const space = version.indexOf(' ');
  const split = space > 0 ? space : version.lastIndexOf('v');
  if (split <= 0 || split === version.length - 1) return;
  fields['tls.version_protocol'] = version.slice(0, split).toLowerCase();
  fields['tls.version'] = version.slice(split + 1);
}

function addTls(fields: EventFields, tls: Json): void {
  const version = text(tls.version);
  if (version) addTlsVersion(fields, version);
  const rawSni = text(tls.sni);
  // A fully qualified SNI ends with the root dot; the name is the same without it.
  const sni = rawSni?.endsWith('.') ? rawSni.slice(0, -1) : rawSni;
  if (sni) {
    fields['tls.client.server_name'] = sni;
    addDestinationDomain(fields, sni);
  }
  const subject = text(tls.subject);
  const issuer = text(tls.issuerdn);
  if (subject) fields['tls.server.subject'] = subject;
  if (issuer) fields['tls.server.issuer'] = issuer;
  const fingerprint = text(tls.fingerprint);
  if (fingerprint) fields['tls.server.hash.sha1'] = fingerprint.replaceAll(':', '').toUpperCase();
  const serial = text(tls.serial);
  if (serial) fields['tls.server.x509.serial_number'] = serial.replaceAll(':', '');
  // Certificate validity is written without a zone, in UTC.
  const notBefore = isoTime(tls.notbefore);
  const notAfter = isoTime(tls.notafter);
  if (notBefore) fields['tls.server.not_before'] = notBefore;
  if (notAfter) fields['tls.server.not_after'] = notAfter;
  if (typeof tls.session_resumed === 'boolean') fields['tls.resumed'] = tls.session_resumed;
  const ja3 = isObject(tls.ja3) ? text(tls.ja3.hash) : undefined;
  const ja3s = isObject(tls.ja3s) ? text(tls.ja3s.hash) : undefined;
  if (ja3) fields['tls.client.ja3'] = ja3;
  if (ja3s) fields['tls.server.ja3s'] = ja3s;
}

// ---------------------------------------------------------------------------
// DNS. Layouts: v1 (one record per query or answer RR: type "query" or
// "answer", rrname, rrtype, rdata), v2 (version 2 answers: rrname/rrtype of
// the question, "answers" and/or "grouped"), v3 (Suricata 8: type "request"
// or "response", "queries" and "answers" arrays). Alerts of Suricata 7 nest
// the v1 query under dns.query[] and the v2 answer under dns.answer.

/** The dns object of an event in the v1/v2/v3 shape, unwrapping the alert-only nesting. */
function dnsRecord(dns: Json): Json {
  if (Array.isArray(dns.query) && isObject(dns.query[0])) return dns.query[0];
  if (isObject(dns.answer)) return dns.answer;
  return dns;
}

const DNS_TYPE = new Map<unknown, 'query' | 'answer'>([
  ['query', 'query'],
  ['request', 'query'],
  ['answer', 'answer'],
  ['response', 'answer'],
  ['authority', 'answer'],
]);

interface TypedData {
  type: string;
  data: string;
}

interface DnsAnswer extends TypedData {
  name: string;
  ttl: number;
}

/** Answer records with all of name, type, TTL and data: the ones dns.answers.* lists, arrays kept aligned. */
function completeAnswers(records: readonly unknown[]): DnsAnswer[] {
  const out: DnsAnswer[] = [];
  for (const record of records) {
    if (!isObject(record)) continue;
    const { rrname, rrtype, ttl, rdata } = record;
    if (typeof rrname === 'string' && typeof rrtype === 'string' && typeof ttl === 'number' && typeof rdata === 'string') {
      out.push({ name: rrname, type: rrtype, ttl, data: rdata });
    }
  }
  return out;
}

/** Type and data of every answer record that has both (SOA and OPT records have no rdata). */
function typedAnswers(records: readonly unknown[]): TypedData[] {
  const out: TypedData[] = [];
  for (const record of records) {
    if (isObject(record) && typeof record.rrtype === 'string' && typeof record.rdata === 'string') out.push({ type: record.rrtype, data: record.rdata });
  }
  return out;
}

/** Answers of the "grouped" layout ({"A": ["192.0.2.1"], "CNAME": [...]}): types and data only. */
function groupedAnswers(grouped: unknown): TypedData[] {
  const out: TypedData[] = [];
  if (!isObject(grouped)) return out;
  for (const type in grouped) {
    const values = grouped[type];
    if (!Array.isArray(values)) continue;
    for (const data of values) if (typeof data === 'string') out.push({ type, data });
  }
  return out;
}

function addResolvedIps(fields: EventFields, answers: readonly TypedData[]): void {
  const ips: string[] = [];
  for (const answer of answers) {
    if (answer.type !== 'A' && answer.type !== 'AAAA') continue;
    const ip = canonicalIpFast(answer.data);
    if (ip && !ips.includes(ip)) ips.push(ip);
  }
  if (ips.length > 0) fields['dns.resolved_ip'] = ips;
}

/** v1 records are one answer RR each; v2 and v3 list them under "answers", or only "grouped". */
function addAnswers(fields: EventFields, dns: Json, version: number | undefined): void {
  const records: readonly unknown[] = version === undefined ? [dns] : Array.isArray(dns.answers) ? dns.answers : [];
  const complete = completeAnswers(records);
  if (complete.length > 0) {
    fields['dns.answers.name'] = complete.map((a) => a.name);
    fields['dns.answers.type'] = complete.map((a) => a.type);
    fields['dns.answers.ttl'] = complete.map((a) => a.ttl);
    fields['dns.answers.data'] = complete.map((a) => a.data);
  }
  let typed = typedAnswers(records);
  if (typed.length === 0 && version !== undefined) {
    typed = groupedAnswers(dns.grouped);
    if (typed.length > 0) {
      fields['dns.answers.type'] = typed.map((a) => a.type);
      fields['dns.answers.data'] = typed.map((a) => a.data);
    }
  }
  addResolvedIps(fields, typed);
}

/** The question of a record: v3 lists it under queries; v1 queries, v2 answers and v1 answers without data carry it inline. */
function addQuestion(fields: EventFields, dns: Json, type: 'query' | 'answer', version: number | undefined): void {
  if (dns.type === 'authority') return; // names the zone, not the question
  let question: Json | undefined = dns;
  if (Array.isArray(dns.queries)) question = isObject(dns.queries[0]) ? dns.queries[0] : undefined;
  // A v1 answer record names its RR, which in a CNAME chain is not the
  // question; only a failure record (no rdata) echoes the question.
  else if (type === 'answer' && version === undefined && typeof dns.rdata === 'string') question = undefined;
  if (!question) return;
  const name = text(question.rrname);
  const qtype = text(question.rrtype);
  if (name) fields['dns.question.name'] = name;
  if (qtype) fields['dns.question.type'] = qtype;
}

const HEADER_FLAGS = [
  ['aa', 'AA'],
  ['tc', 'TC'],
  ['rd', 'RD'],
  ['ra', 'RA'],
] as const;

function addDns(fields: EventFields, wrapped: Json): void {
  const dns = dnsRecord(wrapped);
  const type = DNS_TYPE.get(dns.type);
  const version = count(dns.version);
  if (type) fields['dns.type'] = type;
  const id = count(dns.id);
  if (id !== undefined) fields['dns.id'] = String(id);
  addQuestion(fields, dns, type ?? 'query', version);
  if (type !== 'answer') return;
  const rcode = text(dns.rcode);
  if (rcode) fields['dns.response_code'] = rcode;
  const flags = HEADER_FLAGS.filter(([key]) => dns[key] === true).map(([, flag]) => flag);
  if (flags.length > 0) fields['dns.header_flags'] = flags;
  if (dns.type !== 'authority') addAnswers(fields, dns, version);
}

// ---------------------------------------------------------------------------
// Other application records

const FILE_HASHES = [
  ['md5', 'file.hash.md5'],
  ['sha1', 'file.hash.sha1'],
  ['sha256', 'file.hash.sha256'],
] as const;

function addFileinfo(fields: EventFields, fileinfo: Json): void {
  const path = text(fileinfo.filename);
  if (path) {
    fields['file.path'] = path;
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (name) fields['file.name'] = name;
  }
  const size = count(fileinfo.size);
  if (size !== undefined) fields['file.size'] = size;
  for (const [key, field] of FILE_HASHES) {
    const value = text(fileinfo[key]);
    if (value) fields[field] = value;
  }
}

const SSH_SIDES = [
  { key: 'client', software: 'suricata.eve.ssh.client.software_version', protoVersion: 'suricata.eve.ssh.client.proto_version' },
  { key: 'server', software: 'suricata.eve.ssh.server.software_version', protoVersion: 'suricata.eve.ssh.server.proto_version' },
] as const;

function addSsh(fields: EventFields, ssh: Json): void {
  // ECS has no ssh fields; the names are Filebeat's, so queries carry over.
  for (const side of SSH_SIDES) {
    const peer = ssh[side.key];
    if (!isObject(peer)) continue;
    const software = text(peer.software_version);
    const protoVersion = text(peer.proto_version);
    if (software) fields[side.software] = software;
    if (protoVersion) fields[side.protoVersion] = protoVersion;
  }
}

/** "<user@example.com>" -> "user@example.com". */
function mailbox(value: unknown): string | undefined {
  const address = text(value)?.trim();
  if (!address) return undefined;
  return address.startsWith('<') && address.endsWith('>') ? address.slice(1, -1) || undefined : address;
}

function addSmtp(fields: EventFields, smtp: Json, email: unknown): void {
  const from = mailbox(smtp.mail_from);
  if (from) fields['email.from.address'] = from;
  const to = Array.isArray(smtp.rcpt_to) ? smtp.rcpt_to.map(mailbox).filter((a): a is string => a !== undefined) : [];
  if (to.length > 0) fields['email.to.address'] = to;
  const subject = isObject(email) ? text(email.subject) : undefined;
  if (subject) fields['email.subject'] = subject;
}

function addAnomaly(fields: EventFields, anomaly: Json): void {
  // e.g. "decoder.ipv4.trunc_pkt" or "applayer.detect_protocol_only_one_direction"
  const action = text(anomaly.event) ?? text(anomaly.type);
  if (action) fields['event.action'] = action;
}

// ---------------------------------------------------------------------------
// Reading the line

/**
 * Whether a parsed object is an EVE record, complete or not: the record type
 * with a time, or flow identity (flow_id, addresses, interface) with either.
 */
function claimsEve(record: Json): boolean {
  const hasType = 'event_type' in record;
  const hasTime = 'timestamp' in record;
  if ('flow_id' in record || 'src_ip' in record || 'dest_ip' in record || 'in_iface' in record) return hasType || hasTime;
  return hasType && hasTime;
}

/** The EVE record of `raw`, null when the line is some other JSON or none; throws when it is EVE but broken. */
function readRecord(raw: string): Json | null {
  const start = raw.trimStart();
  if (start.charCodeAt(0) !== 0x7b) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    if (raw.includes('"event_type"') || start.startsWith('{"timestamp"')) throw new Error(`broken EVE JSON: ${(err as Error).message}`);
    return null;
  }
  return isObject(value) && claimsEve(value) ? value : null;
}

export const suricataEve: FormatParser = {
  name: 'suricata-eve',
  detect: (raw) => raw.trimStart().charCodeAt(0) === 0x7b && raw.includes('"event_type"'),
  parse(raw) {
    const record = readRecord(raw);
    if (!record) return null;
    const eventType = text(record.event_type);
    if (!eventType) throw new Error('EVE record without an event_type');
    const timestamp = isoTime(record.timestamp);
    if (!timestamp) throw new Error(`EVE record with a bad timestamp: ${JSON.stringify(record.timestamp) ?? 'none'}`);

    const fields: EventFields = { '@timestamp': timestamp, 'event.module': 'suricata', 'event.dataset': 'suricata.eve', 'suricata.eve.event_type': eventType };
    addCategorisation(fields, eventType, record);
    addEndpoints(fields, record);
    if (isObject(record.alert)) addAlert(fields, record.alert);
    if (isObject(record.flow)) {
      addFlow(fields, record.flow);
      if (eventType === 'flow') addFlowState(fields, record.flow);
    }
    if (isObject(record.netflow)) addNetflow(fields, record.netflow);
    if (isObject(record.http)) addHttp(fields, record.http, eventType);
    if (isObject(record.tls)) addTls(fields, record.tls);
    if (isObject(record.dns)) addDns(fields, record.dns);
    if (isObject(record.fileinfo)) addFileinfo(fields, record.fileinfo);
    if (isObject(record.ssh)) addSsh(fields, record.ssh);
    if (isObject(record.smtp)) addSmtp(fields, record.smtp, record.email);
    if (isObject(record.anomaly)) addAnomaly(fields, record.anomaly);
    return fields;
  },
};
