// Suricata EVE parser, field by field, on hand-written fixture lines (one per
// event type and DNS layout, then malformed ones) in test/fixtures/parser.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalIp } from '../ip.js';
import { parseRaw } from '../registry.js';
import type { EventFields, ParseContext } from '../types.js';
import { suricataEve } from './suricata-eve.js';

const FIXTURE = new URL('../../../test/fixtures/parser/suricata-eve.log', import.meta.url);
const lines = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l !== '');
const CTX: ParseContext = { source: 'suricata', receivedAt: Date.UTC(2025, 5, 1) };

/** Fixture lines by what they hold, in file order. */
const LINE = {
  alertOnHttp: 0,
  blockedAlertOnTls: 1,
  alertOnDnsRequestV7: 2,
  alertOnDnsResponseV3: 3,
  dnsV1Query: 4,
  dnsV1AnswerA: 5,
  dnsV1AnswerCname: 6,
  dnsV1Failure: 7,
  dnsV2Answers: 8,
  dnsV2GroupedAaaa: 9,
  dnsV3Request: 10,
  dnsV3ServfailResponse: 11,
  flowClosed: 12,
  flowNewIpv6: 13,
  netflow: 14,
  httpThroughProxy: 15,
  tlsCertificate: 16,
  ssh: 17,
  fileinfo: 18,
  smtp: 19,
  anomaly: 20,
  stats: 21,
  drop: 22,
  unknownTypeWithAppProto: 23,
  truncated: 24,
  missingEventType: 25,
  impossibleDate: 26,
  otherJson: 27,
  eventTypeOnly: 28,
} as const;
const VALID_LINES = 24;

function line(name: keyof typeof LINE): string {
  const text = lines[LINE[name]];
  if (text === undefined) throw new Error(`fixture has no line ${LINE[name]}`);
  return text;
}

function parse(name: keyof typeof LINE): EventFields {
  const fields = suricataEve.parse(line(name), CTX);
  if (!fields) throw new Error(`fixture line ${name} was not recognised`);
  return fields;
}

describe('suricata-eve fixture', () => {
  it('holds the lines the tests name', () => {
    expect(lines).toHaveLength(Object.keys(LINE).length);
  });
});

describe('suricata-eve detect', () => {
  it('recognises a JSON object line with an event_type key', () => {
    expect(suricataEve.detect(line('dnsV1Query'))).toBe(true);
    expect(suricataEve.detect(`  ${line('stats')}`)).toBe(true);
  });

  it('passes over syslog text and JSON without event_type', () => {
    expect(suricataEve.detect('Jun  1 10:00:00 host sshd[1]: Accepted password for bob')).toBe(false);
    expect(suricataEve.detect(line('otherJson'))).toBe(false);
  });
});

describe('suricata-eve timestamps', () => {
  it('moves the zone offset to UTC and truncates microseconds to milliseconds', () => {
    expect(parse('alertOnHttp')['@timestamp']).toBe('2023-03-14T08:26:53.589Z');
    expect(parse('alertOnDnsResponseV3')['@timestamp']).toBe('2025-01-20T08:00:01.999Z');
  });

  it('rolls a negative offset over midnight, month end and leap day', () => {
    expect(parse('dnsV2Answers')['@timestamp']).toBe('2020-03-01T04:59:59.999Z');
  });

  it('pads a short fraction and accepts a time without one', () => {
    expect(parse('httpThroughProxy')['@timestamp']).toBe('2021-06-01T06:30:00.500Z');
    expect(parse('dnsV2GroupedAaaa')['@timestamp']).toBe('2020-03-01T00:00:00.000Z');
  });

});

