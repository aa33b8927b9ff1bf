// Syslog lines (RFC 3164, RFC 5424, rsyslog's RFC 3339 times) as ECS fields:
// the header, then the message read by decoders/interpret.ts (the auth code
// readers and the decoder catalogue, chosen by program and source).
//
// Event names follow Filebeat's system/auth module where it has one (ssh_login,
// its event.category/type/outcome), Winlogbeat-style names elsewhere
// (logged-on, added-member-to-group). Lines no decoder knows keep the header
// and the message, and get the generic reading (generic/generic-reading.ts):
// the peer and verdict their words state, marked cairn.decoder: generic (the
// verdict only for programs no reader knows).
import { interpretMessage, knowsProgram } from '../decoders/interpret.js';
import { readGeneric } from '../generic/generic-reading.js';
import { parseSyslogHeader, syslogFields } from '../syslog-header.js';
import type { EventFields, FormatParser } from '../types.js';

// A time at the start: "Mmm dd", "Mmm  d" or "yyyy-mm-dd", after an optional <PRI> and RFC 5424 version.
const LOOKS_LIKE_SYSLOG = /^(?:<\d{1,3}>)?(?:1 )?(?:[A-Z][a-z]{2} +\d{1,2} |\d{4}-\d{2}-\d{2}[T ]\d)/;
const RFC5424_NIL_TIME = /^(?:<\d{1,3}>)?1 - /;

export const syslogAuth: FormatParser = {
  name: 'syslog',
  detect: (raw) => LOOKS_LIKE_SYSLOG.test(raw),
  parse(raw, ctx) {
    const header = parseSyslogHeader(raw, ctx);
    if (!header) return null;
    if (!header.timestamp && !RFC5424_NIL_TIME.test(raw)) throw new Error(`syslog time is not a valid date: "${raw.slice(0, 40)}"`);
    const fields: EventFields = syslogFields(header);
    fields['event.kind'] = 'event';
    if (!interpretMessage(header.program, header.message, ctx, fields)) readGeneric(header.message, fields, { verdicts: !knowsProgram(header.program) });
    return fields;
  },
};
