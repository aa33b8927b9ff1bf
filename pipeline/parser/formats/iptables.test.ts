// Netfilter LOG lines: fixture lines written for cairn (test/fixtures/parser/iptables.log),
// plus the Apache-2.0 Beats geo.log line.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ParseContext } from '../types.js';
import { iptables } from './iptables.js';

const FIXTURE = fs.readFileSync(new URL('../../../test/fixtures/parser/iptables.log', import.meta.url), 'utf8').split('\n').filter(Boolean);
const CTX: ParseContext = { source: 'iptables', receivedAt: Date.UTC(2024, 5, 1) };

/** The one fixture line containing `text`. */
function line(text: string): string {
  const found = FIXTURE.filter((l) => l.includes(text));
  if (found.length !== 1) throw new Error(`${found.length} fixture lines contain "${text}"`);
  return found[0]!;
}

function parse(raw: string, ctx: ParseContext = CTX) {
  const fields = iptables.parse(raw, ctx);
  if (!fields) throw new Error(`not parsed: ${raw}`);
  return fields;
}

describe('iptables parser', () => {
  it('reads the syslog header and every kernel field of a dropped TCP SYN', () => {
    const fields = parse(line('DROP_INPUT'));
    expect(fields).toEqual({
      '@timestamp': '2024-03-03T14:02:11.000Z',
      'host.hostname': 'edge-gw',
      'process.name': 'kernel',
      message: line('DROP_INPUT').slice('Mar  3 14:02:11 edge-gw kernel: '.length),
      'event.kind': 'event',
      'event.category': ['network'],
      'event.type': ['connection', 'denied'],
      'event.action': 'drop',
      'event.outcome': 'failure',
      'rule.name': 'iptables DROP_INPUT',
      'observer.ingress.interface.name': 'eth0',
      'iptables.input_device': 'eth0',
      'destination.mac': '00-16-3E-12-34-56',
      'source.mac': '00-16-3E-AB-CD-EF',
      'iptables.ether_type': 0x0800,
      'source.ip': '203.0.113.45',
      'destination.ip': '192.0.2.10',
      'iptables.length': 60,
      'iptables.tos': 0,
      'iptables.precedence_bits': 0,
      'iptables.ttl': 52,
      'iptables.id': 54321,
      'iptables.fragment_flags': ['DF'],
      'network.transport': 'tcp',
      'network.iana_number': '6',
      'network.type': 'ipv4',
      'source.port': 51514,
      'destination.port': 22,
      'iptables.tcp.window': 64240,
      'iptables.tcp.reserved_bits': 0,
      'iptables.tcp.flags': ['SYN'],
      'iptables.tcp.urgent_pointer': 0,
    });
  });

  it('takes an allow verdict from a UFW prefix after the kernel uptime stamp, and the UDP length after PROTO=', () => {
    const fields = parse(line('[UFW ALLOW]'));
    expect(fields).toMatchObject({
      'rule.name': 'UFW ALLOW',
      'event.action': 'allow',
      'event.type': ['connection', 'allowed'],
      'event.outcome': 'success',
      'iptables.tos': 0x10,
      'iptables.length': 76,
      'iptables.udp.length': 56,
      'network.transport': 'udp',
      'source.port': 123,
      'destination.port': 123,
    });
  });

  it('parses a bare kernel line without header or prefix and infers no verdict', () => {
    const fields = parse(line('IN=eth1 OUT=eth0'));
    expect(fields).toMatchObject({
      'event.type': ['connection'],
      'observer.ingress.interface.name': 'eth1',
      'observer.egress.interface.name': 'eth0',
      'source.ip': '10.0.0.23',
      'destination.ip': '198.51.100.80',
      'iptables.tcp.flags': ['ACK', 'PSH'],
    });
    for (const absent of ['@timestamp', 'host.hostname', 'rule.name', 'event.action', 'event.outcome']) expect(fields).not.toHaveProperty(absent);
  });

  it('splits a Ubiquiti prefix glued to IN= into rule set, rule and action', () => {
    expect(parse(line('[WAN_LOCAL-default-D]'))).toMatchObject({
      '@timestamp': '2024-04-12T09:15:00.000Z',
      'rule.name': 'WAN_LOCAL-default-D',
      'rule.ruleset': 'WAN_LOCAL',
      'rule.id': 'default',
      'event.action': 'drop',
      'event.type': ['connection', 'denied'],
      'source.ip': '198.51.100.250',
      'destination.port': 8443,
    });
  });

  it('reads IPv6: canonical addresses, traffic class, hop limit, flow label and ICMPv6 fields', () => {
    const fields = parse(line('ip6tables REJECT'));
    expect(fields).toMatchObject({
      'network.type': 'ipv6',
      'source.ip': '2001:db8::42',
      'destination.ip': '2001:db8::1',
      'iptables.ether_type': 0x86dd,
      'iptables.tos': 0,
      'iptables.ttl': 64,
      'iptables.flow_label': 327680,
      'network.transport': 'ipv6-icmp',
      'network.iana_number': '58',
      'iptables.icmp.type': 128,
      'iptables.icmp.code': 0,
      'iptables.icmp.id': 1234,
      'iptables.icmp.seq': 1,
      'event.action': 'reject',
    });
    expect(fields).not.toHaveProperty('source.port');
  });

  it('keeps the outer packet of an ICMP error, not the packet it quotes in brackets', () => {
    const fields = parse(line('FW-LOG'));
    expect(fields).toMatchObject({
      'source.ip': '192.0.2.1',
      'destination.ip': '10.0.0.5',
      'iptables.id': 3412,
      'iptables.precedence_bits': 0xc0,
      'network.transport': 'icmp',
      'iptables.icmp.type': 3,
      'iptables.icmp.code': 3,
    });
    expect(fields).not.toHaveProperty('source.port');
    expect(fields).not.toHaveProperty('iptables.udp.length');
    // A prefix without a verdict word names the rule only.
    expect(fields['rule.name']).toBe('FW-LOG');
    expect(fields).not.toHaveProperty('event.outcome');
  });

  it('reads a locally sent packet: no MAC, TCP sequence numbers, options skipped, socket owner and mark', () => {
    const fields = parse(line('OUTPUT-LOG'));
    expect(fields).toMatchObject({
      'rule.name': 'OUTPUT-LOG',
      'observer.egress.interface.name': 'eth0',
      'iptables.tcp.seq': 123456789,
      'iptables.tcp.ack': 0,
      'iptables.tcp.flags': ['SYN'],
      'user.id': '1001',
      'group.id': '1001',
      'iptables.mark': 0x1f,
    });
    expect(fields).not.toHaveProperty('observer.ingress.interface.name');
    expect(fields).not.toHaveProperty('source.mac');
  });

  it('reads the VLAN id of an 802.1Q link header and the fragment offset', () => {
    expect(parse(line('vlan-drop'))).toMatchObject({
      'network.vlan.id': '20',
      'iptables.ether_type': 0x0800,
      'iptables.fragment_offset': 185,
      'observer.ingress.interface.name': 'eth0.20',
    });
  });

  it('reads an ARP packet logged by nftables: IPSRC/IPDST and MACSRC/MACDST', () => {
    const raw = line('arp-in');
    expect(iptables.detect(raw)).toBe(true);
    expect(parse(raw)).toMatchObject({
      'network.type': 'arp',
      'source.ip': '192.0.2.99',
      'source.mac': '00-16-3E-AB-CD-EF',
      'destination.ip': '192.0.2.1',
      'iptables.opcode': '1',
    });
  });

  it('reads header times in ctx.timezone', () => {
    expect(parse(line('DROP_INPUT'), { ...CTX, timezone: '+02:00' })['@timestamp']).toBe('2024-03-03T12:02:11.000Z');
  });

  it('throws on a bad SRC address, a missing DST and an out-of-range port', () => {
    expect(() => iptables.parse(line('203.0.113.999'), CTX)).toThrow(/SRC= is not an IP address/);
    expect(() => iptables.parse(line('SRC=203.0.113.5 LEN=40'), CTX)).toThrow(/without SRC= and DST=/);
    expect(() => iptables.parse(line('SPT=70000'), CTX)).toThrow(/SPT= is not a port/);
  });

  it('reads the ports and protocol of a kernel line whose front a relay cut off', () => {
    const cut = 'Jun 14 09:12:40 gw-branch user.warn kernel: L=118 ID=40213 DF PROTO=TCP SPT=51022 DPT=3389 WINDOW=64240 RES=0x00 SYN URGP=0';
    expect(parse(cut)).toMatchObject({
      'process.name': 'kernel',
      'event.category': ['network'],
      'event.type': ['connection'],
      'network.transport': 'tcp',
      'source.port': 51022,
      'destination.port': 3389,
      'iptables.id': 40213,
    });
    expect(parse(cut)['iptables.l']).toBeUndefined();
    // Without PROTO= there is nothing to read; another program's PROTO= is not the kernel's.
    expect(iptables.parse('Jun 14 09:12:40 gw-branch kernel: L=118 ID=40213 DF SPT=51022 DPT=3389', CTX)).toBeNull();
    expect(iptables.parse('Jun 14 09:12:40 gw-branch appd[7]: TTL=5 PROTO=TCP SPT=1 DPT=2', CTX)).toBeNull();
  });

  it('returns null for lines of other formats', () => {
    expect(iptables.parse('Mar 12 2024 08:15:01 fw : %ASA-2-106006: Deny inbound UDP from 198.51.100.23/5060 to 192.0.2.21/5060 on interface outside', CTX)).toBeNull();
    expect(iptables.parse('Mar  3 14:02:11 host sshd[1]: Accepted publickey for alice from 192.0.2.1 port 50000 ssh2', CTX)).toBeNull();
    // SRC=/DST= pairs without the kernel's IN= OUT= are some other key=value log.
    expect(iptables.parse('action=drop SRC=192.0.2.1 DST=192.0.2.2 proto=tcp', CTX)).toBeNull();
  });

  it('detects netfilter lines by their SRC=/DST= pair or a leading IN=', () => {
    for (const l of FIXTURE) expect(iptables.detect(l)).toBe(true);
    expect(iptables.detect('IN=eth0 OUT= SRC')).toBe(true);
    expect(iptables.detect('%ASA-6-302013: Built outbound TCP connection')).toBe(false);
  });

  it('parses the Beats geo.log line', () => {
    const geo = fs.readFileSync(new URL('../../../test/fixtures/beats/geo.log', import.meta.url), 'utf8').split('\n')[0]!;
    expect(parse(geo, { ...CTX, receivedAt: Date.UTC(2019, 11, 31) })).toMatchObject({
      '@timestamp': '2019-10-10T07:25:12.000Z',
      'host.hostname': 'Hostname',
      'rule.name': 'wan-lan-default-D',
      'rule.ruleset': 'wan-lan',
      'rule.id': 'default',
      'event.action': 'drop',
      'source.ip': '158.109.0.1',
      'source.port': 38842,
      'destination.ip': '10.4.0.5',
      'destination.port': 443,
      'iptables.tcp.flags': ['ACK'],
    });
  });
});
