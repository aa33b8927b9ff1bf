// Reading a program's message, whichever envelope carried it (a syslog
// header, a plain-text time stamp, a journal record): the code readers of
// pipeline/parser/formats/auth for what patterns cannot say (sshd, PAM,
// sudo, su, login and the shadow-utils IAM tools, which track effective
// users and sessions), then the decoder catalogue for everything else: the
// services the program and the source name, then, for a line they leave
// unclaimed, any service by the line's content. At each of these steps the
// organization's own decoders (ParseContext.decoders, added through
// /api/v1/decoders) come first: what a user taught cairn about a program or
// a source wins over what cairn ships. They change nothing else: which
// lines count as claimed, and which programs as known (no generic verdicts),
// is the shipped readers' say, so a line none of the user's decoders matches
// is read exactly as it would be without them.
// A message that syslog folded into "message repeated N times: [ ... ]" is
// read as the inner message with event.repeat_count N.
import { interpretIam } from '../formats/auth/accounts.js';
import type { Interpreter } from '../formats/auth/common.js';
import { interpretLogin, interpretLogind } from '../formats/auth/login.js';
import { interpretPam } from '../formats/auth/pam.js';
import { interpretSshd } from '../formats/auth/sshd.js';
import { interpretSu, interpretSudo } from '../formats/auth/sudo-su.js';
import { readEnvelope } from '../envelope.js';
import { parseAccessLine } from '../formats/web-access.js';
import { parseErrorLine } from '../formats/web-error.js';
import type { EventFields, ParseContext } from '../types.js';
import { catalogue } from './decode.js';
import { readablePart } from '../readable.js';

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
// Solaris syslog puts the message id and facility before the text: "[ID 800047 auth.info] ".
const SOLARIS_ID = /^\[ID \d+ [\w.]+\] /;

/**
 * Reads `message` of `program` (the syslog tag, when there is one) into
 * `fields`; the artifact's source picks catalogue entries for lines that
 * name no program. Specific readers first: the code readers, the catalogue
 * services the tag and the source name, the web log formats; again without
 * a time stamp the message carries itself (an application's own log line
 * forwarded through syslog); only then the catalogue's fallback shapes.
 * True when something recognised it.
 */
export function interpretMessage(program: string | undefined, message: string, ctx: ParseContext, fields: EventFields): boolean {
  let text = readablePart(message).trimStart().replace(SOLARIS_ID, '');
  if (text.startsWith('message repeated ')) {
    const repeated = REPEATED.exec(text);
    if (repeated) {
      fields['event.repeat_count'] = Number(repeated[1]);
      text = repeated[2]!;
    }
  }
  if (readSpecific(program, text, ctx, fields)) return true;
  const inner = readEnvelope(text, ctx);
  const innerProgram = inner?.program ?? program;
  if (inner && inner.message !== text && readSpecific(innerProgram, inner.message, ctx, fields)) return true;
  if (readByContent(program, text, ctx, fields)) return true;
  if (inner && inner.message !== text && readByContent(innerProgram, inner.message, ctx, fields)) return true;
  const claimed = catalogue().claims(innerProgram, ctx.source);
  return (ctx.decoders?.decodeFallback(text, claimed, fields) ?? false) || catalogue().decodeFallback(text, claimed, fields);
}

/** Whether a shipped reader knows this program's messages (a code reader or a catalogue service). */
export function knowsProgram(program: string | undefined): boolean {
  return program !== undefined && (BY_PROGRAM.has(program) || catalogue().claimsProgram(program));
}

/**
 * A line whose program and source name no reader (a neutral source such as
 * "syslog", an application's own log file, an untagged line) is read by what
 * it says: any catalogue decoder whose required literal it holds. A known
 * program's text was read by its own readers and is never tried here, so
 * another service's shape cannot misread it.
 */
function readByContent(program: string | undefined, text: string, ctx: ParseContext, fields: EventFields): boolean {
  if (program !== undefined && BY_PROGRAM.has(program)) return false;
  if (catalogue().claims(program, ctx.source)) return false;
  return (ctx.decoders?.decodeByContent(text, fields) ?? false) || catalogue().decodeByContent(text, fields);
}

function readSpecific(program: string | undefined, text: string, ctx: ParseContext, fields: EventFields): boolean {
  // A user's decoder for this program or source goes before every shipped reader, the code readers included.
  if (ctx.decoders?.decodeSpecific(text, program, ctx.source, fields)) return true;
  // Any program may log through PAM (sshd, sudo, su, login, cron, ...).
  if (text.startsWith('pam_')) interpretPam(text, fields);
  else if (program) BY_PROGRAM.get(program)?.(text, fields);
  if (fields['event.action'] !== undefined) return true;
  if (catalogue().decodeSpecific(text, program, ctx.source, fields)) return true;
  // A web server's error or access line forwarded through syslog.
  const web = parseErrorLine(text, ctx) ?? parseAccessLine(text, ctx);
  if (!web) return false;
  Object.assign(fields, web);
  return true;
}
