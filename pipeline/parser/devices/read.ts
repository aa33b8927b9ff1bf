// Reading one line with a compiled device format: the syslog header before
// the payload, the payload as a record of the vendor's keys, the record as
// ECS fields (spec.ts says what each part of a format means).
import { parseExtension } from '../formats/cef.js';
import { flattenInto } from '../formats/generic-json.js';
import { canonicalIp } from '../ip.js';
import { readablePart } from '../readable.js';
import { offsetMinutes, parseSyslogHeader, syslogFields } from '../syslog-header.js';
import type { EventFields, FieldValue, ParseContext } from '../types.js';
import { lookupTable, setOwn } from '../../../lib/lookup-table.js';
import type { CompiledFormat, CompiledMessage, CompiledWhen, FieldMapping, Setter } from './spec.js';
import { fillTemplate, isNothing, setValue, timeValue } from './values.js';

/** The vendor's keys and values, and the message patterns' captures. Prototype-free: keys come from input. */
export type DeviceRecord = Record<string, string>;

/** Zone abbreviations devices print after a time ("Apr 15 2014 09:34:34 EDT:"), in minutes east of UTC; case is ignored. */
const ZONES = lookupTable<number>({
  utc: 0, gmt: 0, z: 0, wet: 0, west: 60, bst: 60, cet: 60, cest: 120, met: 60, mest: 120, eet: 120, eest: 180, msk: 180,
  est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420, akst: -540, akdt: -480, hst: -600,
  sgt: 480, hkt: 480, jst: 540, kst: 540, aest: 600, aedt: 660, nzst: 720, nzdt: 780,
});

/** A zone as devices write it: an abbreviation, or UTC/GMT with an offset ("UTC+1", "UTC+07:30", "GMT-5"). */
function zoneMinutes(text: string): number | undefined {
  const named = ZONES[text.toLowerCase()];
  if (named !== undefined) return named;
  const m = /^(?:UTC|GMT)([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(text);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3] ?? 0);
  return m[1] === '-' ? -minutes : minutes;
}

/**
 * The device's own clock at the end of a header, written after the relay's header or a
 * sequence number (Cisco IOS, NX-OS, ASA): "[*][yyyy ]Mmm dd [yyyy] hh:mm:ss[.ms][ zone]:" (or a
 * "Z" glued to the time), or an RFC 3339 time and a colon, and an optional "process[pid]:". Only the header's last characters
 * are looked at. Groups: time, "Z", zone, process, pid.
 */
const DEVICE_TIME = /(?<=^|[\s:>])[*.]?((?:\d{4} )?[A-Z][a-z]{2} +\d{1,2}(?: \d{4})? \d{2}:\d{2}:\d{2}(?:\.\d{1,9})?|\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:?\d{2})?(?=:))(?:(Z):?| ([A-Za-z]{1,5}(?:[+-]\d{1,2}(?::?\d{2})?)?):|:)(?: ([\w.-]+)\[(\d+)\]:)?$/;
const DEVICE_TIME_REACH = 96;

/** A time in ctx.timezone moved to the zone the device named. */
function inZone(timestamp: string | undefined, zone: string | undefined, ctx: ParseContext): string | undefined {
  const minutes = zone === undefined ? undefined : zoneMinutes(zone);
  if (timestamp === undefined || minutes === undefined) return timestamp;
  const assumed = offsetMinutes(ctx.timezone) ?? 0;
  return new Date(Date.parse(timestamp) + (assumed - minutes) * 60_000).toISOString();
}

/** The zone of an RFC 3339 time in a syslog header ("2022-09-01T08:15:02.1+02:00 host"). */
const HEADER_ZONE = /^(?:<\d{1,3}>)?(?:1 )?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(Z|[+-]\d\d:?\d\d)\s/;

/**
 * The syslog header before a device's payload, as ECS fields; null when the
 * prefix holds more than a header. A payload starts right after the header
 * (or a relay's second header): a marker further into a message is text that
 * someone wrote, such as a user name an attacker chose ("Failed password for
 * %ASA-6-106023: Deny tcp src outside:9.9.9.9 ..."), never a device's log.
 */
