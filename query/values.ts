// What values mean, written once for both back ends: ASCII case folding and
// the store's tokenizer, glob patterns, CIDR networks, and which strings are
// numbers and times. The SQL back end emits the same tests in ClickHouse;
// the differential test (query/backends.test.ts) holds the two together.
import ipaddr from 'ipaddr.js';
import { QuerySyntaxError } from './errors.js';
import { escapeRegExp } from '../lib/regex-escape.js';

/** Lower-cases ASCII letters only, as the store's `lower()` does. */
const ASCII_UPPER = /[A-Z]/;

export function asciiLower(text: string): string {
  // Rules lower-case every value and raw line they test: most have no capital, and most of the rest are ASCII,
  // which the native toLowerCase does the same way, fast. Only other text needs its ASCII letters done alone.
  // Text is ASCII when its UTF-8 form has a byte per character: Node counts that natively, over ten times
  // faster than a regular expression looking for a character past 0x7f.
  if (!ASCII_UPPER.test(text)) return text;
  return Buffer.byteLength(text, 'utf8') !== text.length ? text.replace(/[A-Z]/g, (c) => c.toLowerCase()) : text.toLowerCase();
}

/** The store's tokenizer (splitByNonAlpha): runs of ASCII letters and digits and of non-ASCII characters. */
export function tokenize(text: string): string[] {
  return text.split(/[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/).filter(Boolean);
}

/** A glob's parts: literal text, "*" (any run) and "?" (one character). `\*`, `\?` and `\\` are literal. */
export type GlobPart = { literal: string } | { any: true } | { one: true };

export function globParts(pattern: string): GlobPart[] {
  const parts: GlobPart[] = [];
  let literal = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\' && i + 1 < pattern.length) literal += pattern[++i];
    else if (c === '*' || c === '?') {
      if (literal) parts.push({ literal });
      literal = '';
      parts.push(c === '*' ? { any: true } : { one: true });
    } else literal += c;
  }
  if (literal) parts.push({ literal });
  return parts;
}

/** Text as a glob that matches only itself: * ? and \ escaped (Sigma values escape the same three). */
export function escapeGlob(literal: string): string {
  return literal.replace(/[*?\\]/g, '\\$&');
}

/** A glob in its one canonical spelling: only * ? and \ escaped (the query text may escape more, e.g. spaces). */
export function normalizeGlob(pattern: string): string {
  return globParts(pattern)
    .map((p) => ('literal' in p ? escapeGlob(p.literal) : 'any' in p ? '*' : '?'))
    .join('');
}

/** Whether a value written in a query holds an unescaped * or ?. */
export function hasWildcard(value: string): boolean {
  return /(^|[^\\])(\\\\)*[*?]/.test(value);
}

/** The glob as a ClickHouse LIKE pattern over ASCII-lowered text: % and _ for * and ?, literal %, _ and \ escaped. */
export function globToLike(parts: GlobPart[]): string {
  return parts.map((p) => ('literal' in p ? asciiLower(p.literal).replace(/[\\%_]/g, '\\$&') : 'any' in p ? '%' : '_')).join('');
}

/** The glob as a JavaScript regular expression over ASCII-lowered text, by code point like LIKE's "_". */
export function globToRegExp(parts: GlobPart[], anchored: boolean): RegExp {
  return new RegExp(globSource(parts, anchored), 'u');
}

/**
 * The source of globToRegExp's expression. A leading or trailing "*" of an
 * anchored glob drops that anchor instead of becoming `[^]*`: `*nikto*` is
 * searched as `nikto`, where `^[^]*nikto[^]*$` ran the whole value to its end
 * and backtracked, some thirty times slower.
 */
export function globSource(parts: GlobPart[], anchored: boolean): string {
  let first = 0;
  let end = parts.length;
  const start = anchored && !(parts.length > 0 && 'any' in parts[0]!);
  const stop = anchored && !(parts.length > 0 && 'any' in parts[parts.length - 1]!);
  while (first < end && 'any' in parts[first]!) first++;
  while (end > first && 'any' in parts[end - 1]!) end--;
  const body = parts
    .slice(first, end)
    .map((p) => ('literal' in p ? escapeRegExp(asciiLower(p.literal)) : 'any' in p ? '[^]*' : '[^]'))
    .join('');
  return `${start ? '^' : ''}${body}${stop ? '$' : ''}`;
}

// Numbers and times that comparisons and ranges accept, in both back ends.
export const NUMBER_PATTERN = '^-?[0-9]+(\\.[0-9]+)?$';
export const TIME_PATTERN = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]{1,9})?(Z|[+-][0-9]{2}:[0-9]{2})$';
const NUMBER = new RegExp(NUMBER_PATTERN);
const TIME = new RegExp(TIME_PATTERN);

export function isNumber(value: string): boolean {
  return NUMBER.test(value);
}

/** Milliseconds of an ISO 8601 time in the accepted form; NaN otherwise (also for dates that do not exist). */
export function timeMillis(value: string): number {
  if (!TIME.test(value)) return NaN;
  const ms = Date.parse(value);
  const day = Date.parse(`${value.slice(0, 10)}T00:00:00Z`);
  // Date.parse rolls Feb 30 over to March; a date that does not exist is not a time.
  if (Number.isNaN(ms) || Number.isNaN(day) || new Date(day).toISOString().slice(0, 10) !== value.slice(0, 10)) return NaN;
  return ms;
}

