// How a vendor's value becomes an ECS value: the kinds a device format's
// field map can name (`as:`), and the kind each ECS field takes by default.
import { deviceTime } from '../formats/device-event.js';
import { canonicalIp, canonicalMac } from '../ip.js';
import type { EventFields, FieldValue, ParseContext } from '../types.js';
import { lookupTable } from '../../../lib/lookup-table.js';

export const VALUE_KINDS = [
  /** By the ECS field: addresses for *.ip, numbers for ports and counts, arrays for event.category/type, else text. */
  'auto',
  'string',
  'lower',
  'number',
  /** An IP (canonical) or, for a host name, the `.domain` beside the `.ip` field. */
  'address',
  /** An IP (canonical) only: anything else is left out (a NAT address the device may print as a pool name). */
  'ip',
  /** "ip:port", "ip:port:interface", "ip/port", "[v6]:port": `to` is the prefix ("source"). */
  'endpoint',
  /** A protocol name or IANA number: network.transport (lower case) and network.iana_number. */
  'transport',
  /** "DOMAIN\user", "user@domain" or a bare name: `to` is the prefix ("user", "source.user"). */
  'identity',
  /**
   * Who or what an identity-aware firewall names beside an address: "DOMAIN\\user" (or a bare
   * name) is <to>.user.name/.domain, a dotted host name is <to>.domain, an address is
   * nothing; what follows a comma (a security group) is left out. `to` is "source" or "destination".
   */
  'user_or_host',
  /** "h:mm:ss", "1h:24m:30s" or seconds: event.duration in nanoseconds. */
  'duration',
  /** A duration that ended when the event was logged: event.duration, and event.start/end from @timestamp. */
  'duration_ended',
  /** A MAC address in any usual form ("001e.0b80.13b5", "00:1e:0b:80:13:b5"): ECS's "00-1E-0B-80-13-B5". */
  'mac',
  /** A URL: url.original, and url.domain, url.path, url.query when it parses (also "host/path" without a scheme). */
  'url',
  /** A time in any form the device writes: ISO 8601 UTC. */
  'time',
  /** A comma-separated list. */
  'list',
  /** A MAC address in any common notation ("0004A34473BF", "00:04:a3:44:73:bf", "0004.a344.73bf"): ECS's "00-04-A3-44-73-BF". */
  'mac',
] as const;
export type ValueKind = (typeof VALUE_KINDS)[number];

/** What devices write for "no value". */
const NOTHING = new Set(['', '-', 'N/A', 'n/a', 'NA', 'null', 'NULL', '(null)', 'undefined', 'none-', '?']);

export function isNothing(value: string): boolean {
  return NOTHING.has(value);
}

const NUMERIC_SUFFIXES = ['.port', '.bytes', '.packets', '.pid', '.ppid', '.status_code', '.iana_number', '.count', '.severity', '.code_number'];
const NUMERIC_FIELDS = new Set(['event.severity', 'event.duration', 'network.bytes', 'network.packets', 'event.risk_score', 'http.response.status_code', 'http.request.bytes', 'http.response.bytes', 'vlan.id']);
const ARRAY_FIELDS = new Set(['event.category', 'event.type', 'related.ip', 'related.user', 'related.hosts', 'tags']);

/** defaultKind by field name, remembered: the same few dozen fields are set on every line. */
const KINDS = new Map<string, ValueKind>();

export function kindOf(field: string): ValueKind {
  let kind = KINDS.get(field);
  if (kind === undefined) {
    kind = defaultKind(field);
    if (KINDS.size < 10_000) KINDS.set(field, kind);
  }
  return kind;
}

function defaultKind(field: string): ValueKind {
  if (field.endsWith('.ip')) return 'address';
  if (NUMERIC_FIELDS.has(field) || NUMERIC_SUFFIXES.some((s) => field.endsWith(s))) return 'number';
  if (ARRAY_FIELDS.has(field)) return 'list';
  if (field === 'network.transport') return 'transport';
  if (field === 'url.original') return 'url';
  if (field === '@timestamp' || field === 'event.start' || field === 'event.end') return 'time';
  return 'string';
}

const HOST_NAME = /^[A-Za-z0-9_](?:[A-Za-z0-9._-]*[A-Za-z0-9])?$/;

/** An address field: the canonical IP, or, for a host name, the `.domain` beside it. */
function setAddress(fields: EventFields, field: string, value: string): void {
  const ip = canonicalIp(value);
  if (ip) fields[field] = ip;
  else if (field.endsWith('.ip') && HOST_NAME.test(value) && /[A-Za-z]/.test(value)) fields[`${field.slice(0, -3)}.domain`] = value.toLowerCase();
}

