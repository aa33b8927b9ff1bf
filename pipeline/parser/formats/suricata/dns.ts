// DNS queries and answers. Layouts: v1 (one record per query or answer RR:
// type "query" or "answer", rrname, rrtype, rdata), v2 (version 2 answers:
// rrname/rrtype of the question, "answers" and/or "grouped"), v3 (Suricata 8:
// type "request" or "response", "queries" and "answers" arrays). Alerts of
// Suricata 7 nest the v1 query under dns.query[] and the v2 answer under dns.answer.
import { canonicalIp } from '../../ip.js';
import { count, isObject, text, type Json } from '../../json-values.js';
import type { EventFields } from '../../types.js';

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
    const ip = canonicalIp(answer.data);
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

export function addDns(fields: EventFields, wrapped: Json): void {
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
