// Zeek dns.log (JSON) through the Zeek parser, field by field, on hand-written fixture lines
// (answered, unanswered, failed, IPv6, ISO ts, then malformed ones).
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRaw } from '../registry.js';
import type { EventFields, ParseContext } from '../types.js';
import { zeek as zeekDns } from './index.js';

const FIXTURE = new URL('../../../test/fixtures/parser/zeek-dns.log', import.meta.url);
const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l !== '');
const CTX: ParseContext = { source: 'zeek', receivedAt: Date.UTC(2025, 5, 1) };

/** Fixture lines by what they hold, in file order. */
const LINE = {
  answeredThroughCname: 0,
  unansweredMdns: 1,
  nxdomain: 2,
  aaaaOverTcp: 3,
  refusedChaosIsoTs: 4,
  truncated: 5,
  badTs: 6,
  connLog: 7,
  otherJsonWithQuery: 8,
} as const;
const VALID_LINES = 5;

function line(name: keyof typeof LINE): string {
  const text = lines[LINE[name]];
  if (text === undefined) throw new Error(`fixture has no line ${LINE[name]}`);
  return text;
}

function parse(name: keyof typeof LINE): EventFields {
  const fields = zeekDns.parse(line(name), CTX);
  if (!fields) throw new Error(`fixture line ${name} was not recognised`);
  return fields;
}

describe('zeek dns.log fixture', () => {
  it('holds the lines the tests name', () => {
    expect(lines).toHaveLength(Object.keys(LINE).length);
  });
});

describe('zeek dns.log detect', () => {
  it('recognises JSON with a ts and a Zeek id', () => {
    expect(zeekDns.detect(line('answeredThroughCname'))).toBe(true);
    expect(zeekDns.detect(line('connLog'))).toBe(true);
  });

  it('passes over other JSON and text', () => {
    expect(zeekDns.detect(line('otherJsonWithQuery'))).toBe(false);
    expect(zeekDns.detect('Nov 23 11:00:01 host sshd[1]: Accepted password for bob')).toBe(false);
  });
});

describe('zeek dns.log records', () => {
  it('maps an answered query: endpoints, question, response, answers and resolved addresses', () => {
    expect(parse('answeredThroughCname')).toEqual({
      '@timestamp': '2023-11-14T22:13:20.123Z',
      'event.kind': 'event',
      'event.category': ['network'],
      'event.type': ['connection', 'info', 'protocol'],
      'event.module': 'zeek',
      'event.dataset': 'zeek.dns',
      'event.outcome': 'success',
      'event.duration': 21_500_000,
      'source.ip': '192.0.2.23',
      'source.port': 51000,
      'destination.ip': '198.51.100.53',
      'destination.port': 53,
      'network.transport': 'udp',
      'network.protocol': 'dns',
      'zeek.session_id': 'CzX4Lq3vFh2kYpT9a1',
      'event.id': 'CzX4Lq3vFh2kYpT9a1',
      'dns.id': '31337',
      'dns.type': 'answer',
      'dns.question.name': 'www.example.com',
      'dns.question.type': 'A',
      'dns.question.class': 'IN',
      'dns.response_code': 'NOERROR',
      'dns.header_flags': ['RD', 'RA'],
      'dns.answers.data': ['edge.example.net', '203.0.113.80', '203.0.113.81'],
      'dns.answers.ttl': [300, 30, 30],
      'dns.resolved_ip': ['203.0.113.80', '203.0.113.81'],
      // Zeek's values the mapping changed (codes, flags, seconds) are kept as Zeek wrote them too, and its own verdicts.
      'zeek.dns.rtt': 0.0215,
      'zeek.dns.qclass': 1,
      'zeek.dns.qclass_name': 'C_INTERNET',
      'zeek.dns.qtype': 1,
      'zeek.dns.rcode': 0,
      'zeek.dns.AA': false,
      'zeek.dns.TC': false,
      'zeek.dns.RD': true,
      'zeek.dns.RA': true,
      'zeek.dns.TTLs': [300, 30, 30],
      'zeek.dns.rejected': false,
      'zeek.dns.Z': 0,
    });
  });

  it('calls a query without a logged response code a query, with no outcome', () => {
    const fields = parse('unansweredMdns');
    expect(fields).toMatchObject({
      '@timestamp': '2023-11-14T22:13:21.500Z',
      'source.ip': 'fe80::4ef:15cf:769f:ff21',
      'destination.ip': 'ff02::fb',
      'dns.type': 'query',
      'dns.id': '0',
      'dns.question.name': '_ipp._tcp.local',
      'dns.question.type': 'PTR',
    });
    for (const absent of ['event.outcome', 'dns.response_code', 'dns.header_flags', 'dns.answers.data', 'dns.resolved_ip', 'event.duration']) {
      expect(fields).not.toHaveProperty([absent]);
    }
  });

  it('marks NXDOMAIN a failure', () => {
    const fields = parse('nxdomain');
    expect(fields).toMatchObject({ 'dns.type': 'answer', 'dns.response_code': 'NXDOMAIN', 'event.outcome': 'failure', 'event.duration': 100_000_000 });
    expect(fields).not.toHaveProperty(['dns.resolved_ip']);
  });

  it('writes IPv6 endpoints and answers canonically and reads header flags', () => {
    expect(parse('aaaaOverTcp')).toMatchObject({
      '@timestamp': '2023-11-14T22:13:23.999Z',
      'source.ip': '2001:db8::17',
      'destination.ip': '2001:db8::35',
      'network.transport': 'tcp',
      'dns.header_flags': ['AA', 'TC', 'RD'],
      'dns.answers.data': ['2001:0db8:0001:0000:0000:0000:0000:0001'],
      'dns.resolved_ip': ['2001:db8:1::1'],
    });
  });

  it('reads an ISO 8601 ts and names the CHAOS class', () => {
    expect(parse('refusedChaosIsoTs')).toMatchObject({
      '@timestamp': '2023-11-14T22:13:24.250Z',
      'dns.question.class': 'CH',
      'dns.question.type': 'TXT',
      'dns.response_code': 'REFUSED',
      'event.outcome': 'failure',
    });
  });
});

