// IP addresses in one canonical form, so that the same address from two logs
// is the same node: IPv4 dotted-decimal, IPv6 as RFC 5952 (lower-case, zeros
// compressed), IPv4-mapped IPv6 as the IPv4 address.
import ipaddr from 'ipaddr.js';

const DOT = 0x2e;

/** Strict dotted decimal, parts 0-255 without leading zeros: the text is its own canonical form. */
function isCanonicalIpv4(value: string): boolean {
  let parts = 0;
  let part = 0;
  let digits = 0;
  for (let i = 0; i <= value.length; i++) {
    const c = i < value.length ? value.charCodeAt(i) : DOT;
    if (c === DOT) {
      if (digits === 0 || part > 255) return false;
      parts++;
      part = 0;
      digits = 0;
      continue;
    }
    const d = c - 48;
    if (d < 0 || d > 9 || (digits === 1 && part === 0) || digits === 3) return false;
    part = part * 10 + d;
    digits++;
  }
  return parts === 4;
}

function isVisibleAscii(code: number): boolean {
  return code > 0x20 && code < 0x7f;
}

// Shape checks before ipaddr.js, which is slow to reject text that is no
// address at all (a host or user name).
const IPV4_SHAPE = /^\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const IPV6_SHAPE = /^[0-9A-Fa-f:.]+$/;

/** The full reading: whitespace, brackets and zone stripped, then ipaddr.js. */
function parseIp(text: string): string | null {
  let value = text.trim();
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  const zone = value.indexOf('%');
  if (zone > 0) value = value.slice(0, zone);
  if (IPV4_SHAPE.test(value)) return ipaddr.IPv4.isValidFourPartDecimal(value) ? ipaddr.IPv4.parse(value).toString() : null;
  if (!value.includes(':') || !IPV6_SHAPE.test(value) || !ipaddr.IPv6.isValid(value)) return null;
  const v6 = ipaddr.IPv6.parse(value);
  return v6.isIPv4MappedAddress() ? v6.toIPv4Address().toString() : v6.toRFC5952String();
}

// ipaddr.js takes microseconds per IPv6 address, and a log names the same
// few addresses over and over, so answers are remembered. Only values as long
// as an address can be (45 characters, brackets, a zone of up to 16) are
// kept: longer text is no address worth the memory.
const CACHE_LIMIT = 50_000;
const CACHEABLE_LENGTH = 64;
const cache = new Map<string, string | null>();

/** The canonical form of the address `text` holds (whitespace, [brackets] and %zone allowed), or null. */
export function canonicalIp(text: string): string | null {
  if (isCanonicalIpv4(text)) return text;
  // Without a colon, bracket, zone or whitespace to trim, only canonical IPv4 (above) is an address.
  if (!text.includes(':') && !text.includes('[') && !text.includes('%') && isVisibleAscii(text.charCodeAt(0)) && isVisibleAscii(text.charCodeAt(text.length - 1))) return null;
  if (text.length > CACHEABLE_LENGTH) return parseIp(text);
  let ip = cache.get(text);
  if (ip === undefined) {
    if (cache.size >= CACHE_LIMIT) cache.clear();
    ip = parseIp(text);
    cache.set(text, ip);
  }
  return ip;
}

/**
 * A MAC address in ECS's notation (RFC 7042: upper-case octets joined by "-")
 * from the usual ways of writing one ("00:1e:0b:80:13:b5", "00-1E-...",
 * "001e.0b80.13b5", "001E0B8013B5"); undefined for anything else.
 */
export function canonicalMac(value: string): string | undefined {
  const hex = value.replace(/[.:-]/g, '');
  if (!/^[0-9A-Fa-f]{12}$/.test(hex) || !/^(?:[0-9A-Fa-f]{4}\.){2}[0-9A-Fa-f]{4}$|^(?:[0-9A-Fa-f]{2}([:-]))(?:[0-9A-Fa-f]{2}\1){4}[0-9A-Fa-f]{2}$|^[0-9A-Fa-f]{12}$/.test(value)) return undefined;
  return hex.toUpperCase().match(/../g)!.join('-');
}