describe('suricata-eve alerts', () => {
  it('maps an alert on HTTP to rule, severity, allowed action, HTTP and flow fields', () => {
    const fields = parse('alertOnHttp');
    expect(fields).toMatchObject({
      'event.kind': 'alert',
      'event.category': ['network', 'intrusion_detection'],
      'event.type': ['allowed'],
      'event.severity': 2,
      'rule.id': '2019401',
      'rule.name': 'ET POLICY Suspicious User-Agent (python-requests)',
      'rule.category': 'Potentially Bad Traffic',
      'rule.version': '7',
      'source.ip': '192.0.2.10',
      'source.port': 49822,
      'destination.ip': '198.51.100.7',
      'destination.port': 80,
      'network.transport': 'tcp',
      'network.protocol': 'http',
      'network.community_id': '1:LQU9qZlK+B5F3KDmev6m5PMibrg=',
      'observer.hostname': 'sensor-1',
      'observer.ingress.interface.name': 'eth0',
      'suricata.eve.flow_id': '1234567890123456',
      'url.original': '/check?v=2',
      'url.path': '/check',
      'url.query': 'v=2',
      'url.domain': 'updates.example.com',
      'destination.domain': 'updates.example.com',
      'http.request.method': 'GET',
      'http.response.status_code': 200,
      'user_agent.original': 'python-requests/2.31.0',
      'source.packets': 5,
      'destination.packets': 4,
      'network.packets': 9,
      'source.bytes': 612,
      'destination.bytes': 1180,
      'network.bytes': 1792,
      'event.start': '2023-03-14T08:26:53.402Z',
    });
    // Whether the HTTP exchange succeeded is the http record's to say, not the alert's.
    expect(fields).not.toHaveProperty(['event.outcome']);
    expect(fields).not.toHaveProperty(['event.end']);
  });

  it('calls a blocked alert denied and takes the destination domain from the TLS SNI', () => {
    expect(parse('blockedAlertOnTls')).toMatchObject({
      'event.kind': 'alert',
      'event.type': ['denied'],
      'event.severity': 3,
      'network.protocol': 'tls',
      'tls.version': '1.3',
      'tls.version_protocol': 'tls',
      'tls.client.server_name': 'doh.example.net',
      'destination.domain': 'doh.example.net',
    });
  });

  it('reads the question of an alert on a DNS request nested the Suricata 7 way', () => {
    const fields = parse('alertOnDnsRequestV7');
    expect(fields).toMatchObject({ 'event.kind': 'alert', 'dns.type': 'query', 'dns.id': '40213', 'dns.question.name': 'paste.example.to', 'dns.question.type': 'A' });
    expect(fields).not.toHaveProperty(['dns.response_code']);
  });

  it('reads question and answers of an alert on a DNS response in the v3 layout', () => {
    expect(parse('alertOnDnsResponseV3')).toMatchObject({
      'dns.type': 'answer',
      'dns.question.name': 'bad.example.org',
      'dns.question.type': 'A',
      'dns.response_code': 'NOERROR',
      'dns.resolved_ip': ['203.0.113.66'],
      'dns.answers.data': ['203.0.113.66'],
    });
  });
});

