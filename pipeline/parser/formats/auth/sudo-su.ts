// sudo's command lines (who ran what as whom, and refusals) and su's
// switches of user, in each of the forms su implementations log them.
import type { EventFields } from '../../types.js';
import { categorize, setUser, type Outcome } from './common.js';

// "alice : [error ;] TTY=pts/0 ; PWD=/home/alice ; USER=root ; [GROUP=.. ; ENV=.. ;] COMMAND=/bin/ls -l"
const SUDO_LINE = /^([^\s:]+) : (.+)$/;
const SUDO_SETTING = /^([A-Z]+)=(.*)$/;
const SUDO_PASSWORD_FAILURE = /incorrect password attempts?$/;
const COMMAND = 'COMMAND=';

/** Splits off COMMAND, which comes last and may itself contain " ; ". */
function splitSudoCommand(body: string): { settings: string; command?: string } {
  if (body.startsWith(COMMAND)) return { settings: '', command: body.slice(COMMAND.length) };
  const at = body.indexOf(` ; ${COMMAND}`);
  return at < 0 ? { settings: body } : { settings: body.slice(0, at), command: body.slice(at + 3 + COMMAND.length) };
}

export function interpretSudo(message: string, fields: EventFields): boolean {
  const m = SUDO_LINE.exec(message);
  if (!m) return false;
  const { settings, command } = splitSudoCommand(m[2]!);
  let error: string | undefined;
  let sawSetting = false;
  for (const part of settings.split(' ; ')) {
    const setting = SUDO_SETTING.exec(part);
    if (!setting) {
      if (part) error ??= part;
      continue;
    }
    sawSetting = true;
    const [, key, value] = setting;
    if (key === 'USER') setUser(fields, value, 'user.effective.name');
    else if (key === 'PWD' && value) fields['process.working_directory'] = value;
    else if (key === 'TTY' && value) fields['system.auth.sudo.tty'] = value;
  }
  // "alice : unable to resolve host x" and the like: no command line, not read.
  if (!sawSetting && command === undefined) return false;
  setUser(fields, m[1]);
  if (command !== undefined) {
    fields['process.command_line'] = command;
    fields['process.args'] = command.split(' ').filter((arg) => arg !== '');
  }
  if (error) fields['event.reason'] = error;
  const category = error && SUDO_PASSWORD_FAILURE.test(error) ? ['authentication', 'process'] : ['process'];
  categorize(fields, category, ['start'], 'sudo-command', error ? 'failure' : 'success');
  return true;
}


const SU_DEBIAN = /^(?:(FAILED) SU )?\(to ([^)\s]+)\) (\S+) on (\S+)$/;
const SU_VERDICT = /^(Successful|FAILED) su for (\S+) by (\S+)$/;
const SU_SHORT = /^([+-]) (\S+) ([^\s:]+):(\S+)$/;

function switchedUser(fields: EventFields, from: string | undefined, to: string | undefined, outcome: Outcome): void {
  setUser(fields, from);
  setUser(fields, to, 'user.effective.name');
  categorize(fields, ['authentication'], ['info'], 'switched-user', outcome);
}

export function interpretSu(message: string, fields: EventFields): boolean {
  const debian = SU_DEBIAN.exec(message);
  if (debian) {
    switchedUser(fields, debian[3], debian[2], debian[1] ? 'failure' : 'success');
    return true;
  }
  const verdict = SU_VERDICT.exec(message);
  if (verdict) {
    switchedUser(fields, verdict[3], verdict[2], verdict[1] === 'FAILED' ? 'failure' : 'success');
    return true;
  }
  const short = SU_SHORT.exec(message);
  if (!short) return false;
  switchedUser(fields, short[3], short[4], short[1] === '+' ? 'success' : 'failure');
  return true;
}
