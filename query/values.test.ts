import ipaddr from 'ipaddr.js';
import { describe, expect, it } from 'vitest';
import { inNetwork, IPV4_PATTERN, ipv4Number, parseNetwork } from './values.js';

const IPV4 = new RegExp(IPV4_PATTERN);

/** What inNetwork means, with ipaddr.js objects throughout: the reference its IPv4 numbers must agree with. */
function reference(value: string, cidr: string): boolean {
  const [network, bits] = ipaddr.parseCIDR(cidr);
  if (network.kind() === 'ipv4') return IPV4.test(value) && ipaddr.IPv4.parse(value).match([network as ipaddr.IPv4, bits]);
  if (IPV4.test(value)) return ipaddr.IPv4.parse(value).toIPv4MappedAddress().match([network as ipaddr.IPv6, bits]);
  return ipaddr.IPv6.isValid(value) && /^[0-9A-Fa-f:]*:[0-9A-Fa-f:.]*$/.test(value) && ipaddr.IPv6.parse(value).match([network as ipaddr.IPv6, bits]);
}

describe('IPv4 values', () => {
  it('are read as numbers only in strict dotted decimal', () => {
    expect(ipv4Number('0.0.0.0')).toBe(0);
    expect(ipv4Number('255.255.255.255')).toBe(0xffffffff);
    expect(ipv4Number('10.1.2.3')).toBe(0x0a010203);
    for (const text of ['', '1.2.3', '1.2.3.4.5', '01.2.3.4', '1.2.3.256', '1.2.3.4 ', '1..2.3', '1.2.3.', '.1.2.3', '1.2.3.1000', 'a.b.c.d', '::ffff:1.2.3.4', '1.2.3.04']) {
      expect(ipv4Number(text), text).toBeNull();
      expect(IPV4.test(text), text).toBe(false);
    }
  });

  it('fall in a network exactly when ipaddr.js says so, IPv4-mapped for an IPv6 network', () => {
    const networks = ['10.0.0.0/8', '172.16.0.0/12', '192.168.1.128/25', '0.0.0.0/0', '255.255.255.255/32', '0.0.0.0/8', '::/0', '::ffff:0:0/96', '::ffff:10.0.0.0/104', '::ffff:0:0/95', '::/64', 'fc00::/7', '::1/128', '::ffff:192.168.0.0/112'];
    const values = ['10.0.0.0', '10.255.255.255', '11.0.0.0', '9.255.255.255', '172.31.0.1', '172.32.0.1', '192.168.1.127', '192.168.1.128', '192.168.1.255', '0.0.0.0', '255.255.255.255', '8.8.8.8', '192.168.7.7', '::1', 'fc00::1', '::ffff:10.0.0.1', '2001:db8::1', 'not an address', '01.2.3.4'];
    for (const cidr of networks) {
      const network = parseNetwork(cidr);
      for (const value of values) expect(inNetwork(value, network), `${value} in ${cidr}`).toBe(reference(value, cidr));
    }
  });
});
