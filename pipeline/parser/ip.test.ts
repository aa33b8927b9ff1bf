// canonicalIp and canonicalMac: one written form per address, and null (undefined) for anything that is
// not one; each case twice, as the second answer for IPv6 comes from the cache.
import { describe, expect, it } from 'vitest';
import { canonicalIp, canonicalMac } from './ip.js';

function expectCanonical(cases: Record<string, string | null>): void {
  for (let pass = 0; pass < 2; pass++) {
    for (const [input, expected] of Object.entries(cases)) expect(canonicalIp(input), JSON.stringify(input)).toBe(expected);
  }
}

describe('canonicalIp', () => {
  it('keeps dotted-decimal IPv4 as written', () => {
    expectCanonical({ '192.0.2.1': '192.0.2.1', '0.0.0.0': '0.0.0.0', '255.255.255.255': '255.255.255.255', '10.0.0.254': '10.0.0.254' });
  });

  it('rejects IPv4 with leading zeros, parts over 255 or the wrong number of parts', () => {
    expectCanonical({ '01.2.3.4': null, '192.168.001.1': null, '1.2.3.00': null, '256.1.1.1': null, '1.2.3': null, '1.2.3.4.5': null, '1..2.3': null, '1.2.3.4.': null });
  });

  it('writes IPv6 lower-case with the longest run of zeros compressed (RFC 5952)', () => {
    expectCanonical({
      '2001:0DB8:0000:0000:0000:0000:0000:0001': '2001:db8::1',
      '2001:db8:0:0:1:0:0:1': '2001:db8::1:0:0:1',
      'FE80::1FF:FE23:4567:890A': 'fe80::1ff:fe23:4567:890a',
      '2001:db8:0:1:1:1:1:1': '2001:db8:0:1:1:1:1:1',
      '::': '::',
      '::1': '::1',
    });
  });

  it('rejects text that only looks like IPv6', () => {
    expectCanonical({ ':::': null, '1:2:3:4:5:6:7:8:9': null, '2001:db8::g': null, 'a:b': null, '12:30:00': null });
  });

  it('writes an IPv4-mapped IPv6 address as the IPv4 address', () => {
    expectCanonical({ '::ffff:192.0.2.1': '192.0.2.1', '::FFFF:c000:0201': '192.0.2.1' });
  });

  it('takes the address out of brackets', () => {
    expectCanonical({ '[2001:db8::1]': '2001:db8::1', '[192.0.2.1]': '192.0.2.1', '[::1': null, '[]': null });
  });

  it('drops a zone id', () => {
    expectCanonical({ 'fe80::1%eth0': 'fe80::1', '[fe80::1%25eth0]': 'fe80::1', '192.0.2.1%eth0': '192.0.2.1', '%eth0': null });
  });

  it('trims surrounding whitespace, the Unicode kinds too', () => {
    expectCanonical({ ' 192.0.2.1': '192.0.2.1', '192.0.2.1\n': '192.0.2.1', '192.0.2.1\u00a0': '192.0.2.1', '\u00a0192.0.2.1\u00a0': '192.0.2.1', ' [2001:db8::1] ': '2001:db8::1', '192.0.2 .1': null });
  });

  it('returns null for host names, user names, ports and other text', () => {
    expectCanonical({ 'host.example.com': null, 'edge-1': null, UNKNOWN: null, tty1: null, '1.2.3.4:80': null, '-': null, 'beef.cafe': null });
  });

  it('returns null for empty and blank text', () => {
    expectCanonical({ '': null, ' ': null, '[ ]': null });
  });

  it('reads values too long to cache the same way', () => {
    const zone = 'z'.repeat(100);
    expectCanonical({ [`fe80::1%${zone}`]: 'fe80::1', [`${'a'.repeat(100)}:`]: null });
  });
});

describe('canonicalMac', () => {
  it('writes MAC addresses as ECS does, from any grouping, and refuses what is not one', () => {
    expect(canonicalMac('0004A34473BF')).toBe('00-04-A3-44-73-BF');
    expect(canonicalMac('00:04:a3:44:73:bf')).toBe('00-04-A3-44-73-BF');
    expect(canonicalMac('0004.a344.73bf')).toBe('00-04-A3-44-73-BF');
    expect(canonicalMac('0004A34473B')).toBeUndefined();
    expect(canonicalMac('not-a-mac-at-all')).toBeUndefined();
  });
});