export function headerFields(prefix: string, ctx: ParseContext): EventFields | null {
  const text = prefix.trim();
  if (text === '') return {};
  const tail = text.length > DEVICE_TIME_REACH ? text.slice(-DEVICE_TIME_REACH) : text;
  const device = DEVICE_TIME.exec(tail);
  // A short word after the time that names no zone is a host ("Mar 12 08:23:00 fw:").
  if (device && (device[3] === undefined || zoneMinutes(device[3]) !== undefined)) {
    return deviceClockFields(text.slice(0, text.length - tail.length + device.index).trim(), device, ctx);
  }
  // "<189>", "<189>123: router1:", "000123:": a priority, sequence numbers and the device's name.
  if (SEQUENCE_AND_HOST.test(text)) return sequenceAndHostFields(text);
  // The header parser reads up to a message: give it a stand-in one (a prefix may end with the time's colon).
  const header = parseSyslogHeader(`${text} -`, ctx);
  if (!header) return null;
  // What the header parser left before the stand-in: nothing, a lone host (after an ISO time it takes a lone
  // word for the message's first), or a relay's second header.
  const rest = header.message.slice(0, -2).trim();
  // "gm01.example 192.0.2.50": the device's address after its name (Infoblox NIOS, relays that add the sender's).
  const named = !header.program ? HOST_AND_ADDRESS.exec(header.hostname ? `${header.hostname} ${rest}` : rest) : null;
  const hostAddress = named ? canonicalIp(named[2]!) : null;
  if (hostAddress) header.hostname = named![1];
  if (rest !== '' && !hostAddress) {
    if (!header.hostname && !header.program && !/[\s[\]<>]/.test(rest)) header.hostname = rest.replace(/:$/, '');
    else if (!headerFields(rest, ctx)) return null;
  }
  if (header.hostname && !header.program && zoneMinutes(header.hostname.replace(/:$/, '')) !== undefined) {
    header.timestamp = inZone(header.timestamp, header.hostname.replace(/:$/, ''), ctx);
    header.hostname = undefined;
  }
  const fields: EventFields = syslogFields(header);
  delete fields.message;
  if (hostAddress) fields['host.ip'] = hostAddress;
  return fields;
}

const TRAILING_ZONE = / ([A-Za-z]{3,5})$/;
const HOST_AND_ADDRESS = /^([A-Za-z0-9][\w.-]*) (\S+)$/;

/** A header of "<pri>", sequence numbers and the device's name, each ending in a colon (Cisco IOS without a clock, or before one). */
const SEQUENCE_AND_HOST = /^(?:<\d{1,3}>)?[:\s]*(?:[\w./-]{1,64}:\s*){0,4}$/;

function sequenceAndHostFields(text: string): EventFields {
  const fields: EventFields = {};
  const pri = /^<(\d{1,3})>/.exec(text);
  if (pri) fields['log.syslog.priority'] = Number(pri[1]);
  const host = text
    .replace(/^<\d{1,3}>/, '')
    .split(':')
    .map((part) => part.trim())
    .find((part) => /^[A-Za-z][\w.-]*$/.test(part));
  if (host) fields['host.hostname'] = host;
  return fields;
}

/**
 * A header that ends with the device's clock: that time (in the zone it names) is the
 * event's. Before it: nothing, "<pri>", sequence numbers ("000123:") and the device's
 * name ("router1:"), or a relay's syslog header; anything else is no header (null).
 */
