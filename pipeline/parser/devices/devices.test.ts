// Every vendor in the device catalogue, on the lines it carries: each line
// goes through the parser's real entry point and must give the fields its
// file expects. Adding a vendor file adds its cases here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRaw } from '../registry.js';
import { DeviceCatalogueError, loadVendors } from './spec.js';
import { DeviceCatalogue } from './index.js';
import { csvFields } from './read.js';

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

describe('device format engine', () => {
  function catalogue(yaml: string): DeviceCatalogue {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-devices-'));
    fs.writeFileSync(path.join(dir, 'v.yaml'), yaml);
    return new DeviceCatalogue(loadVendors(dir));
  }
  const ctx = { source: 'x', receivedAt: RECEIVED };

  it('applies a field mapping only where its condition holds, and several mappings of one key', () => {
    const parser = catalogue(`vendor: v
description: d
fields:
  misc:
    - { to: url, as: url, if: { kind: url } }
    - { to: file.name, if: { kind: [file, virus] } }
  who: [{ to: user, as: identity }, { to: source.user, as: identity }]
formats: [{ name: f, markers: ['kind='], start: '(?=kind=)', layout: kv }]
tests: [{ line: 'kind=url', expect: {} }]
`);
    expect(parser.parse('kind=url misc=www.example.com/a/b?c=1 who=CORP\\ann', ctx)).toMatchObject({ 'url.domain': 'www.example.com', 'url.path': '/a/b', 'url.query': 'c=1', 'user.name': 'ann', 'source.user.domain': 'CORP' });
    const file = parser.parse('kind=virus misc=setup.exe', ctx)!;
    expect(file['file.name']).toBe('setup.exe');
    expect(file['url.original']).toBeUndefined();
  });

  it('reads values with spaces up to the separator when value_spaces is set, quoted values as before', () => {
    const parser = catalogue(`vendor: v
description: d
formats: [{ name: f, markers: ['act='], start: '(?=act=)', layout: kv, kv: { separator: '|', value_spaces: true }, fields: { product: observer.product, src: source.ip, msg: message } }]
tests: [{ line: 'act=1', expect: {} }]
`);
    expect(parser.parse('act=accept|product=VPN-1 & FireWall-1|msg="a|b"|src=10.0.0.1', ctx)).toMatchObject({ 'observer.product': 'VPN-1 & FireWall-1', message: 'a|b', 'source.ip': '10.0.0.1' });
  });

  it('splits CSV with quoted fields, doubled quotes and quotes inside bare fields, up to the fields it needs', () => {
    expect(csvFields('a,"b,c",,"say ""hi""",x"y', ',', 10)).toEqual(['a', 'b,c', '', 'say "hi"', 'x"y']);
    expect(csvFields('a,b,c,d', ',', 2)).toEqual(['a', 'b']);
    expect(csvFields('a,b,', ',', 5)).toEqual(['a', 'b', '']);
    expect(csvFields('"open,never closed', ',', 5)).toEqual(['open,never closed']);
    const started = performance.now();
    expect(csvFields(','.repeat(100_000), ',', 80)).toHaveLength(80);
    expect(csvFields('"'.repeat(100_001), ',', 80).length).toBeLessThan(80);
    expect(performance.now() - started).toBeLessThan(200);
  });

  it('takes any of several separator characters', () => {
    const parser = catalogue(`vendor: v
description: d
formats: [{ name: f, markers: ['act='], start: '(?=act=)', layout: kv, kv: { separator: ';,)', value_spaces: true }, fields: { t: event.reason, src: source.ip, last: message } }]
tests: [{ line: 'act=1', expect: {} }]
`);
    expect(parser.parse('act=permit;t=2024/3/10 10:00:00, src=10.0.0.2,last=x y)', ctx)).toMatchObject({ 'event.reason': '2024/3/10 10:00:00', 'source.ip': '10.0.0.2', message: 'x y' });
  });

  it('takes the zone of an RFC 3339 header time for a device time written without one, and drops NAT to 0.0.0.0', () => {
    const parser = catalogue(`vendor: v
description: d
time: { from: [t] }
fields: { natsrc: source.nat.ip, natport: source.nat.port, src: source.ip }
formats: [{ name: f, markers: ['t='], start: '(?=t=)', layout: kv, kv: { separator: ',' } }]
tests: [{ line: 't=1', expect: {} }]
`);
    const fields = parser.parse('<14>1 2022-09-01T08:15:02+02:00 fw - - - - t="2022/09/01 08:15:02",src=10.0.0.1,natsrc=0.0.0.0,natport=0', ctx)!;
    expect(fields['@timestamp']).toBe('2022-09-01T06:15:02.000Z');
    expect(fields['source.nat.ip']).toBeUndefined();
    expect(fields['source.nat.port']).toBeUndefined();
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
