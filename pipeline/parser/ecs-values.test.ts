// Every line the decoder and device catalogues carry as tests, through the
// parser's real entry point: a line a decoder or device format claims (it
// names its service or decoder) must set event.category and event.type, and
// every categorisation value any line gets must be one ECS allows. Adding a
// service or a vendor adds its lines.
import { describe, expect, it } from 'vitest';
import { loadServices, testSource } from './decoders/catalogue.js';
import { loadVendors } from './devices/spec.js';
import { ecsViolations } from './ecs-values.js';
import { parseRaw } from './registry.js';

const RECEIVED = Date.UTC(2026, 10, 23, 12);

describe('ECS categorisation of every catalogue test line', () => {
  for (const service of loadServices()) {
    it(service.file, () => {
      for (const test of service.spec.tests) {
        const source = testSource(service.spec, test);
        const { fields } = parseRaw(test.line, { source, receivedAt: RECEIVED });
        expect(ecsViolations(fields), test.line).toEqual([]);
        const claimed = fields['service.name'] !== undefined || fields['cairn.decoder'] !== undefined;
        if (!claimed) continue;
        expect(fields['event.category'], `event.category of ${test.line}`).toBeDefined();
        expect(fields['event.type'], `event.type of ${test.line}`).toBeDefined();
      }
    });
  }

  for (const vendor of loadVendors()) {
    it(`devices/${vendor.file}`, () => {
      for (const test of vendor.spec.tests) {
        const source = test.source ?? vendor.spec.sources[0] ?? 'syslog';
        const { fields } = parseRaw(test.line, { source, receivedAt: RECEIVED });
        expect(ecsViolations(fields), test.line).toEqual([]);
        expect(fields['event.category'], `event.category of ${test.line}`).toBeDefined();
        expect(fields['event.type'], `event.type of ${test.line}`).toBeDefined();
      }
    });
  }

  it('every decoder sets event.category and event.type (its own or its service defaults)', () => {
    for (const service of loadServices()) {
      for (const decoder of service.decoders) {
        const names = decoder.fields.map(([name]) => name);
        expect(names, `${service.file} ${decoder.name}`).toEqual(expect.arrayContaining(['event.category', 'event.type']));
      }
    }
  });

  it('tells a wrong value apart', () => {
    expect(ecsViolations({ 'event.category': ['authentication'], 'event.type': ['denied'], 'event.outcome': 'failure' })).toEqual([]);
    expect(ecsViolations({ 'event.category': ['auth'], 'event.type': 'info', 'event.outcome': 'failed' })).toEqual([
      'event.category=auth',
      'event.type is not a non-empty array',
      'event.outcome=failed',
    ]);
  });
});
