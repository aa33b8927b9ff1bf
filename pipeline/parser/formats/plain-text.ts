// Plain-text log lines without a syslog header: a program's own log file
// (exim's mainlog, MySQL's error log, Asterisk's messages, ...), or a line
// whose envelope is only "host program[pid]:" (journalctl's short output
// without the time). The envelope gives the time and the program when there
// are; the message goes to the same readers as syslog messages. A line no
// reader knows is not this format (null), so the generic readers still try it.
import { interpretMessage } from '../decoders/interpret.js';
import { readEnvelope } from '../envelope.js';
import type { EventFields, FormatParser } from '../types.js';

// "srv sshd[13709]: message": host, program with pid, colon.
const HOST_PROGRAM = /^([A-Za-z0-9][\w.-]*) ([A-Za-z][\w./-]*(?:\([^)\s]*\))?)\[(\d+)\]: +/;

export const plainText: FormatParser = {
  name: 'text',
  // Tried last among the line formats: it only claims what a decoder recognises.
  detect: () => true,
  parse(raw, ctx) {
    const line = raw.trimEnd();
    const envelope = readEnvelope(line, ctx);
    const fields: EventFields = {};
    let program = envelope?.program;
    let message = envelope?.message ?? line;
    if (!envelope) {
      const tagged = HOST_PROGRAM.exec(line);
      if (tagged) {
        fields['host.hostname'] = tagged[1]!;
        program = tagged[2];
        fields['process.pid'] = Number(tagged[3]);
        message = line.slice(tagged[0].length);
      }
    } else if (envelope.pid !== undefined) {
      fields['process.pid'] = envelope.pid;
    }
    if (!interpretMessage(program, message, ctx, fields)) return null;
    if (envelope?.timestamp) fields['@timestamp'] = envelope.timestamp;
    if (program) fields['process.name'] = program;
    fields.message = message;
    fields['event.kind'] = 'event';
    return fields;
  },
};
