// The hand-written ISO 8601 reader and writer against what Date does.
import { describe, expect, it } from 'vitest';
import { isoString, parseIsoMillis } from './time.js';

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
