// Zeek dns.log to ECS, as Elastic's zeek package maps it: the question, the
// response code and header flags, the answers and the addresses among them.
import { canonicalIp } from '../ip.js';
import { count, text, type Json } from '../json-values.js';
import type { EventFields } from '../types.js';
import { nanoseconds } from './shared.js';
import type { ZeekLog } from './log.js';

/** DNS classes by number (RFC 1035, 2136) as ECS dns.question.class writes them. */
const QUERY_CLASS: Record<number, string> = { 1: 'IN', 3: 'CH', 4: 'HS', 254: 'NONE', 255: 'ANY' };

const HEADER_FLAGS = ['AA', 'TC', 'RD', 'RA'] as const;

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
  const rtt = nanoseconds(record.rtt);
  if (rtt !== undefined) fields['event.duration'] = rtt;
  addAnswers(fields, record.answers, record.TTLs);
}

export const dnsLog: ZeekLog = {
  dataset: 'dns',
  mapped: new Set(['trans_id', 'query', 'qtype_name', 'rcode_name', 'answers']),
  map(fields, record) {
    fields['event.category'] = ['network'];
    fields['event.type'] = ['connection', 'info', 'protocol'];
    fields['network.protocol'] = 'dns';
    addQuestion(fields, record);
    addResponse(fields, record);
  },
};