describe('suricata-eve dns', () => {
  it('maps a v1 query to the question', () => {
    const fields = parse('dnsV1Query');
    expect(fields).toMatchObject({
      'event.kind': 'event',
      'event.category': ['network'],
      'event.type': ['protocol'],
      'network.protocol': 'dns',
      'network.transport': 'udp',
      'dns.type': 'query',
      'dns.id': '1111',
      'dns.question.name': 'www.example.com',
      'dns.question.type': 'A',
    });
    expect(fields).not.toHaveProperty(['dns.resolved_ip']);
  });

  it('resolves the address of a v1 A answer without claiming its owner name is the question', () => {
    const fields = parse('dnsV1AnswerA');
    expect(fields).toMatchObject({
      'dns.type': 'answer',
      'dns.response_code': 'NOERROR',
      'dns.header_flags': ['RD', 'RA'],
      'dns.resolved_ip': ['203.0.113.80'],
      'dns.answers.name': ['edge.example.net'],
      'dns.answers.type': ['A'],
      'dns.answers.ttl': [30],
      'dns.answers.data': ['203.0.113.80'],
    });
    expect(fields).not.toHaveProperty(['dns.question.name']);
  });

  it('resolves no address from a v1 CNAME answer', () => {
    const fields = parse('dnsV1AnswerCname');
    expect(fields['dns.answers.data']).toEqual(['edge.example.net']);
    expect(fields).not.toHaveProperty(['dns.resolved_ip']);
  });

  it('takes the question from a v1 failure answer, which echoes the query', () => {
    const fields = parse('dnsV1Failure');
    expect(fields).toMatchObject({ 'dns.type': 'answer', 'dns.response_code': 'NXDOMAIN', 'dns.question.name': 'qzxv.example.invalid' });
    expect(fields).not.toHaveProperty(['dns.answers.data']);
  });

  it('lists every v2 answer in aligned arrays and resolves the A records behind a CNAME', () => {
    expect(parse('dnsV2Answers')).toMatchObject({
      'dns.question.name': 'cdn.example.com',
      'dns.question.type': 'A',
      'dns.answers.name': ['cdn.example.com', 'cdn.example.net', 'cdn.example.net'],
      'dns.answers.type': ['CNAME', 'A', 'A'],
      'dns.answers.ttl': [120, 20, 20],
      'dns.answers.data': ['cdn.example.net', '203.0.113.10', '203.0.113.11'],
      'dns.resolved_ip': ['203.0.113.10', '203.0.113.11'],
    });
  });

  it('resolves from the grouped layout and writes IPv6 addresses canonically', () => {
    const fields = parse('dnsV2GroupedAaaa');
    expect(fields).toMatchObject({
      'source.ip': '2001:db8::35',
      'destination.ip': '2001:db8::17',
      'dns.header_flags': ['AA', 'RD', 'RA'],
      'dns.answers.type': ['AAAA'],
      'dns.resolved_ip': ['2001:db8:1::1'],
    });
    // The grouped layout has no names or TTLs: those arrays stay out rather than misalign.
    expect(fields).not.toHaveProperty(['dns.answers.name']);
    expect(fields).not.toHaveProperty(['dns.answers.ttl']);
  });

  it('resolves an A record missing its TTL but lists only complete records in dns.answers', () => {
    const answers = [
      { rrname: 'a.example.com', rrtype: 'A', rdata: '192.0.2.7' },
      { rrname: 'example.com', rrtype: 'SOA', ttl: 60, soa: { mname: 'ns1.example.com' } },
      { rrname: 'a.example.com', rrtype: 'A', ttl: 5, rdata: '192.0.2.8' },
    ];
    const raw = JSON.stringify({ timestamp: '2024-05-05T05:05:05.000000+0000', event_type: 'dns', src_ip: '198.51.100.53', dest_ip: '192.0.2.23', dns: { version: 2, type: 'answer', id: 1, rcode: 'NOERROR', rrname: 'a.example.com', rrtype: 'A', answers } });
    expect(suricataEve.parse(raw, CTX)).toMatchObject({
      'dns.resolved_ip': ['192.0.2.7', '192.0.2.8'],
      'dns.answers.name': ['a.example.com'],
      'dns.answers.ttl': [5],
      'dns.answers.data': ['192.0.2.8'],
    });
  });

  it('calls a v3 request a query and a v3 response an answer', () => {
    expect(parse('dnsV3Request')).toMatchObject({ 'dns.type': 'query', 'dns.question.name': 'bad.example.org', 'dns.id': '4711' });
    const response = parse('dnsV3ServfailResponse');
    expect(response).toMatchObject({ 'dns.type': 'answer', 'dns.response_code': 'SERVFAIL', 'dns.question.name': 'broken.example.org', 'dns.question.type': 'MX' });
    expect(response).not.toHaveProperty(['dns.resolved_ip']);
  });
});

describe('suricata-eve flows', () => {
  it('maps a closed flow to a connection end with counters, span and duration', () => {
    expect(parse('flowClosed')).toMatchObject({
      'event.type': ['connection', 'end'],
      'network.protocol': 'http',
      'network.packets': 11,
      'network.bytes': 1924,
      'source.bytes': 678,
      'destination.bytes': 1246,
      'event.start': '2023-03-14T08:26:53.402Z',
      'event.end': '2023-03-14T08:26:54.902Z',
      'event.duration': 1_500_000_000,
    });
  });

  it('maps a new flow to a connection start, with no protocol when detection failed', () => {
    const fields = parse('flowNewIpv6');
    expect(fields).toMatchObject({
      '@timestamp': '2018-07-05T19:51:54.001Z',
      'event.type': ['connection', 'start'],
      'source.ip': 'fe80::202:b3ff:fe1e:8329',
      'destination.ip': 'ff02::1:2',
      'network.transport': 'udp',
      'network.bytes': 110,
      'network.packets': 1,
      'event.duration': 0,
    });
    expect(fields).not.toHaveProperty(['network.protocol']);
  });

  it('counts a netflow record as traffic sent by its source only', () => {
    const fields = parse('netflow');
    expect(fields).toMatchObject({
      'event.type': ['connection'],
      'source.packets': 4,
      'source.bytes': 1180,
      'network.packets': 4,
      'network.bytes': 1180,
      'event.duration': 1_000_000_000,
    });
    expect(fields).not.toHaveProperty(['destination.bytes']);
  });
});

