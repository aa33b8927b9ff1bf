// The hand-written ISO 8601 readers and writers against what Date does: the
// formats' strict reader, and the hot path's, which agrees with Date.parse on
// every input, canonical or not, valid or not.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalIso, isoString, isoToMs, msToIso, parseIso, parseIsoMillis } from './iso-time.js';

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

describe('parseIsoMillis', () => {
  it('reads the zone forms Z, +hh:mm and none (UTC)', () => {
    expect(parseIsoMillis('2024-01-02T03:04:05.678Z')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 678));
    expect(parseIsoMillis('2024-01-02T03:04:05+05:30')).toBe(Date.UTC(2024, 0, 1, 21, 34, 5));
    expect(parseIsoMillis('2024-01-02T03:04:05')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5));
  });

  it('reads Suricata\'s zone without a colon and a space for the T', () => {
    expect(parseIsoMillis('2018-07-05T15:07:20.910626-0400')).toBe(Date.UTC(2018, 6, 5, 19, 7, 20, 910));
    expect(parseIsoMillis('2018-07-05 15:07:20z')).toBe(Date.UTC(2018, 6, 5, 15, 7, 20));
  });

  it('truncates the fraction to milliseconds and pads a short one', () => {
    expect(parseIsoMillis('2024-01-02T03:04:05.9999999Z')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 999));
    expect(parseIsoMillis('2024-01-02T03:04:05.5Z')).toBe(Date.UTC(2024, 0, 2, 3, 4, 5, 500));
  });

  it('refuses impossible dates, missing seconds and unknown zones', () => {
    expect(parseIsoMillis('2023-02-29T00:00:00+0000')).toBeNull();
    expect(parseIsoMillis('2023-13-01T00:00:00+0000')).toBeNull();
    expect(parseIsoMillis('2023-01-01T24:00:00+0000')).toBeNull();
    expect(parseIsoMillis('2023-01-01T00:00+0000')).toBeNull();
    expect(parseIsoMillis('2023-01-01T00:00:00 CET')).toBeNull();
    expect(parseIsoMillis('2023-01-01T00:00:00.+0000')).toBeNull();
    expect(parseIsoMillis('2023-01-01T00:00:00+01')).toBeNull();
  });

  it('accepts Feb 29 of a leap year only', () => {
    expect(parseIsoMillis('2024-02-29T00:00:00Z')).toBe(Date.UTC(2024, 1, 29));
    expect(parseIsoMillis('2000-02-29T00:00:00Z')).toBe(Date.UTC(2000, 1, 29));
    expect(parseIsoMillis('1900-02-29T00:00:00Z')).toBeNull();
  });

  it('refuses text after the zone and text that is no time', () => {
    expect(parseIsoMillis('2024-01-02T03:04:05Zx')).toBeNull();
    expect(parseIsoMillis('2024-01-02T03:04:05+05:30 ')).toBeNull();
    expect(parseIsoMillis('1530817640.910626')).toBeNull();
    expect(parseIsoMillis('')).toBeNull();
  });
});

describe('isoString', () => {
  it('formats times exactly as Date.toISOString does, across leap years and centuries', () => {
    const samples = [0, 951_782_400_000, 951_868_799_999, 4_107_542_399_999, 253_402_300_799_999, -62_135_596_800_000, 1_530_817_640_910];
    for (let ms = Date.UTC(1999, 11, 25); ms < Date.UTC(2001, 2, 5); ms += 86_400_000 + 3_723_001) samples.push(ms);
    for (const ms of samples) expect(isoString(ms), String(ms)).toBe(new Date(ms).toISOString());
  });
});
