// Indicator types and their canonical values. A value is written the way the
// pipeline writes the same thing in events and nodes (IPv4 dotted decimal,
// IPv6 RFC 5952, lower-case domains without a trailing dot), so a lookup at
// ingest is one exact comparison. Ids are UUIDv5 of (org, type, value): the
// same indicator from several feeds is one library entry.
import ipaddr from 'ipaddr.js';
import { stableId } from '../lib/ids.js';
import { canonicalEntity } from '../pipeline/enricher/extract.js';
import { canonicalIp } from '../pipeline/parser/ip.js';

export const INDICATOR_TYPES = ['ipv4-addr', 'ipv6-addr', 'ipv4-cidr', 'ipv6-cidr', 'domain', 'url', 'md5', 'sha1', 'sha256', 'email', 'stix-pattern'] as const;
export type IndicatorType = (typeof INDICATOR_TYPES)[number];

/** Types a plain value can have (every type but a kept STIX pattern). */
export type ValueType = Exclude<IndicatorType, 'stix-pattern'>;

export interface IndicatorValue {
  type: ValueType;
  value: string;
}

const HASH_TYPES: Record<number, ValueType> = { 32: 'md5', 40: 'sha1', 64: 'sha256' };
const HEX = /^[0-9a-f]+$/;

export function indicatorId(orgId: string, type: IndicatorType, value: string): string {
  return stableId('threat-indicator', orgId, type, value);
}

/** A URL as compared at ingest: scheme and host lower-case, the rest as given, no fragment. */
export function canonicalUrl(text: string): string | null {
  const raw = text.trim();
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(raw) || raw.length > 4096) return null;
  try {
    const url = new URL(raw);
    if (!url.hostname) return null;
    url.hash = '';
    return url.href;
  } catch {
    return null;
  }
}

/** A CIDR with its host bits cleared; a full-length prefix is the address itself. */
function canonicalCidr(text: string): IndicatorValue | null {
  try {
    const [address, bits] = ipaddr.parseCIDR(text.trim());
    const v4 = address.kind() === 'ipv4';
    const full = v4 ? 32 : 128;
    const network = v4 ? ipaddr.IPv4.networkAddressFromCIDR(text.trim()) : ipaddr.IPv6.networkAddressFromCIDR(text.trim());
    const value = canonicalIp(network.toString());
    if (!value) return null;
    if (bits === full) return { type: v4 ? 'ipv4-addr' : 'ipv6-addr', value };
    return { type: v4 ? 'ipv4-cidr' : 'ipv6-cidr', value: `${value}/${bits}` };
  } catch {
    return null;
  }
}

/** The canonical form of `text` read as `type`, or null when it is not one. */
export function canonicalValue(type: ValueType, text: string): IndicatorValue | null {
  const raw = text.trim();
  switch (type) {
    case 'ipv4-addr':
    case 'ipv6-addr':
    case 'ipv4-cidr':
    case 'ipv6-cidr': {
      const found = raw.includes('/') ? canonicalCidr(raw) : ((ip) => (ip ? { type: (ip.includes(':') ? 'ipv6-addr' : 'ipv4-addr') as ValueType, value: ip } : null))(canonicalIp(raw));
      // STIX writes a network as ipv4-addr:value = '10.0.0.0/8': the family must agree, the CIDR-ness may not.
      return found && found.type.slice(0, 4) === type.slice(0, 4) ? found : null;
    }
    case 'domain': {
      const domain = canonicalEntity('domain', raw.replace(/^\*\./, ''));
      return domain && domain.type === 'domain' ? { type, value: domain.value } : null;
    }
    case 'email': {
      const email = canonicalEntity('email', raw);
      return email && email.type === 'email' ? { type, value: email.value } : null;
    }
    case 'url': {
      const url = canonicalUrl(raw);
      return url ? { type, value: url } : null;
    }
    case 'md5':
    case 'sha1':
    case 'sha256': {
      const hash = raw.toLowerCase();
      return HEX.test(hash) && HASH_TYPES[hash.length] === type ? { type, value: hash } : null;
    }
  }
}

/** What a bare value in a block list is, judged by its shape: address, network, URL, hash, email or domain. */
export function detectValue(text: string): IndicatorValue | null {
  const raw = text.trim();
  if (!raw) return null;
  if (raw.includes('/') && !raw.includes('://')) return canonicalCidr(raw);
  const ip = canonicalIp(raw);
  if (ip) return { type: ip.includes(':') ? 'ipv6-addr' : 'ipv4-addr', value: ip };
  if (raw.includes('://')) return canonicalValue('url', raw);
  const hashType = HEX.test(raw.toLowerCase()) ? HASH_TYPES[raw.length] : undefined;
  if (hashType) return canonicalValue(hashType, raw);
  if (raw.includes('@')) return canonicalValue('email', raw);
  return canonicalValue('domain', raw);
}

/** What a value given by hand with an optional type is; null when it is not one. */
export function readValue(text: string, type?: ValueType): IndicatorValue | null {
  return type ? canonicalValue(type, text) : detectValue(text);
}