// IPv4 in strict dotted decimal (no leading zeros), as both back ends check before converting.
export const IPV4_PATTERN = '^((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])$';
// IPv6 as text: hex groups and colons, optionally ending in a dotted IPv4.
export const IPV6_PATTERN = '^[0-9A-Fa-f:]*:[0-9A-Fa-f:]*(:((25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\\.){3}(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9]))?$';
const IPV6 = new RegExp(IPV6_PATTERN);

export interface Network {
  kind: 'ipv4' | 'ipv6';
  /** First and last address, as text the store parses (toIPv4 / toIPv6). */
  first: string;
  last: string;
  /** For the matcher. */
  range: [ipaddr.IPv4 | ipaddr.IPv6, number];
  /**
   * The IPv4 addresses the network holds, as numbers (first, last): an IPv4
   * network's own, an IPv6 network's IPv4-mapped ones (::ffff:a.b.c.d, as
   * the store reads an IPv4 value against it); null for none. Lets the
   * matcher test IPv4 values, most of what it meets, without parsing them
   * into objects.
   */
  ipv4: { first: number; last: number } | null;
}

/** Whether `text` is written as a CIDR (address/prefix). */
export function looksLikeCidr(text: string): boolean {
  return /^[0-9A-Fa-f:.]+\/\d{1,3}$/.test(text) && ipaddr.isValidCIDR(text);
}

export function parseNetwork(cidr: string): Network {
  let parsed: [ipaddr.IPv4 | ipaddr.IPv6, number];
  try {
    parsed = ipaddr.parseCIDR(cidr);
  } catch {
    throw new QuerySyntaxError(`"${cidr}" is not a CIDR network`, 0);
  }
  const [address, bits] = parsed;
  if (address.kind() === 'ipv4') {
    const range = ipaddr.IPv4.networkAddressFromCIDR(cidr);
    const broadcast = ipaddr.IPv4.broadcastAddressFromCIDR(cidr);
    return { kind: 'ipv4', first: range.toString(), last: broadcast.toString(), range: parsed, ipv4: { first: ipv4Number(range.toString())!, last: ipv4Number(broadcast.toString())! } };
  }
  const bytes = address.toByteArray();
  const first = bytes.map((b, i) => (i * 8 >= bits ? 0 : i * 8 + 8 <= bits ? b : b & (0xff << (8 - (bits - i * 8))) & 0xff));
  const last = bytes.map((b, i) => (i * 8 >= bits ? 0xff : i * 8 + 8 <= bits ? b : (b | (0xff >> (bits - i * 8))) & 0xff));
  return { kind: 'ipv6', first: ipaddr.fromByteArray(first).toString(), last: ipaddr.fromByteArray(last).toString(), range: parsed, ipv4: mappedIpv4(first, last) };
}

/** The IPv4-mapped addresses (::ffff:0:0/96) between two IPv6 addresses' bytes, as IPv4 numbers; null when the range holds none. */
function mappedIpv4(first: number[], last: number[]): { first: number; last: number } | null {
  const MAPPED = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];
  const compare = (a: number[], b: number[]) => {
    for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
    return 0;
  };
  const low = [...MAPPED, 0, 0, 0, 0];
  const high = [...MAPPED, 255, 255, 255, 255];
  if (compare(last, low) < 0 || compare(first, high) > 0) return null;
  const number = (bytes: number[]) => ((bytes[12]! << 24) | (bytes[13]! << 16) | (bytes[14]! << 8) | bytes[15]!) >>> 0;
  return { first: compare(first, low) < 0 ? 0 : number(first), last: compare(last, high) > 0 ? 0xffffffff : number(last) };
}

/**
 * An IPv4 address in strict dotted decimal (IPV4_PATTERN: four parts of
 * 0-255, no leading zeros) as a number; null for any other text.
 */
export function ipv4Number(value: string): number | null {
  if (value.length < 7 || value.length > 15) return null;
  let result = 0;
  let part = 0;
  let digits = 0;
  let parts = 0;
  for (let i = 0; i <= value.length; i++) {
    const code = i < value.length ? value.charCodeAt(i) : 0x2e;
    if (code === 0x2e) {
      if (digits === 0 || part > 255 || ++parts > 4) return null;
      result = result * 256 + part;
      part = 0;
      digits = 0;
    } else if (code >= 0x30 && code <= 0x39) {
      if (digits === 1 && part === 0) return null; // a leading zero
      part = part * 10 + (code - 0x30);
      if (++digits > 3) return null;
    } else return null;
  }
  return parts === 4 ? result : null;
}

/** Whether a field value is an address inside the network; an IPv4 value is also ::ffff:a.b.c.d to an IPv6 network, as the store reads it. */
export function inNetwork(value: string, network: Network): boolean {
  return inAnyNetwork(value, [network]);
}

/** Whether a field value is an address inside any of the networks, the address read once. */
export function inAnyNetwork(value: string, networks: readonly Network[]): boolean {
  const v4 = ipv4Number(value);
  if (v4 !== null) {
    for (const { ipv4 } of networks) if (ipv4 !== null && v4 >= ipv4.first && v4 <= ipv4.last) return true;
    return false;
  }
  if (!networks.some((network) => network.kind === 'ipv6')) return false;
  if (!(IPV6.test(value) && ipaddr.IPv6.isValid(value))) return false;
  const address = ipaddr.IPv6.parse(value);
  return networks.some((network) => network.kind === 'ipv6' && address.match(network.range as [ipaddr.IPv6, number]));
}
