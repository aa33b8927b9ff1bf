// Every service in the decoder catalogue, on the lines it carries: each line
// goes through the parser's real entry point and must give the fields its
// entry expects. Adding a service file adds its cases here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseRaw } from '../registry.js';
import { CatalogueError, loadServices, testSource } from './catalogue.js';

const RECEIVED = Date.UTC(2026, 10, 23, 12);
const services = loadServices();

describe('decoder catalogue', () => {
  it('has services, each with decoders and test lines', () => {
    expect(services.length).toBeGreaterThan(10);
    for (const s of services) expect(s.spec.tests.length, s.file).toBeGreaterThan(0);
  });

  for (const service of services) {
    describe(service.file, () => {
      service.spec.tests.forEach((test, i) => {
        it(`line ${i + 1}: ${test.line.slice(0, 90)}`, () => {
          const source = testSource(service.spec, test);
          const { fields } = parseRaw(test.line, { source, receivedAt: RECEIVED });
          for (const [name, value] of Object.entries(test.expect)) {
            if (value === null) expect(fields[name], name).toBeUndefined();
            else expect(fields[name], name).toEqual(value);
          }
        });
      });
    });
  }
});

describe('catalogue loading', () => {
  function loadOne(yaml: string): void {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-catalogue-'));
    fs.writeFileSync(path.join(dir, 'broken.yaml'), yaml);
    loadServices(dir);
  }
  const base = "service: x\ndescription: d\ntests: [{ line: 'a', expect: {} }]\n";

  it('names the file and the decoder of a pattern that does not compile', () => {
    expect(() => loadOne(`${base}decoders: [{ name: bad, match: '(' }]`)).toThrow(/broken\.yaml: decoder bad: .*Invalid regular expression/);
  });
  it('refuses unknown macros, unknown keys and fields that use a capture the pattern lacks', () => {
    expect(() => loadOne(`${base}decoders: [{ name: m, match: '{NOPE}' }]`)).toThrow(CatalogueError);
    expect(() => loadOne(`${base}decoders: [{ name: m, match: 'x', typo: 1 }]`)).toThrow(/broken\.yaml: decoders\.0/);
    expect(() => loadOne(`${base}decoders: [{ name: m, match: 'x', fields: { user.name: $who } }]`)).toThrow(/uses \$who/);
  });
});