// "1.2.3.4:80", "1.2.3.4:80:X1" (SonicWall; "1.2.3.4::X1" without a port, "1.2.3.4:80:X1:host" with the
// name it resolved), "1.2.3.4/80", "[2001:db8::1]:80", or a bare address.
const ENDPOINT_V4 = /^(\d{1,3}(?:\.\d{1,3}){3})(?:[:/](\d{0,5}))?(?::([^:\s]+)(?::(\S+))?)?$/;
const ENDPOINT_V6 = /^\[([0-9A-Fa-f:.]+)\](?::(\d{1,5}))?$/;

function setEndpoint(fields: EventFields, prefix: string, value: string): void {
  const m = ENDPOINT_V4.exec(value) ?? ENDPOINT_V6.exec(value);
  if (!m) return setAddress(fields, `${prefix}.ip`, value);
  setAddress(fields, `${prefix}.ip`, m[1]!);
  if (m[2] !== undefined) setNumber(fields, `${prefix}.port`, m[2]);
  if (m[3] !== undefined) fields[`${prefix}.interface.name`] = m[3];
  if (m[4] !== undefined && HOST_NAME.test(m[4])) fields[`${prefix}.domain`] = m[4].toLowerCase();
}

function setNumber(fields: EventFields, field: string, value: string): void {
  if (!/^-?\d+(?:\.\d+)?$/.test(value)) return;
  const n = Number(value);
  if (field.endsWith('.port') && (n < 0 || n > 65535)) return;
  fields[field] = n;
}

const IANA = lookupTable<string>({ '1': 'icmp', '2': 'igmp', '6': 'tcp', '17': 'udp', '41': 'ipv6', '47': 'gre', '50': 'esp', '51': 'ah', '58': 'ipv6-icmp', '89': 'ospf', '103': 'pim', '112': 'vrrp', '132': 'sctp' });
const IANA_NUMBER = lookupTable<string>(Object.fromEntries(Object.entries(IANA).map(([n, name]) => [name, n])));
const TRANSPORT_ALIASES = lookupTable<string>({ icmpv6: 'ipv6-icmp', icmp6: 'ipv6-icmp', 'ipv6-icmp': 'ipv6-icmp', ipv6icmp: 'ipv6-icmp' });

function transportName(word: string): string | undefined {
  return /^\d{1,3}$/.test(word) ? IANA[word] : (TRANSPORT_ALIASES[word] ?? word);
}

/**
 * network.transport and network.iana_number from "TCP", "6", "protocol 17" or "proto-6". Of a pair
 * naming a transport and an application ("tcp/http" on SonicWall, "HTTP/tcp" on WatchGuard), the
 * transport is the one IANA numbers and the other is network.protocol.
 */
export function setTransport(fields: EventFields, value: string): void {
  const text = value.trim().toLowerCase().replace(/^(?:protocol |proto-?)/, '');
  const words = text.split(/[/\s]/).filter((w) => w !== '');
  const known = text.includes('/') ? words.findIndex((w) => IANA_NUMBER[transportName(w) ?? ''] !== undefined) : -1;
  const word = words[Math.max(known, 0)];
  const name = word === undefined ? undefined : transportName(word);
  if (!name || !/^[a-z][a-z0-9-]*$/.test(name)) return;
  fields['network.transport'] = name;
  const number = /^\d{1,3}$/.test(word!) ? word : IANA_NUMBER[name];
  if (number) fields['network.iana_number'] = number;
  const application = known >= 0 ? words.find((w, i) => i !== known && /^[a-z][a-z0-9-]*$/.test(w)) : undefined;
  if (application) fields['network.protocol'] = application;
}

/** "DOMAIN\user" or "user@domain" to <prefix>.name and <prefix>.domain; a bare name to <prefix>.name. */
function setIdentity(fields: EventFields, prefix: string, value: string): void {
  const slash = value.lastIndexOf('\\');
  if (slash > 0) {
    fields[`${prefix}.domain`] = value.slice(0, slash).replace(/\\+$/, '');
    fields[`${prefix}.name`] = value.slice(slash + 1);
    return;
  }
  const at = value.lastIndexOf('@');
  if (at > 0 && at < value.length - 1 && /^[A-Za-z0-9.-]+$/.test(value.slice(at + 1))) {
    fields[`${prefix}.name`] = value.slice(0, at);
    fields[`${prefix}.domain`] = value.slice(at + 1);
    return;
  }
  fields[`${prefix}.name`] = value;
}

// "1h:24m:30s", "0h:00m:15s", "2d 3h:04m:05s", "45s".
const DURATION_UNITS = /^(?:(\d+)d\s*)?(?:(\d+)h:?)?(?:(\d+)m:?)?(?:(\d+(?:\.\d+)?)s)?$/;

const FQDN = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+\.?$/;

function setUserOrHost(fields: EventFields, prefix: string, value: string): void {
  const text = value.split(',')[0]!.trim();
  if (text === '' || text.includes('/') || canonicalIp(text)) return;
  if (!text.includes('\\') && !text.includes('@') && FQDN.test(text)) {
    fields[`${prefix}.domain`] ??= text.replace(/\.$/, '').toLowerCase();
    return;
  }
  setIdentity(fields, `${prefix}.user`, text);
}

