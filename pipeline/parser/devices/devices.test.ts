// Every vendor in the device catalogue, on the lines it carries: each line
// goes through the parser's real entry point and must give the fields its
// file expects. Adding a vendor file adds its cases here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRaw } from '../registry.js';
import { unescapeOctal, zoneAbbreviationToOffset } from './read.js';
import { DeviceCatalogueError, loadVendors } from './spec.js';

const RECEIVED = Date.UTC(2026, 10, 23, 12);
const vendors = loadVendors();

describe('device catalogue', () => {
  for (const vendor of vendors) {
    describe(vendor.file, () => {
      vendor.spec.tests.forEach((test, i) => {
        it(`line ${i + 1}: ${test.line.slice(0, 90)}`, () => {
          const source = test.source ?? vendor.spec.sources[0] ?? 'syslog';
          const { fields } = parseRaw(test.line, { source, receivedAt: RECEIVED });
          expect(fields['cairn.decoder'], 'read by a device format').toMatch(new RegExp(`^${vendor.spec.vendor}/`));
          for (const [name, value] of Object.entries(test.expect)) {
            if (value === null) expect(fields[name], name).toBeUndefined();
            else expect(fields[name], name).toEqual(value);
          }
        });
      });
    });
  }
});

describe('device catalogue loading', () => {
  function loadOne(yaml: string): void {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-devices-'));
    fs.writeFileSync(path.join(dir, 'broken.yaml'), yaml);
    loadVendors(dir);
  }
  const base = "vendor: x\ndescription: d\ntests: [{ line: 'a', expect: {} }]\n";

  it('names the file and the format of a pattern that does not compile', () => {
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: '(', layout: kv }]`)).toThrow(/broken\.yaml: format f: start: .*Invalid regular expression/);
  });
  it('refuses unknown keys, unknown value kinds and layouts without what they need', () => {
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: 'a', layout: kv, typo: 1 }]`)).toThrow(/broken\.yaml: formats\.0/);
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: 'a', layout: kv, fields: { a: { to: b, as: nope } } }]`)).toThrow(DeviceCatalogueError);
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: 'a', layout: csv }]`)).toThrow(/needs csv\.variants/);
    expect(() => loadOne(`${base}formats: [{ name: f, markers: [ab], start: 'a', layout: text }]`)).toThrow(/needs messages/);
  });
});

describe('device times', () => {
  it('turns a zone abbreviation after the time into its offset, and leaves other times alone', () => {
    expect(zoneAbbreviationToOffset('2026-01-20 09:12:01.551 EST')).toBe('2026-01-20 09:12:01.551 -05:00');
    expect(zoneAbbreviationToOffset('2026-01-20 09:12:01 CEST')).toBe('2026-01-20 09:12:01 +02:00');
    expect(zoneAbbreviationToOffset('2026-01-20 09:12:01 XYZ')).toBe('2026-01-20 09:12:01 XYZ');
    expect(zoneAbbreviationToOffset('1781003201.114')).toBe('1781003201.114');
  });
});

describe('device values', () => {
  it('decodes octal escapes, and leaves text without them or with other backslashes alone', () => {
    expect(unescapeOctal('Session\\040Expiration')).toBe('Session Expiration');
    expect(unescapeOctal('2001\\072db8\\072\\0721')).toBe('2001:db8::1');
    expect(unescapeOctal('DOMAIN\\user')).toBe('DOMAIN\\user');
    expect(unescapeOctal('plain')).toBe('plain');
  });
});
