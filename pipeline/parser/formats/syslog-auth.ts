// Syslog lines (RFC 3164, RFC 5424, rsyslog's RFC 3339 times) as ECS fields, with
// the messages of sshd, PAM, sudo, su, login, systemd-logind and the shadow-utils
// IAM tools read by the modules in auth/, chosen here by program.
//
// Event names follow Filebeat's system/auth module where it has one (ssh_login,
// its event.category/type/outcome), Winlogbeat-style names elsewhere
// (logged-on, added-member-to-group). Lines from other programs keep the header
// and the message, nothing guessed. A message that syslog folded into "message
// repeated N times: [ ... ]" is read as the inner message with event.repeat_count N.
import { parseSyslogHeader, syslogFields } from '../syslog-header.js';
import type { EventFields, FormatParser } from '../types.js';
import { interpretIam } from './auth/accounts.js';
import type { Interpreter } from './auth/common.js';
import { interpretLogin, interpretLogind } from './auth/login.js';
import { interpretPam } from './auth/pam.js';
import { interpretSshd } from './auth/sshd.js';
import { interpretSu, interpretSudo } from './auth/sudo-su.js';

const BY_PROGRAM = new Map<string, Interpreter>([
  ['sshd', interpretSshd],
  ['sshd-session', interpretSshd], // OpenSSH >= 9.8 logs sessions under this name
  ['sudo', interpretSudo],
  ['su', interpretSu],
  ['login', interpretLogin],
  ['systemd-logind', interpretLogind],
  ...['useradd', 'groupadd', 'usermod', 'userdel', 'groupdel', 'groupmod', 'gpasswd'].map((p): [string, Interpreter] => [p, interpretIam]),
]);

const REPEATED = /^message repeated (\d+) times?: \[ ?(.*)\]$/;

function interpretMessage(program: string | undefined, message: string, fields: EventFields): void {
  let text = message;
  if (text.startsWith('message repeated ')) {
    const repeated = REPEATED.exec(text);
    if (repeated) {
      fields['event.repeat_count'] = Number(repeated[1]);
      text = repeated[2]!;
    }
  }
  // Any program may log through PAM (sshd, sudo, su, login, cron, ...).
  if (text.startsWith('pam_')) interpretPam(text, fields);
  else if (program) BY_PROGRAM.get(program)?.(text, fields);
}

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
    interpretMessage(header.program, header.message, fields);
    return fields;
  },
};