function durationSeconds(text: string): number | undefined {
  if (/^\d+(?:\.\d+)?$/.test(text)) return Number(text);
  const units = DURATION_UNITS.exec(text);
  if (units && text !== '') return Number(units[1] ?? 0) * 86_400 + Number(units[2] ?? 0) * 3600 + Number(units[3] ?? 0) * 60 + Number(units[4] ?? 0);
  const parts = text.split(':');
  if (parts.length < 2 || parts.length > 4 || !parts.every((p) => /^\d+$/.test(p))) return undefined;
  return parts.reduce((total, part) => total * 60 + Number(part), 0);
}

// A URL some devices write without its scheme: "www.example.com/path", "10.0.0.1:8080/", "example.com".
const SCHEMELESS = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z][A-Za-z0-9-]*\.?(?::\d{1,5})?(?:[/?#]|$)|^\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?(?:[/?#]|$)/;

function setUrl(fields: EventFields, value: string): void {
  fields['url.original'] = value;
  const absolute = /^[a-z][a-z0-9+.-]*:\/\//i.test(value);
  const hostFirst = !absolute && SCHEMELESS.test(value);
  try {
    const url = new URL(absolute ? value : hostFirst ? `http://${value}` : `http://host${value.startsWith('/') ? '' : '/'}${value}`);
    if ((absolute || hostFirst) && url.hostname) fields['url.domain'] = url.hostname.replace(/^\[|\]$/g, '');
    if (absolute || hostFirst || value.startsWith('/')) {
      fields['url.path'] = decodeSafely(url.pathname);
      if (url.search.length > 1) fields['url.query'] = url.search.slice(1);
    }
  } catch {
    // Not a URL the WHATWG parser takes: url.original keeps it.
  }
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A device's time value to ISO 8601: epoch s/ms/µs/ns, a SimpleDateFormat, or the common log forms. */
export function timeValue(text: string, ctx: ParseContext, format?: string): string | undefined {
  if (/^\d{16}$/.test(text)) return new Date(Math.floor(Number(text) / 1000)).toISOString();
  if (/^\d{19}$/.test(text)) return new Date(Number(text.slice(0, 13))).toISOString();
  return deviceTime(text, format, ctx);
}

/** Sets `field` from a vendor's `value` as `kind` says. */
export function setValue(fields: EventFields, field: string, kind: ValueKind, value: string, ctx: ParseContext): void {
  // Most values have no surrounding space: no copy made for them.
  const text = value.length > 0 && (value.charCodeAt(0) <= 32 || value.charCodeAt(value.length - 1) <= 32) ? value.trim() : value;
  if (isNothing(text)) return;
  switch (kind === 'auto' ? kindOf(field) : kind) {
    case 'address':
      return setAddress(fields, field, text);
    case 'ip': {
      const ip = canonicalIp(text);
      if (ip) fields[field] = ip;
      return;
    }
    case 'endpoint':
      return setEndpoint(fields, field, text);
    case 'number':
      return setNumber(fields, field, text);
    case 'transport':
      return setTransport(fields, text);
    case 'identity':
      return setIdentity(fields, field, text);
    case 'user_or_host':
      return setUserOrHost(fields, field, text);
    case 'duration':
    case 'duration_ended': {
      const seconds = durationSeconds(text);
      if (seconds === undefined) return;
      fields[field] = Math.round(seconds * 1e9);
      const end = fields['@timestamp'];
      if (kind === 'duration_ended' && typeof end === 'string') {
        fields['event.end'] = end;
        fields['event.start'] = new Date(Date.parse(end) - Math.round(seconds * 1000)).toISOString();
      }
      return;
    }
    case 'url':
      return setUrl(fields, text);
    case 'mac': {
      const mac = canonicalMac(text);
      if (mac) fields[field] = mac;
      return;
    }
    case 'time': {
      const time = timeValue(text, ctx);
      if (time) fields[field] = time;
      return;
    }
    case 'list':
      fields[field] = text.split(',').map((v) => v.trim()).filter((v) => v !== '');
      return;
    case 'lower':
      fields[field] = text.toLowerCase();
      return;
    case 'mac': {
      const mac = canonicalMac(text);
      if (mac) fields[field] = mac;
      return;
    }
    default:
      fields[field] = text;
  }
}

/** A `set` template's value: a constant, or text with $key / ${key} filled from the record; undefined when a key it names is missing. */
export function fillTemplate(template: FieldValue, record: Readonly<Record<string, string>>): FieldValue | undefined {
  if (typeof template !== 'string' || !template.includes('$')) return template;
  let missing = false;
  const value = template.replace(/\$\{([\w.-]+)\}|\$([A-Za-z_][\w]*)/g, (_, braced: string | undefined, bare: string | undefined) => {
    const v = record[(braced ?? bare)!];
    if (v === undefined || isNothing(v)) missing = true;
    return v ?? '';
  });
  return missing ? undefined : value;
}
