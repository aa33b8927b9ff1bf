// Every line a catalogue service or a device format claims is categorized
// with ECS's values: event.category and event.type set, kind and outcome
// allowed ones. A test line a decoder does not claim (a negative case) has no
// event.action from the catalogue and is not checked.
import { describe, expect, it } from 'vitest';
import { loadVendors } from '../devices/spec.js';
import { categorizationProblems } from '../ecs-values.js';
import { parseRaw } from '../registry.js';
import { loadServices } from './catalogue.js';

const RECEIVED = Date.UTC(2026, 10, 23, 12);

describe('catalogue lines are categorized with ECS values', () => {
  for (const service of loadServices()) {
    it(service.file, () => {
      for (const test of service.spec.tests) {
        const source = test.source ?? service.spec.sources[0] ?? 'syslog';
        const { fields } = parseRaw(test.line, { source, receivedAt: RECEIVED });
        if (fields['event.action'] === undefined) continue;
        expect(categorizationProblems(fields), test.line).toEqual([]);
      }
    });
  }
  for (const vendor of loadVendors()) {
    it(vendor.file, () => {
      for (const test of vendor.spec.tests) {
        const source = test.source ?? vendor.spec.sources[0] ?? 'syslog';
        const { fields } = parseRaw(test.line, { source, receivedAt: RECEIVED });
        expect(categorizationProblems(fields), test.line).toEqual([]);
      }
    });
  }
});
