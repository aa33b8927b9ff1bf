// IP addresses in one canonical form, so that the same address from two logs
// is the same node: IPv4 dotted-decimal, IPv6 as RFC 5952 (lower-case, zeros
// compressed), IPv4-mapped IPv6 as the IPv4 address.
import ipaddr from 'ipaddr.js';

// Cheap shape checks first: ipaddr.js is slow to reject text that is no address
// at all (a host or user name), and most values tried are not addresses.
const IPV4_SHAPE = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const IPV6_SHAPE = /^[0-9A-Fa-f:.]+$/;

export function canonicalIp(text: string): string | null {
  let value = text.trim();
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  const zone = value.indexOf('%');
  if (zone > 0) value = value.slice(0, zone);
  if (IPV4_SHAPE.test(value)) return ipaddr.IPv4.isValidFourPartDecimal(value) ? ipaddr.IPv4.parse(value).toString() : null;
  if (!value.includes(':') || !IPV6_SHAPE.test(value) || !ipaddr.IPv6.isValid(value)) return null;
  const v6 = ipaddr.IPv6.parse(value);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address().toString() : v6.toRFC5952String();
}