function deviceClockFields(before: string, device: RegExpExecArray, ctx: ParseContext): EventFields | null {
  const fields = headerFields(before, ctx);
  if (!fields) return null;
  // What a relay's header took for a program is a sequence number or a node name ("RP/0/RP0/CPU0").
  delete fields['process.name'];
  delete fields['process.pid'];
  // NX-OS puts the year first ("2024 Jan  6 20:52:12"); the header parser reads it after the day.
  const written = device[1]!.replace(/^(\d{4}) ([A-Z][a-z]{2} +\d{1,2})/, '$2 $1');
  const clock = parseSyslogHeader(`${written} -`, ctx);
  const time = inZone(clock?.timestamp, device[3] ?? device[2], ctx);
  if (time) fields['@timestamp'] = time;
  if (device[4]) fields['process.name'] = device[4];
  if (device[5]) fields['process.pid'] = Number(device[5]);
  return fields;
}

function unquote(value: string): string {
  const q = value[0];
  if ((q === '"' || q === "'") && value.length >= 2 && value.endsWith(q)) return value.slice(1, -1).replace(/\\(.)/g, '$1');
  return value;
}

function readKv(format: CompiledFormat, payload: string, record: DeviceRecord): void {
  for (const m of payload.matchAll(format.kvPair!)) {
    // The first of a repeated key wins: a later "src zone=" does not undo "src=".
    if (record[m[1]!] === undefined) setOwn(record, m[1]!, unquote(m[2]!.trim()));
  }
}

/**
 * The first `count` fields of one CSV line: a field in double quotes may hold
 * the delimiter and "" for a quote; a quote inside an unquoted field is text.
 * Linear in the line and stops after the fields a variant names (a general CSV
 * parser costs far more per line than the rest of a device format).
 */
export function csvFields(line: string, delimiter: string, count: number): string[] {
  const fields: string[] = [];
  let i = 0;
  while (fields.length < count && i <= line.length) {
    if (line[i] === '"') {
      let value = '';
      let j = i + 1;
      for (;;) {
        const quote = line.indexOf('"', j);
        if (quote < 0) {
          value += line.slice(j);
          j = line.length;
          break;
        }
        value += line.slice(j, quote);
        if (line[quote + 1] === '"') {
          value += '"';
          j = quote + 2;
        } else if (quote + 1 === line.length || line[quote + 1] === delimiter) {
          j = quote + 1;
          break;
        } else {
          value += '"';
          j = quote + 1;
        }
      }
      fields.push(value);
      i = j + 1;
    } else {
      const end = line.indexOf(delimiter, i);
      fields.push(line.slice(i, end < 0 ? line.length : end));
      i = end < 0 ? line.length + 1 : end + 1;
    }
  }
  return fields;
}

function readCsv(format: CompiledFormat, payload: string, record: DeviceRecord): string | undefined {
  const csv = format.csv!;
  const variant = csv.variants.find((v) => !v.when || v.when.test(payload));
  if (!variant) return undefined;
  const values = csvFields(payload, csv.delimiter, variant.columns.length);
  variant.columns.forEach((name, i) => {
    const value = values[i];
    if (name !== '' && value !== undefined && record[name] === undefined) setOwn(record, name, value);
  });
  return variant.name;
}

/**
 * A JSON object's fields under dotted names, as text (a list joined by commas), those under `unwrap`
 * also without its prefix; false when the payload is no object.
 */
function readJson(payload: string, record: DeviceRecord, unwrap: string | undefined): boolean {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return false;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const flat: EventFields = {};
  flattenInto(flat, value as Record<string, unknown>, '');
  const prefix = unwrap === undefined ? undefined : `${unwrap}.`;
  for (const [key, v] of Object.entries(flat)) {
    const text = Array.isArray(v) ? v.join(',') : String(v);
    setOwn(record, key, text);
    if (prefix !== undefined && key.startsWith(prefix)) setOwn(record, key.slice(prefix.length), text);
  }
  return true;
}

const OCTAL_ESCAPE = /\\([0-3][0-7]{2})/g;

/** "fefdn\040wdbj" to "fefdn wdbj": the octal escapes devices and syslog daemons write for spaces and colons. */
export function unescapeOctal(value: string): string {
  return value.includes('\\') ? value.replace(OCTAL_ESCAPE, (_, octal: string) => String.fromCharCode(Number.parseInt(octal, 8))) : value;
}

