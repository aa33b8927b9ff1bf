// Zeek dns.log written as JSON (one object per line) to flat ECS fields, as
// Filebeat's zeek module maps them: orig is the source, resp the destination.
import { canonicalIp } from '../ip.js';
import { count, isObject, text, type Json } from '../json-values.js';
import { isoString } from '../../../lib/iso-time.js';
import type { EventFields, FormatParser } from '../types.js';

/**
 * ISO time of Zeek's ts: epoch seconds with microseconds (the default), or
 * an ISO 8601 string (JSON::TS_ISO8601); milliseconds truncated.
 */
function zeekTime(ts: unknown): string | undefined {
  let ms = NaN;
  // Through whole microseconds first, so 1.001 s is not 1000.9999 ms.
  if (typeof ts === 'number') ms = Math.floor(Math.round(ts * 1e6) / 1000);
  else if (typeof ts === 'string') ms = Date.parse(ts);
  return Number.isFinite(ms) && ms > 0 ? isoString(ms) : undefined;
}

/** DNS classes by number (RFC 1035, 2136) as ECS dns.question.class writes them. */
const QUERY_CLASS: Record<number, string> = { 1: 'IN', 3: 'CH', 4: 'HS', 254: 'NONE', 255: 'ANY' };

const HEADER_FLAGS = ['AA', 'TC', 'RD', 'RA'] as const;

const SOURCE = { ip: 'source.ip', address: 'source.address', port: 'source.port' };
const DESTINATION = { ip: 'destination.ip', address: 'destination.address', port: 'destination.port' };

function setEndpoint(fields: EventFields, names: typeof SOURCE, host: unknown, port: unknown): void {
  if (typeof host === 'string' && host !== '') {
    const ip = canonicalIp(host);
    // Not an address after all: ECS keeps such a value in .address.
    if (ip) fields[names.ip] = ip;
    else fields[names.address] = host;
  }
  const number = count(port);
  if (number !== undefined) fields[names.port] = number;
}

function addQuestion(fields: EventFields, record: Json): void {
  const transactionId = count(record.trans_id);
  if (transactionId !== undefined) fields['dns.id'] = String(transactionId);
  const query = text(record.query);
  if (query) fields['dns.question.name'] = query;
  const qtype = text(record.qtype_name);
  if (qtype) fields['dns.question.type'] = qtype;
  const qclass = count(record.qclass);
  const qclassName = (qclass !== undefined ? QUERY_CLASS[qclass] : undefined) ?? text(record.qclass_name);
  if (qclassName) fields['dns.question.class'] = qclassName;
}

/** answers and TTLs are parallel lists; answers that are addresses are what the name resolved to. */
function addAnswers(fields: EventFields, answers: unknown, ttls: unknown): void {
  if (!Array.isArray(answers) || answers.length === 0) return;
  const data = answers.filter((a): a is string => typeof a === 'string');
  if (data.length === 0) return;
  fields['dns.answers.data'] = data;
  const ttl = Array.isArray(ttls) ? ttls.filter((t): t is number => typeof t === 'number') : [];
  if (ttl.length === data.length && data.length === answers.length) fields['dns.answers.ttl'] = ttl;
  const ips: string[] = [];
  for (const answer of data) {
    const ip = canonicalIp(answer);
    if (ip && !ips.includes(ip)) ips.push(ip);
  }
  if (ips.length > 0) fields['dns.resolved_ip'] = ips;
}

/** A reply was seen when Zeek logged its response code. */
function addResponse(fields: EventFields, record: Json): void {
  const rcodeName = text(record.rcode_name);
  fields['dns.type'] = rcodeName ? 'answer' : 'query';
  if (rcodeName) fields['dns.response_code'] = rcodeName;
  const rcode = count(record.rcode);
  if (rcode !== undefined) fields['event.outcome'] = rcode === 0 ? 'success' : 'failure';
  const flags = HEADER_FLAGS.filter((flag) => record[flag] === true);
  if (flags.length > 0) fields['dns.header_flags'] = flags;
  const rtt = count(record.rtt);
  // event.duration is in nanoseconds (ECS); rtt in seconds.
  if (rtt !== undefined) fields['event.duration'] = Math.round(rtt * 1e9);
  addAnswers(fields, record.answers, record.TTLs);
  // Zeek's own verdicts have no ECS field; detection content (Sigma) asks for them.
  if (typeof record.rejected === 'boolean') fields['zeek.dns.rejected'] = record.rejected;
  const z = count(record.Z);
  if (z !== undefined) fields['zeek.dns.Z'] = z;
}

/** The dns.log record of `raw`; null for other JSON (conn.log, ...); throws for a dns.log line that is broken. */
function readRecord(raw: string): Json | null {
  // Cheap rejection before JSON.parse: every Zeek connection log names the originator.
  if (raw.trimStart().charCodeAt(0) !== 0x7b || !raw.includes('"id.orig_h"')) return null;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (err) {
    if (raw.includes('"query"') || raw.includes('"trans_id"')) throw new Error(`broken Zeek dns.log JSON: ${(err as Error).message}`);
    return null;
  }
  if (!isObject(value)) return null;
  return 'query' in value || 'trans_id' in value || 'qtype_name' in value ? value : null;
}

export const zeekDns: FormatParser = {
  name: 'zeek-dns',
  detect: (raw) => raw.trimStart().charCodeAt(0) === 0x7b && raw.includes('"id.orig_h"') && raw.includes('"query"'),
  parse(raw) {
    const record = readRecord(raw);
    if (!record) return null;
    const timestamp = zeekTime(record.ts);
    if (!timestamp) throw new Error(`Zeek dns.log record with a bad ts: ${JSON.stringify(record.ts) ?? 'none'}`);
    const fields: EventFields = {
      '@timestamp': timestamp,
      'event.kind': 'event',
      'event.category': ['network'],
      'event.type': ['connection', 'info', 'protocol'],
      'event.module': 'zeek',
      'event.dataset': 'zeek.dns',
      'network.protocol': 'dns',
    };
    setEndpoint(fields, SOURCE, record['id.orig_h'], record['id.orig_p']);
    setEndpoint(fields, DESTINATION, record['id.resp_h'], record['id.resp_p']);
    const proto = text(record.proto);
    if (proto) fields['network.transport'] = proto.toLowerCase();
    const uid = text(record.uid);
    // uid names the connection, shared by every log line about it (conn.log, dns.log...).
    if (uid) fields['zeek.session_id'] = uid;
    addQuestion(fields, record);
    addResponse(fields, record);
    return fields;
  },
};
