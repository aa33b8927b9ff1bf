// What CEF and LEEF share: the syslog header that usually precedes them, the
// device's own time formats, severities and outcomes written in words.
import { parseLogTime } from '../envelope.js';
import { canonicalIp } from '../ip.js';
import { parseSyslogHeader, syslogFields } from '../syslog-header.js';
import type { EventFields, ParseContext } from '../types.js';
import { lookupTable } from '../../../lib/lookup-table.js';
import { escapeRegExp } from '../../../lib/regex-escape.js';

const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

/** The fields of the syslog header before "CEF:" or "LEEF:" (time, host, priority); none without one. */
export function deviceEventEnvelope(prefix: string, ctx: ParseContext): EventFields {
  const text = prefix.trim();
  if (!text) return {};
  // The header ends where the event starts: parse it with a stand-in message.
  const header = parseSyslogHeader(`${text} -`, ctx);
  if (!header) return {};
  const fields = syslogFields(header);
  delete fields.message;
  return fields;
}

/** An address field: the canonical IP, or, for a host name in an address field, its domain twin. */
export function setAddress(fields: EventFields, field: string, value: string): void {
  const ip = canonicalIp(value);
  if (ip) fields[field] = ip;
  else if (HOST_NAME.test(value) && field.endsWith('.ip')) fields[field.replace(/\.ip$/, '.domain')] = value.toLowerCase();
}

const SEVERITY_WORDS = lookupTable<number>({ unknown: 0, low: 3, medium: 5, high: 8, 'very-high': 10, veryhigh: 10, critical: 10 });

/** CEF 0-10 (or Low/Medium/High/Very-High), LEEF 1-10: event.severity as a number. */
export function setSeverity(fields: EventFields, value: string | undefined): void {
  if (!value) return;
  const n = /^\d{1,2}$/.test(value) ? Number(value) : SEVERITY_WORDS[value.toLowerCase()];
  if (n !== undefined && n <= 10) fields['event.severity'] = n;
}

/** outcome/act words to ECS event.outcome; unknown words leave it unset. */
export function setOutcome(fields: EventFields, value: string | undefined): void {
  const word = value?.toLowerCase().replace(/^\//, '');
  if (!word) return;
  if (/^(?:success|succeeded|successful|allow(?:ed)?|accept(?:ed)?|pass(?:ed)?|permit(?:ted)?|ok)$/.test(word)) fields['event.outcome'] = 'success';
  else if (/^(?:fail(?:ed|ure)?|den(?:y|ied)|drop(?:ped)?|block(?:ed)?|reject(?:ed)?|refused?)$/.test(word)) fields['event.outcome'] = 'failure';
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
// Java SimpleDateFormat letters LEEF's devTimeFormat uses, and what each reads.
const FORMAT_TOKENS: [RegExp, string, string][] = [
  [/^yyyy/, '(\\d{4})', 'year'],
  [/^yy/, '(\\d{2})', 'year2'],
  [/^MMM+/, '([A-Za-z]{3,9})', 'monthName'],
  [/^MM?/, '(\\d{1,2})', 'month'],
  [/^dd?/, '(\\d{1,2})', 'day'],
  [/^HH?/, '(\\d{1,2})', 'hour'],
  [/^mm?/, '(\\d{1,2})', 'minute'],
  [/^ss?/, '(\\d{1,2})', 'second'],
  [/^S+/, '(\\d{1,9})', 'fraction'],
  [/^(?:z+|Z+|X+)/, '(Z|[A-Z]{3,4}|[+-]\\d{2}:?\\d{2})', 'zone'],
];

/** A time written per a SimpleDateFormat pattern, e.g. "MMM dd yyyy HH:mm:ss.SSS z"; undefined when it does not fit. */
export function parseWithFormat(text: string, format: string): string | undefined {
  let source = '^';
  const parts: string[] = [];
  for (let rest = format; rest.length > 0; ) {
    const token = FORMAT_TOKENS.find(([t]) => t.test(rest));
    if (token) {
      const length = token[0].exec(rest)![0].length;
      source += token[1];
      parts.push(token[2]);
      rest = rest.slice(length);
    } else if (rest.startsWith("'")) {
      const end = rest.indexOf("'", 1);
      source += escapeRegExp(end < 0 ? rest.slice(1) : rest.slice(1, end));
      rest = end < 0 ? '' : rest.slice(end + 1);
    } else {
      source += escapeRegExp(rest[0]!);
      rest = rest.slice(1);
    }
  }
  const m = new RegExp(`${source}$`).exec(text.trim());
  if (!m) return undefined;
  const v: Record<string, string> = {};
  parts.forEach((p, i) => (v[p] = m[i + 1]!));
  const year = v.year ? Number(v.year) : v.year2 ? 2000 + Number(v.year2) : NaN;
  const month = v.monthName ? MONTHS.indexOf(v.monthName.slice(0, 3).toLowerCase()) : Number(v.month) - 1;
  const zone = v.zone === undefined || v.zone === 'Z' || v.zone === 'UTC' || v.zone === 'GMT' ? 0 : /^[+-]/.test(v.zone) ? Number(v.zone.slice(0, 3)) * 60 + Math.sign(Number(v.zone.slice(0, 3)) || 1) * Number(v.zone.slice(-2)) : NaN;
  const ms = Date.UTC(year, month, Number(v.day), Number(v.hour ?? 0), Number(v.minute ?? 0), Number(v.second ?? 0), v.fraction ? Number(`0.${v.fraction}`) * 1000 : 0) - zone * 60_000;
  return Number.isNaN(ms) || month < 0 ? undefined : new Date(Math.floor(ms)).toISOString();
}

/** A device time: epoch milliseconds or seconds, the given SimpleDateFormat, CEF's "MMM dd yyyy HH:mm:ss", or ISO 8601. */
export function deviceTime(value: string | undefined, format: string | undefined, ctx: ParseContext): string | undefined {
  if (!value) return undefined;
  const text = value.trim();
  if (/^\d{13}$/.test(text)) return new Date(Number(text)).toISOString();
  if (/^\d{10}(?:\.\d+)?$/.test(text)) return new Date(Number(text) * 1000).toISOString();
  if (format) {
    const formatted = parseWithFormat(text, format);
    if (formatted) return formatted;
  }
  return parseWithFormat(text, 'MMM dd yyyy HH:mm:ss.SSS zzz') ?? parseWithFormat(text, 'MMM dd yyyy HH:mm:ss zzz') ?? parseWithFormat(text, 'MMM dd yyyy HH:mm:ss.SSS') ?? parseWithFormat(text, 'MMM dd yyyy HH:mm:ss') ?? parseLogTime(text, ctx);
}