describe('suricata-eve application records', () => {
  it('splits a proxy request URL and marks a 4xx response a failure', () => {
    expect(parse('httpThroughProxy')).toMatchObject({
      'event.category': ['network', 'web'],
      'event.type': ['access', 'protocol'],
      'event.outcome': 'failure',
      'url.original': 'http://portal.example.com:8080/login.php?user=admin#top',
      'url.scheme': 'http',
      'url.domain': 'portal.example.com',
      'url.path': '/login.php',
      'url.query': 'user=admin',
      'url.fragment': 'top',
      'destination.domain': 'portal.example.com',
      'http.request.method': 'POST',
      'http.request.referrer': 'http://portal.example.com:8080/',
      'http.response.status_code': 404,
      'http.response.body.bytes': 0,
      'http.version': '1.0',
      'user_agent.original': 'Mozilla/5.0 (X11; Linux x86_64; rv:109.0) Gecko/20100101 Firefox/115.0',
    });
  });

  it('maps the server certificate, JA3 hashes and an SNI without its root dot', () => {
    expect(parse('tlsCertificate')).toMatchObject({
      'event.type': ['protocol'],
      'network.protocol': 'tls',
      'tls.version_protocol': 'tls',
      'tls.version': '1.2',
      'tls.client.server_name': 'shop.example.com',
      'destination.domain': 'shop.example.com',
      'tls.server.subject': 'C=US, O=Example Corp, CN=shop.example.com',
      'tls.server.issuer': 'C=US, O=Example CA, CN=Example Issuing CA 1',
      'tls.server.hash.sha1': 'AABBCCDDEEFF00112233445566778899AABBCCDD',
      'tls.server.x509.serial_number': '0A1B2C3D4E5F',
      'tls.server.not_before': '2024-01-01T00:00:00.000Z',
      'tls.server.not_after': '2025-01-31T23:59:59.000Z',
      'tls.client.ja3': 'e7d705a3286e19ea42f587b344ee6865',
      'tls.server.ja3s': '15af977ce25de452b96affa2addb1036',
    });
  });

  it('keeps the SSH client and server software', () => {
    expect(parse('ssh')).toMatchObject({
      'network.protocol': 'ssh',
      'suricata.eve.ssh.client.software_version': 'libssh2_1.10.0',
      'suricata.eve.ssh.server.software_version': 'OpenSSH_9.3p1',
      'suricata.eve.ssh.server.proto_version': '2.0',
    });
  });

  it('maps a file seen in HTTP to name, path, size and hashes', () => {
    const fields = parse('fileinfo');
    expect(fields).toMatchObject({
      'event.category': ['network'],
      'event.type': ['info'],
      'file.name': 'agent-2.4.1.tar.gz',
      'file.path': '/files/agent-2.4.1.tar.gz',
      'file.size': 48213,
      'file.hash.md5': '9e107d9d372bb6826bd81d3542a419d6',
      'file.hash.sha256': 'd7a8fbb307d7809469ca9abcb0082e4f8d5651e46d3cdb762d02d0bf37c9e592',
      'url.domain': 'updates.example.com',
      'source.ip': '198.51.100.7',
    });
    expect(fields).not.toHaveProperty(['event.outcome']);
  });

  it('maps SMTP envelope addresses without angle brackets, and the subject', () => {
    expect(parse('smtp')).toMatchObject({
      'network.protocol': 'smtp',
      'email.from.address': 'billing@example.net',
      'email.to.address': ['alice@example.com', 'bob@example.com'],
      'email.subject': 'Invoice 4471 overdue',
    });
  });

  it('names the anomaly as the event action', () => {
    expect(parse('anomaly')).toMatchObject({ 'event.type': ['info'], 'event.action': 'decoder.ipv4.trunc_pkt', 'source.port': 0 });
  });

  it('reports engine statistics as a metric with no network fields', () => {
    const fields = parse('stats');
    expect(fields).toEqual({
      '@timestamp': '2023-07-07T07:07:08.000Z',
      'event.kind': 'metric',
      'event.module': 'suricata',
      'event.dataset': 'suricata.eve',
      'suricata.eve.event_type': 'stats',
    });
  });

  it('maps an IPS drop to a denied connection', () => {
    expect(parse('drop')).toMatchObject({ 'event.type': ['connection', 'denied'], 'source.ip': '203.0.113.9', 'destination.port': 8080 });
  });

  it('treats an unknown event type that names a protocol as a protocol record', () => {
    expect(parse('unknownTypeWithAppProto')).toMatchObject({ 'event.kind': 'event', 'event.category': ['network'], 'event.type': ['protocol'], 'network.protocol': 'tls' });
  });

  it('treats an unknown event type without a protocol as information, whatever its name', () => {
    for (const eventType of ['constructor', '__proto__', 'toString', 'dcerpc_udp_new']) {
      const fields = suricataEve.parse(JSON.stringify({ timestamp: '2024-02-02T02:02:02+0000', event_type: eventType, src_ip: '192.0.2.1' }), CTX);
      expect(fields, eventType).toMatchObject({ 'event.kind': 'event', 'event.category': ['network'], 'event.type': ['info'], 'suricata.eve.event_type': eventType });
    }
  });
});

