import { describe, expect, it } from 'vitest';
import { addGeoFields } from './annotate.js';
import { geoIp } from './geoip.js';

describe('GeoIP and ASN', () => {
  const geo = geoIp();

  it('gives country and AS for public addresses, IPv4 and IPv6, from the shipped databases', () => {
    expect(geo.lookup('8.8.8.8')).toEqual({ country_iso_code: 'US', as: { number: 15169, organization_name: 'Google LLC' } });
    expect(geo.lookup('2001:4860:4860::8888')).toEqual({ country_iso_code: 'US', as: { number: 15169, organization_name: 'Google LLC' } });
    expect(geo.lookup('81.2.69.142')?.country_iso_code).toBe('GB');
  });

  it('gives nothing for private, loopback, link-local, CGNAT, documentation and multicast addresses', () => {
    for (const ip of ['10.1.2.3', '192.168.0.1', '172.16.5.4', '127.0.0.1', '169.254.169.254', '100.64.0.1', '192.0.2.1', '203.0.113.5', '224.0.0.1', '::1', 'fe80::1', 'fd00::1', '2001:db8::1', 'not-an-ip']) {
      expect(geo.lookup(ip), ip).toBeNull();
    }
  });

  it('adds source and destination geo and AS fields to an event', () => {
    const fields: Record<string, string | number | string[]> = { 'source.ip': '8.8.8.8', 'destination.ip': '10.0.0.5' };
    addGeoFields(fields, geo);
    expect(fields).toEqual({
      'source.ip': '8.8.8.8',
      'destination.ip': '10.0.0.5',
      'source.geo.country_iso_code': 'US',
      'source.as.number': 15169,
      'source.as.organization.name': 'Google LLC',
    });
  });

  it('says which databases it read', () => {
    expect(geo.version.country).toMatch(/^@ip-location-db\/geo-whois-asn-country-mmdb@/);
    expect(geo.version.asn).toMatch(/IPv4 and \d+ IPv6 ranges/);
    expect(Date.parse(geo.version.builtAt)).toBeGreaterThan(Date.parse('2024-01-01'));
  });
});