describe('zeek dns.log malformed lines', () => {
  it('throws for a truncated dns.log line', () => {
    expect(() => zeekDns.parse(line('truncated'), CTX)).toThrow(/broken Zeek JSON/);
  });

  it('throws for a ts that is no time', () => {
    expect(() => zeekDns.parse(line('badTs'), CTX)).toThrow('Zeek dns record with a bad ts: "yesterday"');
  });

  it('reads conn.log as conn.log, and returns null for other JSON and text', () => {
    expect(zeekDns.parse(line('connLog'), CTX)).toMatchObject({ 'event.dataset': 'zeek.connection' });
    expect(zeekDns.parse(line('otherJsonWithQuery'), CTX)).toBeNull();
    expect(zeekDns.parse('#fields\tts\tuid\tid.orig_h', CTX)).toBeNull();
  });
});

describe('zeek dns.log conventions', () => {
  it('writes every valid fixture line in the parser conventions', () => {
    for (const text of lines.slice(0, VALID_LINES)) {
      const fields = zeekDns.parse(text, CTX);
      expect(fields).not.toBeNull();
      for (const [name, value] of Object.entries(fields ?? {})) {
        expect(value, name).not.toBe('');
        if (name.endsWith('.port')) expect(typeof value, name).toBe('number');
      }
      expect(fields?.['@timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
  });

  it('is chosen for the dns and zeek sources and by content, leaving Suricata DNS to the EVE parser', () => {
    expect(parseRaw(line('nxdomain'), { ...CTX, source: 'dns' }).parser).toBe('zeek');
    expect(parseRaw(line('nxdomain'), CTX).parser).toBe('zeek');
    expect(parseRaw(line('nxdomain'), { ...CTX, source: 'resolver-7' }).parser).toBe('zeek');
    const suricataDns = '{"timestamp":"2019-10-01T12:00:00.123456+0200","flow_id":7,"event_type":"dns","src_ip":"192.0.2.23","src_port":40000,"dest_ip":"198.51.100.53","dest_port":53,"proto":"UDP","dns":{"type":"query","id":1,"rrname":"www.example.com","rrtype":"A"}}';
    expect(parseRaw(suricataDns, { ...CTX, source: 'dns' }).parser).toBe('suricata-eve');
  });
});
