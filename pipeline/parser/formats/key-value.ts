// key=value lines (many appliances log this way): at least two pairs, values
// bare or double-quoted. Keys go through the same ECS aliases as JSON; an
// action=allow|deny|drop|... says the verdict on the traffic. No vendor's
// reader claimed the line, so it is marked as a generic reading.
import { GENERIC_DECODER } from '../generic/generic-reading.js';
import type { EventFields, FormatParser } from '../types.js';
import { normalizeEcs, verdictOfAction } from './generic-json.js';
import { setOwn } from '../../../lib/lookup-table.js';

const PAIR = /([A-Za-z_][\w.-]*)=("(?:[^"\\]|\\.)*"|\S*)/g;
const MIN_PAIRS = 2;

export const keyValue: FormatParser = {
  name: 'kv',
  detect: (raw) => raw.indexOf('=') > 0,
  parse(raw) {
    const pairs: EventFields = {};
    let count = 0;
    for (const m of raw.matchAll(PAIR)) {
      const value = m[2]!.startsWith('"') ? m[2]!.slice(1, -1).replace(/\\(.)/g, '$1') : m[2]!;
      setOwn(pairs, m[1]!, /^-?\d{1,15}$/.test(value) ? Number(value) : value);
      count++;
    }
    if (count < MIN_PAIRS) return null;
    const fields = normalizeEcs(pairs);
    const verdict = typeof fields['event.action'] === 'string' ? verdictOfAction(fields['event.action']) : undefined;
    if (verdict && fields['event.outcome'] === undefined) {
      fields['event.category'] ??= ['network'];
      fields['event.type'] ??= [verdict.type];
      fields['event.outcome'] = verdict.outcome;
    }
    fields['cairn.decoder'] ??= GENERIC_DECODER;
    fields['event.kind'] ??= 'event';
    fields.message ??= raw;
    return fields;
  },
};
