// ISO 8601 times on the hot path. Every artifact's times are read from text
// and written back several times between the API, the bus and the store, and
// Date.parse and toISOString were each about 2% of a pipeline thread's CPU:
// the canonical form ("2026-11-26T12:00:00.000Z", toISOString's) is read
// here digit by digit, and the last conversion each way is remembered, since
// the artifacts of a batch share their received time.

/** The form toISOString writes: UTC, milliseconds, a four-digit year. */
export const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const DAYS_IN_MONTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number `length` digits of `s` from `at` make, or -1 when one is not a digit. */
function digits(s: string, at: number, length: number): number {
  let n = 0;
  for (let i = at; i < at + length; i++) {
    const d = s.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    n = n * 10 + d;
  }
  return n;
}

/** Milliseconds of canonical text, or NaN when it is not canonical (or not a day of the calendar). */
function canonicalMs(s: string): number {
  if (s.length !== 24 || s[4] !== '-' || s[7] !== '-' || s[10] !== 'T' || s[13] !== ':' || s[16] !== ':' || s[19] !== '.' || s[23] !== 'Z') return Number.NaN;
  const year = digits(s, 0, 4);
  const month = digits(s, 5, 2);
  const day = digits(s, 8, 2);
  const hour = digits(s, 11, 2);
  const minute = digits(s, 14, 2);
  const second = digits(s, 17, 2);
  const ms = digits(s, 20, 3);
  // Date.UTC reads years below 100 as 19xx; such text goes the long way.
  if (year < 100 || month < 1 || month > 12 || day < 1 || day > DAYS_IN_MONTH[month - 1]! || hour > 23 || minute > 59 || second > 59 || ms < 0) return Number.NaN;
  if (month === 2 && day === 29 && !(year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0))) return Number.NaN;
  return Date.UTC(year, month - 1, day, hour, minute, second, ms);
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
    formatted = new Date(ms).toISOString();
    formattedMs = ms;
  }
  return formatted;
}

/** The canonical form of an ISO 8601 time: the text itself when it is already canonical. */
export function canonicalIso(iso: string): string {
  return Number.isNaN(canonicalMs(iso)) ? msToIso(isoToMs(iso)) : iso;
}
