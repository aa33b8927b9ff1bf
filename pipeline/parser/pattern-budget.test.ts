// Every pattern the catalogues ship, on text shaped to make it slow, as long
// as the readers let a message be (READABLE_LENGTH), or as long as a line may
// be for the patterns that find a device's payload in the whole line. A
// pattern that backtracks without bound takes seconds here, not milliseconds.
import { describe, expect, it } from 'vitest';
import { loadServices } from './decoders/catalogue.js';
import { loadVendors } from './devices/spec.js';
import { PATTERN_BUDGET_MS as BUDGET_MS, slowestMatch, slowestMatchMs } from './pattern-budget.js';

const LINE_LENGTH = 100_000;

describe('patterns stay fast on hostile text', () => {
  it('finds a pattern that backtracks without bound', () => {
    // An optional word before a bracket: every start in a long word rescans it.
    expect(slowestMatchMs(/(?:\S+ )?\[x\]/, 40_000)).toBeGreaterThan(BUDGET_MS);
    expect(slowestMatchMs(/\[x\]/, 40_000)).toBeLessThan(BUDGET_MS);
  });

  it('finds exponential backtracking with runs ended by a character no pattern fits, and abandons the run', () => {
    // The bare run matches at once; only a run whose end does not fit makes "(a+)+" try every split.
    expect(slowestMatch(/(a+)+$/).ms).toBeLessThan(BUDGET_MS);
    const started = performance.now();
    const worst = slowestMatch(/(a+)+$/, { breaks: true, stopAfterMs: BUDGET_MS, interruptAfterMs: 2 * BUDGET_MS });
    expect(worst).toMatchObject({ interrupted: true });
    expect(worst.input.endsWith('\u0001')).toBe(true);
    expect(performance.now() - started).toBeLessThan(6 * BUDGET_MS);
  });

  for (const service of loadServices()) {
    it(`decoder catalogue ${service.file}`, () => {
      for (const decoder of service.decoders) expect(slowestMatchMs(decoder.regex), decoder.name).toBeLessThan(BUDGET_MS);
    });
  }

  for (const vendor of loadVendors()) {
    it(`device catalogue ${vendor.file}`, () => {
      for (const format of vendor.formats) {
        expect(slowestMatchMs(format.start, LINE_LENGTH), `${format.name} start`).toBeLessThan(BUDGET_MS);
        for (const message of format.messages) expect(slowestMatchMs(message.regex), `${format.name} ${message.name}`).toBeLessThan(BUDGET_MS);
      }
    });
  }
});
