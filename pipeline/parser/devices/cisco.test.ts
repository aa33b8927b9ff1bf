// Cisco devices through parseRaw, for what a test line in cisco.yaml cannot say well:
// the ASA / FTD message families one fixture line each (test/fixtures/parser/cisco-asa.log),
// the header variants the devices write, lines without any header, and hostile input.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseRaw } from '../registry.js';
import { deviceCatalogue } from './index.js';
import type { EventFields, ParseContext } from '../types.js';

const FIXTURE = fs.readFileSync(new URL('../../../test/fixtures/parser/cisco-asa.log', import.meta.url), 'utf8').split('\n').filter(Boolean);
const CTX: ParseContext = { source: 'asa', receivedAt: Date.UTC(2024, 5, 1) };

/** The one fixture line containing `text`. */
function line(text: string): string {
  const found = FIXTURE.filter((l) => l.includes(text));
  if (found.length !== 1) throw new Error(`${found.length} fixture lines contain "${text}"`);
  return found[0]!;
}

function parse(raw: string, ctx: ParseContext = CTX): EventFields {
  const { fields } = parseRaw(raw, ctx);
  expect(fields['cairn.decoder'], raw).toMatch(/^cisco\//);
  return fields;
}

const DENIED = { 'event.category': ['network'], 'event.type': ['connection', 'denied'], 'event.outcome': 'failure', 'event.action': 'firewall-rule' };

describe('Cisco ASA: header and message tag', () => {
  it('reads "Mmm dd yyyy hh:mm:ss host :" headers, the tag and the observer', () => {
    const raw = line('%ASA-2-106001');
    expect(parse(raw)).toMatchObject({
      '@timestamp': '2024-03-12T08:15:01.000Z',
      'host.hostname': 'fw-edge-01',
      'observer.hostname': 'fw-edge-01',
      'observer.vendor': 'Cisco',
      'observer.product': 'asa',
      'observer.type': 'firewall',
      'event.kind': 'event',
      'event.code': '106001',
      'cisco.asa.message_id': '106001',
      'event.severity': 2,
      'log.level': 'critical',
      message: raw.slice(raw.indexOf('Inbound TCP')),
    });
  });

  it('reads an FTD line with an RFC 3339 time', () => {
    expect(parse(line('%FTD-6-302014'))).toMatchObject({
      '@timestamp': '2024-03-12T08:20:00.000Z',
      'host.hostname': 'fw-ftd-02',
      'observer.product': 'ftd',
      'event.code': '302014',
      'event.reason': 'TCP Reset-O',
    });
  });

  it('reads a header without a host whose time ends in a colon', () => {
    const fields = parse(line('08:21:00: %ASA'));
    expect(fields['@timestamp']).toBe('2024-03-12T08:21:00.000Z');
    expect(fields).not.toHaveProperty('host.hostname');
    expect(fields['event.code']).toBe('106023');
  });

  it('applies a zone abbreviation after the time instead of taking it for a host, and reads "%ASA-session-5-"', () => {
    const fields = parse(line('EDT: %ASA-session-5-106100'));
    expect(fields['@timestamp']).toBe('2024-03-12T12:22:00.000Z');
    expect(fields).not.toHaveProperty('host.hostname');
    expect(fields).toMatchObject({ 'event.code': '106100', 'event.severity': 5, 'rule.name': 'mgmt' });
  });

  it('reads a <PRI> header with program[pid] and no year, in ctx.timezone', () => {
    expect(parse(line('CiscoASA[4242]'), { ...CTX, timezone: '-02:00' })).toMatchObject({
      '@timestamp': '2024-03-12T10:23:00.000Z',
      'host.hostname': 'fw-edge-01',
      'process.name': 'CiscoASA',
      'process.pid': 4242,
      'log.syslog.priority': 166,
    });
  });

  it('reads an unknown message id as a network event of the firewall, with its code and message', () => {
    const fields = parse('Mar 12 2024 08:16:14 fw-edge-01 : %ASA-6-999999: Something new happened on inside:10.1.1.50');
    expect(fields).toMatchObject({ 'event.code': '999999', 'event.kind': 'event', 'event.category': ['network'], 'event.type': ['info'], message: 'Something new happened on inside:10.1.1.50', 'host.hostname': 'fw-edge-01' });
    for (const absent of ['event.action', 'event.outcome', 'source.ip']) expect(fields).not.toHaveProperty(absent);
  });

  it('reads a known message id in a layout it does not know by its class only: no action, no addresses', () => {
    const fields = parse(line('future release'));
    expect(fields).toMatchObject({ 'event.code': '302013', 'event.category': ['network'], 'event.type': ['info'] });
    expect(fields).not.toHaveProperty('event.action');
    expect(fields).not.toHaveProperty('source.ip');
  });

  it('leaves a malformed tag to the other parsers and drops an impossible port', () => {
    expect(parseRaw(line('%ASA-6-30201:'), CTX).fields['cairn.decoder'] ?? '').not.toMatch(/^cisco\//);
    const fields = parse(line('/99999'));
    expect(fields).toMatchObject({ 'source.ip': '198.51.100.23', 'destination.port': 5060 });
    expect(fields).not.toHaveProperty('source.port');
  });

  it('reads every fixture line with the device catalogue', () => {
    for (const l of FIXTURE.filter((f) => !f.includes('%ASA-6-30201:'))) expect(parseRaw(l, CTX).fields['cairn.decoder'], l).toMatch(/^cisco\/asa$/);
    expect(parseRaw('Mar  3 14:02:11 edge-gw kernel: IN=eth0 OUT= SRC=192.0.2.1 DST=192.0.2.2 PROTO=TCP', CTX).fields['cairn.decoder']).toBeUndefined();
  });
});

describe('Cisco ASA: connections and translations', () => {
  it('302013: source is the "for" side whatever the direction, with the mapped addresses and NAT', () => {
    expect(parse(line('%ASA-6-302013: Built outbound'))).toMatchObject({
      'event.action': 'firewall-rule',
      'event.type': ['connection', 'start'],
      'network.direction': 'outbound',
      'network.transport': 'tcp',
      'cisco.asa.connection_id': '880011',
      'source.ip': '198.51.100.60',
      'source.port': 443,
      'destination.ip': '10.1.1.50',
      'destination.port': 50123,
      'cisco.asa.mapped_destination_ip': '192.0.2.1',
      'cisco.asa.mapped_destination_port': 61001,
      'destination.nat.ip': '192.0.2.1',
      'destination.nat.port': 61001,
      'observer.ingress.interface.name': 'outside',
      'observer.egress.interface.name': 'inside',
    });
    // The source's mapped address equals its real one: no NAT on that side.
    expect(parse(line('%ASA-6-302013: Built outbound'))).not.toHaveProperty('source.nat.ip');
  });

  it('302014: the teardown of the same connection has the same source and destination, duration, bytes and reason', () => {
    expect(parse(line('%ASA-6-302014: Teardown TCP connection 880011'))).toMatchObject({
      'event.action': 'flow-expiration',
      'event.type': ['connection', 'end'],
      'source.ip': '198.51.100.60',
      'source.port': 443,
      'destination.ip': '10.1.1.50',
      'destination.port': 50123,
      'event.duration': 135e9,
      'event.start': '2024-03-12T08:16:00.000Z',
      'event.end': '2024-03-12T08:18:15.000Z',
      'network.bytes': 48213,
      'event.reason': 'TCP FINs',
    });
  });

  it('302015/302016: UDP built with an identity firewall user, torn down after an hour', () => {
    expect(parse(line('%ASA-6-302015'))).toMatchObject({
      'network.direction': 'inbound',
      'network.transport': 'udp',
      'source.ip': '203.0.113.30',
      'source.user.name': 'vpnuser',
      'source.user.domain': 'CORP',
      'cisco.asa.source_username': 'CORP\\vpnuser',
      'destination.ip': '192.0.2.60',
      'observer.egress.interface.name': 'dmz',
    });
    expect(parse(line('Teardown UDP connection 880012'))).toMatchObject({ 'event.duration': 3603e9, 'network.bytes': 1048576, 'event.start': '2024-03-12T08:16:01.000Z' });
  });

  it('302014: an interface name may hold spaces', () => {
    expect(parse(line('NP Identity Ifc'))).toMatchObject({ 'observer.egress.interface.name': 'NP Identity Ifc', 'destination.ip': '10.1.1.1', 'destination.port': 50124 });
  });

  it('302020/302021: ICMP faddr is the destination, laddr the source, gaddr its NAT address; no ports', () => {
    const built = parse(line('%ASA-6-302020'));
    expect(built).toMatchObject({
      'network.transport': 'icmp',
      'network.direction': 'outbound',
      'destination.ip': '198.51.100.1',
      'source.ip': '10.1.1.70',
      'source.nat.ip': '192.0.2.1',
      'cisco.asa.icmp_type': 8,
      'cisco.asa.icmp_code': 0,
    });
    expect(built).not.toHaveProperty('source.port');
    // Names in place of addresses become domains.
    expect(parse(line('%ASA-6-302021'))).toMatchObject({
      'event.action': 'flow-expiration',
      'destination.domain': 'mail.example.com',
      'source.domain': 'build-01.corp.example',
      'source.nat.ip': '192.0.2.1',
    });
  });

  it('305011/305012: a translation maps the real source to source.nat, with no destination', () => {
    const built = parse(line('%ASA-6-305011'));
    expect(built).toMatchObject({
      'event.action': 'firewall-rule',
      'source.ip': '10.1.1.50',
      'source.port': 50123,
      'source.nat.ip': '192.0.2.1',
      'source.nat.port': 61001,
      'observer.ingress.interface.name': 'inside',
      'observer.egress.interface.name': 'outside',
    });
    expect(built).not.toHaveProperty('destination.ip');
    expect(parse(line('%ASA-6-305012'))).toMatchObject({ 'event.action': 'flow-expiration', 'event.duration': 31e9, 'network.transport': 'udp', 'source.nat.port': 30211 });
  });
});

describe('Cisco ASA: denied and permitted packets', () => {
  it('106001: inbound TCP denied, with flags and the interface', () => {
    expect(parse(line('%ASA-2-106001'))).toMatchObject({
      ...DENIED,
      'network.direction': 'inbound',
      'network.transport': 'tcp',
      'source.ip': '203.0.113.77',
      'source.port': 41234,
      'destination.ip': '192.0.2.20',
      'destination.port': 3389,
      'cisco.asa.tcp_flags': 'SYN',
      'observer.ingress.interface.name': 'outside',
    });
  });

  it('106006/106007: inbound UDP denied on an interface or by DNS inspection', () => {
    expect(parse(line('%ASA-2-106006: Deny inbound UDP from 198.51.100.23/5060'))).toMatchObject({ ...DENIED, 'source.port': 5060, 'destination.ip': '192.0.2.21', 'observer.ingress.interface.name': 'outside' });
    expect(parse(line('%ASA-2-106007'))).toMatchObject({ ...DENIED, 'network.protocol': 'dns', 'source.ip': '198.51.100.53', 'destination.port': 49152 });
  });

  it('106014: inbound ICMP denied, with type and code', () => {
    expect(parse(line('%ASA-3-106014'))).toMatchObject({
      ...DENIED,
      'network.transport': 'icmp',
      'source.ip': '203.0.113.5',
      'destination.ip': '10.1.1.20',
      'cisco.asa.icmp_type': 8,
      'cisco.asa.icmp_code': 0,
      'observer.egress.interface.name': 'inside',
    });
  });

  it('106015/106016/106021: no-connection, spoofed and reverse-path packets', () => {
    expect(parse(line('%ASA-6-106015'))).toMatchObject({ ...DENIED, 'source.ip': '10.1.1.30', 'destination.port': 443, 'cisco.asa.tcp_flags': 'FIN ACK' });
    expect(parse(line('%ASA-2-106016'))).toMatchObject({ ...DENIED, 'source.ip': '10.1.1.99', 'destination.ip': '192.0.2.30' });
    expect(parse(line('%ASA-1-106021'))).toMatchObject({ ...DENIED, 'network.transport': 'tcp', 'source.ip': '172.16.5.5', 'observer.ingress.interface.name': 'outside' });
  });

  it('106023: denied by an access group, with the user of the identity firewall', () => {
    expect(parse(line('CORP\\jdoe'))).toMatchObject({
      ...DENIED,
      'rule.name': 'inside_access_in',
      'cisco.asa.rule_name': 'inside_access_in',
      'source.ip': '10.1.1.40',
      'source.port': 52100,
      'source.user.name': 'jdoe',
      'destination.ip': '203.0.113.200',
      'destination.port': 4444,
      'observer.ingress.interface.name': 'inside',
      'observer.egress.interface.name': 'outside',
    });
  });

  it('106023: ICMP type and code in parentheses, and IPv6 addresses after the interface', () => {
    expect(parse(line('dst dmz:192.0.2.50'))).toMatchObject({ 'network.transport': 'icmp', 'cisco.asa.icmp_type': 8, 'destination.ip': '192.0.2.50' });
    expect(parse(line('outside_access_v6'))).toMatchObject({
      'network.type': 'ipv6',
      'source.ip': '2001:db8:aaaa::5',
      'source.port': 5353,
      'destination.ip': '2001:db8:1::10',
      'observer.ingress.interface.name': 'outside',
    });
  });

  it('106100: access-list hits, permitted and denied, with names for hosts', () => {
    expect(parse(line('inside_access_in permitted'))).toMatchObject({
      'event.type': ['connection', 'allowed'],
      'event.outcome': 'success',
      'rule.name': 'inside_access_in',
      'source.ip': '10.1.1.50',
      'source.port': 50123,
      'destination.ip': '198.51.100.60',
      'destination.port': 443,
      'cisco.asa.hit_count': 1,
    });
    expect(parse(line('dmz_access_in denied'))).toMatchObject({ ...DENIED, 'source.domain': 'build-server', 'source.port': 40111, 'cisco.asa.hit_count': 4 });
  });

  it('110002: a packet with no egress interface is dropped', () => {
    expect(parse(line('%ASA-6-110002'))).toMatchObject({ ...DENIED, 'source.ip': '10.1.1.60', 'destination.ip': '10.255.255.255', 'destination.port': 137 });
  });

  it('313001/313004/313005: ICMP to the box, unanswered replies and orphan errors', () => {
    expect(parse(line('%ASA-3-313001'))).toMatchObject({ ...DENIED, 'source.ip': '203.0.113.66', 'cisco.asa.icmp_type': 8 });
    expect(parse(line('%ASA-4-313004'))).toMatchObject({ ...DENIED, 'source.ip': '198.51.100.77', 'destination.ip': '192.0.2.1', 'cisco.asa.icmp_type': 0 });
    expect(parse(line('%ASA-4-313005'))).toMatchObject({
      ...DENIED,
      'source.ip': '198.51.100.254',
      'destination.ip': '10.1.1.90',
      'cisco.asa.icmp_code': 1,
      'cisco.asa.original_ip_payload': 'udp src 10.1.1.90/40000 dst 198.51.100.200/53',
    });
  });

  it('710003/710005: traffic to the ASA itself denied or discarded, on the interface it arrived on', () => {
    expect(parse(line('%ASA-3-710003'))).toMatchObject({ ...DENIED, 'source.ip': '203.0.113.88', 'destination.port': 22, 'observer.ingress.interface.name': 'outside' });
    expect(parse(line('%ASA-7-710005'))).toMatchObject({ ...DENIED, 'network.transport': 'udp', 'destination.ip': '255.255.255.255', 'destination.port': 67 });
  });
});

describe('Cisco ASA: web, logins and threat detection', () => {
  it('304001: a URL let through, with the user and the URL domain', () => {
    expect(parse(line('%ASA-5-304001'))).toMatchObject({
      'event.category': ['network', 'web'],
      'event.type': ['access', 'allowed'],
      'event.outcome': 'success',
      'user.name': 'jdoe',
      'source.ip': '10.1.1.80',
      'destination.ip': '198.51.100.90',
      'url.original': 'http://www.example.com/downloads/setup.exe',
      'url.domain': 'www.example.com',
    });
  });

  it('605005: a management login to the ASA', () => {
    expect(parse(line('%ASA-6-605005'))).toMatchObject({
      'event.category': ['authentication'],
      'event.type': ['start'],
      'event.outcome': 'success',
      'event.action': 'logged-in',
      'user.name': 'netadmin',
      'source.ip': '10.1.1.5',
      'destination.ip': '10.1.1.1',
      'network.protocol': 'ssh',
    });
  });

  it('733100: a drop rate above the threat-detection limit is an alert', () => {
    expect(parse(line('%ASA-4-733100'))).toMatchObject({
      'event.kind': 'alert',
      'cisco.asa.burst.object': 'Scanning',
      'cisco.asa.burst.id': 'rate-1',
      'cisco.asa.burst.current_rate': 12,
      'cisco.asa.burst.configured_rate': 10,
      'cisco.asa.burst.avg_rate': 6,
      'cisco.asa.burst.configured_avg_rate': 5,
      'cisco.asa.burst.cumulative_count': 3718,
    });
  });
});

describe('Cisco ASA: the other message families, one line each', () => {
  const cases: [string, EventFields][] = [
    ['%ASA-2-106002', { ...DENIED, 'network.direction': 'outbound', 'rule.name': '101', 'source.ip': '10.1.1.11', 'destination.ip': '198.51.100.11' }],
    ['%ASA-3-106010', { ...DENIED, 'network.transport': 'sctp', 'source.port': 3868, 'destination.ip': '192.0.2.12', 'observer.egress.interface.name': 'dmz' }],
    ['%ASA-2-106017', { ...DENIED, 'source.ip': '192.0.2.13', 'destination.ip': '192.0.2.13' }],
    ['%ASA-2-106018', { ...DENIED, 'network.transport': 'icmp', 'cisco.asa.icmp_type': 8, 'rule.name': '102', 'source.ip': '10.1.1.14' }],
    ['%ASA-2-106020', { ...DENIED, 'source.ip': '203.0.113.15', 'destination.ip': '192.0.2.15' }],
    ['%ASA-1-106022', { ...DENIED, 'network.transport': 'tcp', 'source.ip': '203.0.113.16', 'observer.ingress.interface.name': 'outside' }],
    ['%ASA-4-106103', { ...DENIED, 'user.name': 'guest1', 'rule.name': 'guest_acl', 'source.port': 50017, 'destination.port': 25 }],
    ['%ASA-6-110003', { ...DENIED, 'source.ip': '203.0.113.18', 'destination.ip': '192.0.2.18', 'observer.egress.interface.name': 'dmz' }],
    ['%ASA-6-302012', { 'network.protocol': 'h225', 'destination.ip': '198.51.100.19', 'destination.port': 1720, 'source.ip': '10.1.1.19' }],
    // GRE: "/0" is a call id, not a port.
    ['%ASA-6-302017', { 'network.transport': 'gre', 'network.iana_number': '47', 'source.ip': '203.0.113.20', 'destination.ip': '10.1.1.20', 'destination.nat.ip': '192.0.2.20' }],
    ['%ASA-6-302018', { 'event.action': 'flow-expiration', 'network.transport': 'gre', 'event.duration': 300e9, 'network.bytes': 2048, 'destination.ip': '10.1.1.20' }],
    ['%ASA-6-302023', { 'event.action': 'flow-expiration', 'source.port': 50021, 'network.bytes': 1024, 'event.reason': 'Cluster flow with CLU closed on owner' }],
    ['%ASA-6-302304', { 'event.action': 'flow-expiration', 'cisco.asa.connection_id': '880022', 'event.duration': 60e9, 'destination.port': 443 }],
    ['%ASA-5-304002', { 'event.type': ['access', 'denied'], 'event.outcome': 'failure', 'url.domain': 'malware.example.net', 'source.ip': '10.1.1.23' }],
    ['%ASA-3-313008', { ...DENIED, 'network.transport': 'ipv6-icmp', 'source.ip': '2001:db8::24', 'network.type': 'ipv6' }],
    ['%ASA-6-605004', { 'event.category': ['authentication'], 'event.outcome': 'failure', 'user.name': 'admin', 'source.ip': '203.0.113.25' }],
    ['%ASA-6-611101', { 'event.category': ['authentication'], 'event.outcome': 'success', 'user.name': 'alice', 'source.ip': '10.1.1.26' }],
    ['%ASA-7-710002', { 'event.type': ['connection', 'allowed'], 'event.outcome': 'success', 'network.protocol': 'https', 'destination.ip': '10.1.1.1' }],
    ['%ASA-7-710006', { ...DENIED, 'network.transport': 'esp', 'source.ip': '203.0.113.28', 'destination.ip': '192.0.2.1' }],
    ['Deny protocol 47', { ...DENIED, 'network.transport': 'gre', 'network.iana_number': '47', 'source.ip': '203.0.113.29', 'rule.name': 'outside_access_in' }],
  ];
  it.each(cases)('%s', (tag, expected) => {
    expect(parse(line(tag))).toMatchObject(expected);
  });

  it('gives every fixture line of a known message id an action, except the one written in an unknown layout', () => {
    const partial = FIXTURE.filter((l) => !/%ASA-6-30201:|future release/.test(l)).filter((l) => parse(l)['event.action'] === undefined);
    expect(partial).toEqual([]);
  });

  it('does not give GRE or ICMP connections ports', () => {
    expect(parse(line('%ASA-6-302017'))).not.toHaveProperty('destination.port');
    expect(parse(line('%ASA-6-302018'))).not.toHaveProperty('source.port');
  });
});

describe('Cisco formats: bare, behind headers, and never from inside a message', () => {
  const payloads: [string, string, EventFields][] = [
    ['asa', '%ASA-4-106023: Deny tcp src outside:198.51.100.9/40000 dst inside:10.0.0.9/22 by access-group "outside_in" [0x0, 0x0]', { 'source.ip': '198.51.100.9', 'event.outcome': 'failure' }],
    ['asa', '%ASA-session-5-106100: access-list in permitted udp inside/10.0.0.9(5353) -> outside/198.51.100.9(53) hit-cnt 1 first hit [0x0, 0x0]', { 'destination.port': 53, 'event.outcome': 'success' }],
    ['asa', '%ASA-6-302013 Built inbound TCP connection 7 for outside:198.51.100.9/40000 (198.51.100.9/40000) to inside:10.0.0.9/22 (10.0.0.9/22)', { 'source.ip': '198.51.100.9', 'event.type': ['connection', 'start'] }],
    ['ios', '%SEC-6-IPACCESSLOGP: list 101 denied tcp 198.51.100.9(40000) -> 10.0.0.9(22), 1 packet', { 'source.ip': '198.51.100.9', 'event.action': 'deny' }],
    ['ios', '%SEC_LOGIN-4-LOGIN_FAILED: Login failed [user: root] [Source: 198.51.100.9] [localport: 22] [Reason: Login Authentication Failed] at 10:00:00 UTC Mon Mar 2 2026', { 'user.name': 'root', 'event.outcome': 'failure' }],
  ];
  const headers = ['', '<166>', 'Mar 12 2024 08:15:01 fw-1 : ', '<166>Mar 12 08:15:01 fw-1 %ASA: ', '2024-03-12T08:15:01Z fw-1 ', '<189>123: fw-1: *Mar 12 08:15:01.483 UTC: ', '000123: Mar 12 08:15:01.483: '];

  it.each(payloads)('reads %s bare and behind each header', (format, payload, expected) => {
    for (const header of headers.filter((h) => !h.includes('%ASA:'))) {
      const { fields } = parseRaw(header + payload, CTX);
      expect(fields['cairn.decoder'], header).toBe(`cisco/${format}`);
      expect(fields, header).toMatchObject(expected);
    }
  });

  it('reads no tag a client wrote into another program\'s message', () => {
    for (const payload of payloads.map(([, p]) => p)) {
      const { fields } = parseRaw(`Nov 22 06:01:02 srv sshd[4242]: Invalid user ${payload} from 203.0.113.7 port 4242`, CTX);
      expect(fields['cairn.decoder'] ?? '', payload).not.toMatch(/^cisco\//);
    }
  });

  it('reads IOS lines without a tag only when the source names a Cisco device', () => {
    const line = '<191>55: edge-rtr: Mar  2 08:11:00.500 CET: NTP Core (NOTICE): Clock is synchronized.';
    expect(parseRaw(line, { ...CTX, source: 'cisco-ios' }).fields).toMatchObject({ 'cairn.decoder': 'cisco/ios-untagged', 'host.hostname': 'edge-rtr', '@timestamp': '2024-03-02T07:11:00.500Z', 'event.category': ['network'] });
    expect(deviceCatalogue().parse(line, { ...CTX, source: 'syslog' })).toBeNull();
  });
});

describe('Cisco formats on hostile 100 KB lines', () => {
  const catalogue = fs.readFileSync(new URL('./catalogue/cisco.yaml', import.meta.url), 'utf8');
  const ids = [...new Set([...catalogue.matchAll(/'(\d{6})'/g)].map((m) => m[1]!))];
  const bodies = ['a'.repeat(100_000), 'a:b/1 (c) to '.repeat(8000), 'Group <a> User <b> IP <c> '.repeat(4000), '1.2.3.4/5 '.repeat(10_000), '(x, '.repeat(25_000), `${' '.repeat(100_000)}x`, 'A '.repeat(50_000), 'reason = a : '.repeat(8000)];
  const others = [
    `%SEC-6-IPACCESSLOGP: list 1 denied tcp ${'1.1.1.1(1) '.repeat(9000)}`,
    `<189>${'1: '.repeat(30_000)}%SYS-5-CONFIG_I: x`,
    `%FW-6-SESS_AUDIT_TRAIL: ${'(a)'.repeat(30_000)}`,
    `%IOSXE-6-PLATFORM: ${'%'.repeat(100_000)}`,
    `CISE_x 1 1 0 ${'a=b, '.repeat(20_000)}`,
    `CISE_x 1 1 0 a${' b'.repeat(50_000)}=`,
    `<134>1 1774000000.1 MX84 urls ${'request: '.repeat(10_000)}`,
    `%FTD-1-430002: K${' '.repeat(100_000)}: v`,
    `${'a'.repeat(100_000)} %ASA-6-302013: Built inbound TCP connection 1 for a:1.1.1.1/1 (1.1.1.1/1) to b:2.2.2.2/2 (2.2.2.2/2)`,
    `${'1: '.repeat(30_000)}Mar 12 2024 08:21:00: %ASA-6-302013: x`,
  ];

  it('reads every message id and format in bounded time', () => {
    const catalogueReader = deviceCatalogue();
    catalogueReader.parse('%ASA-6-302010: 1 in use, 1 most used', CTX);
    let worst = 0;
    const start = performance.now();
    for (const line of [...ids.flatMap((id) => bodies.map((body) => `%ASA-6-${id}: ${body}`)), ...others]) {
      const t = performance.now();
      catalogueReader.parse(line, CTX);
      worst = Math.max(worst, performance.now() - t);
    }
    expect(worst).toBeLessThan(1000);
    expect(performance.now() - start).toBeLessThan(10_000);
  });
});
