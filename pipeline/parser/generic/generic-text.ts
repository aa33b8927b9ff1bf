// The last resort for a line no format recognised: its envelope (a time
// stamp, a "program[pid]:" tag) when it has one, and the generic reading of
// its message. A line the generic reading finds nothing in is still not
// recognised (null), so it stays a parse failure: cairn says so rather than
// store an event that says nothing but its text.
import { knowsProgram } from '../decoders/interpret.js';
import { readEnvelope } from '../envelope.js';
import type { EventFields, FormatParser } from '../types.js';
import { readGeneric } from './generic-reading.js';

export const genericText: FormatParser = {
  name: 'generic',
  detect: () => true,
  parse(raw, ctx) {
    const line = raw.trimEnd();
    const envelope = readEnvelope(line, ctx);
    const message = envelope?.message ?? line;
    const fields: EventFields = {};
    if (!readGeneric(message, fields, { verdicts: !knowsProgram(envelope?.program) })) return null;
    if (envelope?.timestamp) fields['@timestamp'] = envelope.timestamp;
    if (envelope?.program) fields['process.name'] = envelope.program;
    if (envelope?.pid !== undefined) fields['process.pid'] = envelope.pid;
    fields.message = message;
    fields['event.kind'] = 'event';
    return fields;
  },
};