function holds(when: CompiledWhen, record: DeviceRecord): boolean {
  for (const [key, test] of when) if (!test(record[key])) return false;
  return true;
}

function applySetters(setters: Setter[], record: DeviceRecord, fields: EventFields, ctx: ParseContext): void {
  for (const { field, template } of setters) {
    if (template === null) {
      delete fields[field];
      continue;
    }
    const value = fillTemplate(template, record);
    if (value === undefined) continue;
    // Filled text goes through the field's kind (an address template becomes a canonical IP).
    if (typeof template === 'string' && template.includes('$') && typeof value === 'string') setValue(fields, field, 'auto', value, ctx);
    else fields[field] = value as FieldValue;
  }
}

/** The line as ECS fields by `format`, whose start pattern matched at `start`; null when what precedes it is no header. */
export function readWithFormat(format: CompiledFormat, raw: string, start: RegExpExecArray, ctx: ParseContext): EventFields | null {
  const fields = headerFields(raw.slice(0, start.index), ctx);
  if (!fields) return null;
  const payload = raw.slice(start.index + start[0].length).trimEnd();
  const record = Object.create(null) as DeviceRecord;
  const startGroups = start.groups;
  if (startGroups) for (const key in startGroups) if (startGroups[key] !== undefined) record[key] = startGroups[key];
  fields['event.kind'] = 'event';
  if (format.observer) {
    fields['observer.vendor'] = format.observer.vendor;
    fields['observer.product'] = format.observer.product;
    if (format.observer.type) fields['observer.type'] = format.observer.type;
  }
  if (fields['host.hostname'] !== undefined) fields['observer.hostname'] = fields['host.hostname'];

  record['@payload'] = payload;
  if (format.layout === 'kv') readKv(format, payload, record);
  else if (format.layout === 'csv') readCsv(format, payload, record);
  else if (format.layout === 'json') {
    if (!readJson(payload, record, format.unwrap)) return null;
  } else if (format.layout === 'cef') {
    for (const [key, value] of parseExtension(payload)) if (record[key] === undefined) setOwn(record, key, value);
  } else {
    record.message = payload;
    if (format.kvPair) readKv(format, payload, record);
  }
  if (!holds(format.require, record)) return null;

  const messageSets: Setter[][] = [];
  for (const message of candidateMessages(format, record)) {
    const value = record[message.on];
    const text = value === undefined ? undefined : readablePart(value);
    if (text === undefined || (message.contains && !text.includes(message.contains)) || !holds(message.when, record)) continue;
    const m = message.regex.exec(text);
    if (!m) continue;
    const groups = m.groups;
    if (groups) for (const key in groups) if (groups[key] !== undefined) setOwn(record, key, groups[key]);
    messageSets.push(message.set);
    if (!message.continue) break;
  }

  if (format.unescape === 'octal') for (const key in record) record[key] = unescapeOctal(record[key]!);

  // The device's time first: values such as a duration that ended at it are placed against it.
  if (format.time) {
    const parts = format.time.from.map((key) => record[key]);
    if (parts.every((p) => p !== undefined && !isNothing(p))) {
      const zone = format.time.zone ? record[format.time.zone] : undefined;
      // The device's clock wrote both times: a zone the header's time names holds for the payload's time too.
      const headerZone = HEADER_ZONE.exec(raw.slice(0, start.index))?.[1];
      const timeCtx = headerZone ? { ...ctx, timezone: headerZone } : ctx;
      const text = zone ? `${parts.join(' ')} ${zone}` : parts.join(' ');
      // "2026-01-20 09:12:01.560 EST": a zone abbreviation after the time (PostgreSQL's csvlog) places it.
      const named = TRAILING_ZONE.exec(text);
      const time =
        named && zoneMinutes(named[1]!) !== undefined
          ? inZone(timeValue(text.slice(0, named.index), timeCtx, format.time.format), named[1], timeCtx)
          : timeValue(text, timeCtx, format.time.format);
      if (time) fields['@timestamp'] = time;
    }
  }

  for (const mapping of mappingsFor(format, record)) {
    const value = record[mapping.key]!;
    if (mapping.when && !holds(mapping.when, record)) continue;
    if (mapping.map) {
      const mapped = mapping.map.get(value.trim().toLowerCase());
      if (mapped === null || mapped === undefined) continue;
      if (typeof mapped === 'string') setValue(fields, mapping.to, mapping.kind, mapped, ctx);
      else fields[mapping.to] = mapped;
    } else {
      setValue(fields, mapping.to, mapping.kind, value, ctx);
    }
  }

  for (const rule of format.rules) if (holds(rule.when, record)) applySetters(rule.set, record, fields, ctx);
  for (const set of messageSets) applySetters(set, record, fields, ctx);
  finish(fields);
  return fields;
}

