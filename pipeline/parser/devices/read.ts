// Reading one line with a compiled device format: the syslog header before
// the payload, the payload as a record of the vendor's keys, the record as
// ECS fields (spec.ts says what each part of a format means).
import { parseExtension } from '../formats/cef.js';
import { flattenInto } from '../formats/generic-json.js';
import { offsetMinutes, parseSyslogHeader, syslogFields } from '../syslog-header.js';
import type { EventFields, FieldValue, ParseContext } from '../types.js';
import { lookupTable, setOwn } from '../../../lib/lookup-table.js';
import type { CompiledFormat, CompiledWhen, Setter } from './spec.js';
import { fillTemplate, isNothing, setValue, timeValue } from './values.js';

/** The vendor's keys and values, and the message patterns' captures. Prototype-free: keys come from input. */
export type DeviceRecord = Record<string, string>;

/** Zone abbreviations devices print after a header's time ("Apr 15 2014 09:34:34 EDT:"), which syslog reads as a host. */
const ZONES = lookupTable<number>({ UTC: 0, GMT: 0, EST: -300, EDT: -240, CST: -360, CDT: -300, MST: -420, MDT: -360, PST: -480, PDT: -420, CET: 60, CEST: 120 });

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
  const pri = /^<(\d{1,3})>:?$/.exec(text);
  if (pri) return { 'log.syslog.priority': Number(pri[1]) };
  // The header parser reads up to a message: give it a stand-in one (a prefix may end with the time's colon).
  const header = parseSyslogHeader(`${text} -`, ctx);
  if (!header) return null;
  // What the header parser left before the stand-in: nothing, a lone host (after an ISO time it takes a lone
  // word for the message's first), or a relay's second header.
  const rest = header.message.slice(0, -2).trim();
  if (rest !== '') {
    if (!header.hostname && !header.program && !/[\s[\]<>]/.test(rest)) header.hostname = rest.replace(/:$/, '');
    else if (!headerFields(rest, ctx)) return null;
  }
  const zone = header.hostname ? ZONES[header.hostname.replace(/:$/, '')] : undefined;
  if (zone !== undefined && header.timestamp && !header.program) {
    const assumed = offsetMinutes(ctx.timezone) ?? 0;
    header.timestamp = new Date(Date.parse(header.timestamp) + (assumed - zone) * 60_000).toISOString();
    header.hostname = undefined;
  }
  const fields: EventFields = syslogFields(header);
  delete fields.message;
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
    if (record[m[1]!] === undefined) setOwn(record, m[1]!, unquote(m[2]!));
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
  for (const [key, value] of Object.entries(start.groups ?? {})) if (value !== undefined) record[key] = value;
  fields['event.kind'] = 'event';
  if (format.observer) {
    fields['observer.vendor'] = format.observer.vendor;
    fields['observer.product'] = format.observer.product;
    if (format.observer.type) fields['observer.type'] = format.observer.type;
  }
  if (fields['host.hostname'] !== undefined) fields['observer.hostname'] = fields['host.hostname'];

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
  for (const message of format.messages) {
    const text = record[message.on];
    if (text === undefined || (message.contains && !text.includes(message.contains)) || !holds(message.when, record)) continue;
    const m = message.regex.exec(text);
    if (!m) continue;
    for (const [key, value] of Object.entries(m.groups ?? {})) if (value !== undefined) setOwn(record, key, value);
    messageSets.push(message.set);
    if (!message.continue) break;
  }

  for (const mapping of format.fields) {
    const value = record[mapping.key];
    if (value === undefined || (mapping.when && !holds(mapping.when, record))) continue;
    if (mapping.map) {
      const mapped = mapping.map.get(value.trim().toLowerCase());
      if (mapped === null || mapped === undefined) continue;
      if (typeof mapped === 'string') setValue(fields, mapping.to, mapping.kind, mapped, ctx);
      else fields[mapping.to] = mapped;
    } else {
      setValue(fields, mapping.to, mapping.kind, value, ctx);
    }
  }

  if (format.time) {
    const parts = format.time.from.map((key) => record[key]);
    if (parts.every((p) => p !== undefined && !isNothing(p))) {
      const zone = format.time.zone ? record[format.time.zone] : undefined;
      // The device's clock wrote both times: a zone the header's time names holds for the payload's time too.
      const headerZone = HEADER_ZONE.exec(raw.slice(0, start.index))?.[1];
      const timeCtx = headerZone ? { ...ctx, timezone: headerZone } : ctx;
      const time = timeValue(zone ? `${parts.join(' ')} ${zone}` : parts.join(' '), timeCtx, format.time.format);
      if (time) fields['@timestamp'] = time;
    }
  }

  for (const rule of format.rules) if (holds(rule.when, record)) applySetters(rule.set, record, fields, ctx);
  for (const set of messageSets) applySetters(set, record, fields, ctx);
  finish(fields);
  return fields;
}

/** Ports mean nothing for ICMP and the like: a device's "port" there is a type or an id. */
const PORTLESS = new Set(['icmp', 'ipv6-icmp', 'igmp', 'gre', 'esp', 'ah', 'ospf', 'pim', 'vrrp']);

/** Devices write the unspecified address (and port 0) for "not translated". */
const NO_NAT = new Set(['0.0.0.0', '::']);

/** What holds for every device: NAT equal to the real address, or to nothing, is no NAT; network.type from the addresses. */
function finish(fields: EventFields): void {
  for (const side of ['source', 'destination']) {
    const natIp = fields[`${side}.nat.ip`];
    const samePort = (fields[`${side}.nat.port`] ?? fields[`${side}.port`]) === fields[`${side}.port`];
    if (natIp !== undefined && (NO_NAT.has(String(natIp)) || (natIp === fields[`${side}.ip`] && samePort))) delete fields[`${side}.nat.ip`];
    if (fields[`${side}.nat.ip`] === undefined) delete fields[`${side}.nat.port`];
  }
  const transport = fields['network.transport'];
  if (typeof transport === 'string' && PORTLESS.has(transport)) {
    delete fields['source.port'];
    delete fields['destination.port'];
  }
  const ip = fields['source.ip'] ?? fields['destination.ip'];
  if (typeof ip === 'string' && fields['network.type'] === undefined) fields['network.type'] = ip.includes(':') ? 'ipv6' : 'ipv4';
}