describe('suricata-eve malformed lines', () => {
  it('throws for a truncated EVE line', () => {
    expect(() => suricataEve.parse(line('truncated'), CTX)).toThrow(/broken EVE JSON/);
  });

  it('throws for an EVE record without event_type', () => {
    expect(() => suricataEve.parse(line('missingEventType'), CTX)).toThrow('EVE record without an event_type');
  });

  it('throws for a timestamp on a day that does not exist', () => {
    expect(() => suricataEve.parse(line('impossibleDate'), CTX)).toThrow(/bad timestamp: "2023-02-30T09:26:53.589793\+0100"/);
  });

  it('returns null for JSON that is not EVE and for text', () => {
    expect(suricataEve.parse(line('otherJson'), CTX)).toBeNull();
    expect(suricataEve.parse(line('eventTypeOnly'), CTX)).toBeNull();
    expect(suricataEve.parse('[1, 2, 3]', CTX)).toBeNull();
    expect(suricataEve.parse('{not json at all', CTX)).toBeNull();
    expect(suricataEve.parse('<13>Jun  1 10:00:00 host app: hi', CTX)).toBeNull();
  });
});

describe('suricata-eve conventions', () => {
  it('writes addresses as canonicalIp does, and what is no address in .address', () => {
    for (const text of lines.slice(0, VALID_LINES)) {
      const record = JSON.parse(text) as Record<string, unknown>;
      const fields = suricataEve.parse(text, CTX) ?? {};
      for (const [key, side] of [['src_ip', 'source'], ['dest_ip', 'destination']] as const) {
        const value = record[key];
        if (typeof value !== 'string' || value === '') continue;
        const ip = canonicalIp(value);
        expect(fields[`${side}.ip`], `${side} of ${text}`).toBe(ip ?? undefined);
        expect(fields[`${side}.address`], `${side} of ${text}`).toBe(ip ? undefined : value);
      }
    }
  });

  it('writes every valid fixture line in the parser conventions', () => {
    for (const text of lines.slice(0, VALID_LINES)) {
      const fields = suricataEve.parse(text, CTX);
      expect(fields).not.toBeNull();
      for (const [name, value] of Object.entries(fields ?? {})) {
        expect(value, name).not.toBe('');
        expect(value, name).not.toBeNull();
        if (name.endsWith('.port') || name.endsWith('.bytes') || name.endsWith('.packets')) expect(typeof value, name).toBe('number');
        if (name === 'event.category' || name === 'event.type') expect(Array.isArray(value), name).toBe(true);
      }
      expect(fields?.['@timestamp']).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      if (fields?.['network.transport'] !== undefined) expect(fields['network.transport']).toBe(String(fields['network.transport']).toLowerCase());
    }
  });

  it('is chosen for the suricata source and, by content, for an unknown one', () => {
    expect(parseRaw(line('dnsV1Query'), CTX).parser).toBe('suricata-eve');
    expect(parseRaw(line('alertOnHttp'), { ...CTX, source: 'sensor-42' }).parser).toBe('suricata-eve');
  });
});