/** The messages a record can match, in the format's order: all of them, or those its index files under the record's value. */
function candidateMessages(format: CompiledFormat, record: DeviceRecord): readonly CompiledMessage[] {
  const index = format.messageIndex;
  if (!index) return format.messages;
  const value = record[index.key];
  const filed = value === undefined ? undefined : (index.byValue.get(value) ?? index.byValue.get(value.toLowerCase()));
  if (!filed) return index.always.map((i) => format.messages[i]!);
  const places = index.always.length === 0 ? filed : [...filed, ...index.always].sort((a, b) => a - b);
  return places.map((i) => format.messages[i]!);
}

/** The field mappings of the keys the record has, in the format's order (a later mapping of a field wins). */
function mappingsFor(format: CompiledFormat, record: DeviceRecord): FieldMapping[] {
  const hit = new Uint8Array(format.fields.length);
  for (const key in record) {
    const mappings = format.fieldsByKey.get(key);
    if (mappings) for (const [place] of mappings) hit[place] = 1;
  }
  const found: FieldMapping[] = [];
  for (let place = 0; place < hit.length; place++) if (hit[place] === 1) found.push(format.fields[place]!);
  return found;
}

/** Ports mean nothing for ICMP and the like: a device's "port" there is a type or an id. */
const PORTLESS = new Set(['icmp', 'ipv6-icmp', 'igmp', 'gre', 'esp', 'ah', 'ospf', 'pim', 'vrrp']);

/** Devices write the unspecified address (and port 0) for "not translated". */
const NO_NAT = new Set(['0.0.0.0', '::']);

/** What holds for every device: NAT equal to the real address, or to nothing, is no NAT; network.type from the addresses. */
/** The NAT and port field names of each side, made once. */
const SIDES = ['source', 'destination'].map((side) => ({ ip: `${side}.ip`, port: `${side}.port`, natIp: `${side}.nat.ip`, natPort: `${side}.nat.port` }));
const PORT_FIELDS = ['source.port', 'destination.port', 'source.nat.port', 'destination.nat.port'];

function finish(fields: EventFields): void {
  for (const side of SIDES) {
    const natIp = fields[side.natIp];
    if (natIp === undefined) {
      if (fields[side.natPort] !== undefined) delete fields[side.natPort];
      continue;
    }
    const samePort = (fields[side.natPort] ?? fields[side.port]) === fields[side.port];
    if (NO_NAT.has(String(natIp)) || (natIp === fields[side.ip] && samePort)) {
      delete fields[side.natIp];
      if (fields[side.natPort] !== undefined) delete fields[side.natPort];
    }
  }
  const transport = fields['network.transport'];
  if (typeof transport === 'string' && PORTLESS.has(transport)) {
    for (const field of PORT_FIELDS) if (fields[field] !== undefined) delete fields[field];
  }
  const ip = fields['source.ip'] ?? fields['destination.ip'];
  if (typeof ip === 'string' && fields['network.type'] === undefined) fields['network.type'] = ip.includes(':') ? 'ipv6' : 'ipv4';
}
