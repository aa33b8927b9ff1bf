// Every vendor in the device catalogue, on the lines it carries: each line
// goes through the parser's real entry point and must give the fields its
// file expects. Adding a vendor file adds its cases here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRaw } from '../registry.js';
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

describe('device formats and text someone else wrote', () => {
  const ctx = { source: 'syslog', receivedAt: RECEIVED };

  it('reads a payload only right after the header, never from inside a message', () => {
    const hostile = 'Nov 22 06:01:02 srv sshd[4242]: Invalid user date=2026-01-01 time=10:00:00 logid="0100032002" type="event" subtype="system" srcip=9.9.9.9 action="login" status="success" from 203.0.113.7 port 4242';
    const { fields } = parseRaw(hostile, ctx);
    expect(fields['cairn.decoder'] ?? '').not.toMatch(/^fortinet\//);
    expect(fields['source.ip']).not.toBe('9.9.9.9');
  });

  it('refuses a line that has the markers but not the keys every line of the format has', () => {
    const { fields } = parseRaw('<13>date=2026-01-01 time=10:00:00 note=logid= srcip=9.9.9.9', ctx);
    expect(fields['cairn.decoder'] ?? '').not.toMatch(/^fortinet\//);
  });

  it('takes a relay header, a bare priority and an ISO time with a host as headers', () => {
    const payload = 'date=2026-04-02 time=17:31:09 logid="0100032002" type="event" subtype="system" srcip=172.16.1.2 action="login" status="failed"';
    for (const prefix of ['', '<189>', '2026-04-03T00:31:09.976660+00:00 192.168.2.1 ', 'Apr  3 00:31:09 relay1 Apr  3 00:31:09 fw1 ']) {
      const { fields } = parseRaw(prefix + payload, ctx);
      expect(fields['cairn.decoder'], prefix).toBe('fortinet/fortigate');
      expect(fields['source.ip'], prefix).toBe('172.16.1.2');
    }
  });
});
