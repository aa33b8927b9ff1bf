// The hot-path readers of ISO 8601 time agree with Date.parse and toISOString
// on every input, canonical or not, valid or not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalIso, isoToMs, msToIso, parseIso } from './iso-time.js';

const anyTime = fc.integer({ min: Date.UTC(100, 0, 1), max: Date.UTC(9999, 11, 31, 23, 59, 59, 999) });

/** Canonical-looking text with every field anywhere in its digits' range, days of the calendar or not. */
const canonicalShape = fc
  .tuple(fc.integer({ min: 0, max: 9999 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 999 }))
  .map(([y, mo, d, h, mi, s, ms]) => {
    const p = (n: number, width: number) => String(n).padStart(width, '0');
    return `${p(y, 4)}-${p(mo, 2)}-${p(d, 2)}T${p(h, 2)}:${p(mi, 2)}:${p(s, 2)}.${p(ms, 3)}Z`;
  });

describe('ISO 8601 times', () => {
  it('read as Date.parse reads them, canonical or not', () => {
    fc.assert(
      fc.property(fc.oneof(anyTime.map((ms) => new Date(ms).toISOString()), canonicalShape, fc.string(), anyTime.map((ms) => new Date(ms).toUTCString())), (text) => {
        expect(parseIso(text)).toBe(Date.parse(text));
      }),
      { numRuns: 5_000 },
    );
    for (const text of ['2026-02-29T00:00:00.000Z', '2024-02-29T00:00:00.000Z', '1900-02-29T00:00:00.000Z', '2000-02-29T00:00:00.000Z', '2026-04-31T00:00:00.000Z', '2026-11-26T24:00:00.000Z', '2026-11-26T12:00:00+02:00', '0099-01-01T00:00:00.000Z']) {
      expect(parseIso(text)).toBe(Date.parse(text));
    }
  });

  it('refuse text that is no time, by an error, where a number is required', () => {
    expect(() => isoToMs('yesterday')).toThrow(/not an ISO 8601 time/);
  });

  it('write and canonicalize as toISOString does', () => {
    fc.assert(
      fc.property(anyTime, (ms) => {
        expect(msToIso(ms)).toBe(new Date(ms).toISOString());
        expect(canonicalIso(new Date(ms).toISOString())).toBe(new Date(ms).toISOString());
      }),
    );
    expect(canonicalIso('2026-11-26T14:00:00+02:00')).toBe('2026-11-26T12:00:00.000Z');
  });
});
