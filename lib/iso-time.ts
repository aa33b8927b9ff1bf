// ISO 8601 times on the hot paths, read by position and written by
// arithmetic: cheaper than Date, and stricter where a format needs it.
//
// Parsers of the high-volume JSON formats (Suricata EVE, Zeek) read their
// times with parseIsoMillis and write them with isoString. Every artifact's
// times are also read from text and written back several times between the
// API, the bus and the store (Date.parse and toISOString were each about 2%
// of a pipeline thread's CPU): parseIso reads them as Date.parse does, the
// canonical form digit by digit, and the last conversion each way is
// remembered, since the artifacts of a batch share their received time.

// Character codes the position-based reader tests for.
const DASH = 0x2d;
const COLON = 0x3a;
const DOT = 0x2e;
const PLUS = 0x2b;

/** The number written by `length` digits at `at`, or -1 when one is not a digit. */
function digitsAt(value: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const d = value.charCodeAt(i) - 48;
    if (!(d >= 0 && d <= 9)) return -1;
    n = n * 10 + d;
  }
  return n;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Minutes east of UTC of the zone that starts at `at` ("Z", "+hhmm", "-hh:mm", none = UTC), or null. */
function zoneOffsetMinutes(value: string, at: number): number | null {
  if (at === value.length) return 0;
  const sign = value.charCodeAt(at);
  if (value[at] === 'Z' || value[at] === 'z') return at + 1 === value.length ? 0 : null;
  if (sign !== PLUS && sign !== DASH) return null;
  const hours = digitsAt(value, at + 1, 2);
  const minutesAt = value.charCodeAt(at + 3) === COLON ? at + 4 : at + 3;
  const minutes = digitsAt(value, minutesAt, 2);
  if (hours < 0 || hours > 23 || minutes < 0 || minutes > 59 || minutesAt + 2 !== value.length) return null;
  return (sign === DASH ? -1 : 1) * (hours * 60 + minutes);
}

/**
 * Epoch milliseconds of an ISO 8601 time such as Suricata's
 * "2018-07-05T15:07:20.910626-0400" (zone without a colon, which Date.parse
 * does not reliably accept), the fraction truncated (not rounded) to the
 * millisecond; a time without a zone is UTC; null when malformed. Read by
 * position: cheaper than a regex, and strict about what it accepts.
 */
export function parseIsoMillis(value: string): number | null {
  if (value.length < 19) return null;
  const separator = value[10];
  if (value.charCodeAt(4) !== DASH || value.charCodeAt(7) !== DASH || value.charCodeAt(13) !== COLON || value.charCodeAt(16) !== COLON) return null;
  if (separator !== 'T' && separator !== ' ') return null;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return null;
  let at = 19;
  let millis = 0;
  if (value.charCodeAt(at) === DOT) {
    const start = ++at;
    while (at < value.length && digitsAt(value, at, 1) >= 0) at++;
    if (at === start) return null;
    // The first three digits of the fraction, padded: ".9" is 900 ms.
    for (let i = start; i < start + 3; i++) millis = millis * 10 + (i < at ? value.charCodeAt(i) - 48 : 0);
  }
  const offset = zoneOffsetMinutes(value, at);
  if (offset === null) return null;
  return Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset * 60_000;
}

const TWO_DIGITS = Array.from({ length: 100 }, (_, n) => String(n).padStart(2, '0'));

/** 0-99 as two digits. At module level: a closure in isoString would be made anew on every call. */
function twoDigits(n: number): string {
  return TWO_DIGITS[n] ?? '';
}

/**
 * new Date(ms).toISOString() for years 1000-9999, in a quarter of its time:
 * calendar date from the day number by Hinnant's civil_from_days.
 */
export function isoString(ms: number): string {
  const days = Math.floor(ms / 86_400_000);
  const msOfDay = ms - days * 86_400_000;
  const era = Math.floor((days + 719_468) / 146_097);
  const dayOfEra = days + 719_468 - era * 146_097;
  const yearOfEra = Math.floor((dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365);
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const monthFromMarch = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * monthFromMarch + 2) / 5) + 1;
  const month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  if (year < 1000 || year > 9999) return new Date(ms).toISOString();
  const hour = Math.floor(msOfDay / 3_600_000);
  const minute = Math.floor(msOfDay / 60_000) % 60;
  const second = Math.floor(msOfDay / 1000) % 60;
  const millis = msOfDay % 1000;
  return `${twoDigits(Math.floor(year / 100))}${twoDigits(year % 100)}-${twoDigits(month)}-${twoDigits(day)}T${twoDigits(hour)}:${twoDigits(minute)}:${twoDigits(second)}.${twoDigits(Math.floor(millis / 10))}${millis % 10}Z`;
}

/** The form toISOString writes: UTC, milliseconds, a four-digit year. */
export const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Milliseconds of text in toISOString's form, or NaN for any other text.
 * There parseIsoMillis reads what Date.parse reads, but for a leap second
 * (Date.parse refuses it) and years below 100 (Date.UTC reads them as 19xx):
 * those are left to Date.parse too.
 */
function canonicalMs(s: string): number {
  if (s.length !== 24 || s[10] !== 'T' || s[19] !== '.' || s[23] !== 'Z' || s[17] === '6' || s.startsWith('00')) return Number.NaN;
  return parseIsoMillis(s) ?? Number.NaN;
}

let lastIso = '';
let lastMs = Number.NaN;

/** Milliseconds since the epoch of an ISO 8601 time (any form Date.parse reads), or NaN, as Date.parse. */
export function parseIso(iso: string): number {
  if (iso === lastIso) return lastMs;
  let ms = canonicalMs(iso);
  if (Number.isNaN(ms)) ms = Date.parse(iso);
  lastIso = iso;
  lastMs = ms;
  return ms;
}

/** parseIso, with an error for text that is not a time. */
export function isoToMs(iso: string): number {
  const ms = parseIso(iso);
  if (Number.isNaN(ms)) throw new Error(`not an ISO 8601 time: ${iso}`);
  return ms;
}

let formattedMs = Number.NaN;
let formatted = '';

/** toISOString of a time in milliseconds. */
export function msToIso(ms: number): string {
  if (ms !== formattedMs) {
    formatted = isoString(ms);
    formattedMs = ms;
  }
  return formatted;
}

/** The canonical form of an ISO 8601 time: the text itself when it is already canonical. */
export function canonicalIso(iso: string): string {
  return Number.isNaN(canonicalMs(iso)) ? msToIso(isoToMs(iso)) : iso;
}
