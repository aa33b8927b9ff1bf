// Console and terminal logins (login, shadow-utils and util-linux) and the
// sessions systemd-logind opens and removes.
import { canonicalIp } from '../../ip.js';
import type { EventFields } from '../../types.js';
import { categorize, setUser } from './common.js';

// shadow-utils: "FAILED LOGIN (1) on '/dev/tty1' [FROM 'host'] FOR 'alice', Authentication failure";
// util-linux: "FAILED LOGIN 1 FROM tty1 FOR alice, Authentication failure".
const LOGIN_FAILED = /^FAILED LOGIN \(?\d+\)?(?: on '[^']*')?(?: FROM '?([^'\s]+)'?)? FOR '?(.*?)'?, (.+)$/;
const LOGIN_ROOT = /^ROOT LOGIN +(?:on|ON) '?[^'\s]+'?(?: FROM '?([^'\s]+)'?)?$/;
const LOGIN_ON = /^LOGIN ON \S+ BY (\S+)(?: FROM (\S+))?$/;
// shadow-utils' name for a user it does not know.
const UNKNOWN_USER = 'UNKNOWN';

/** FROM is a remote host or, for util-linux, a tty: only an address is a source. */
function setLoginSource(fields: EventFields, from: string | undefined): void {
  const ip = from ? canonicalIp(from) : null;
  if (ip) fields['source.ip'] = ip;
}

export function interpretLogin(message: string, fields: EventFields): boolean {
  const failed = LOGIN_FAILED.exec(message);
  if (failed) {
    if (failed[2] !== UNKNOWN_USER) setUser(fields, failed[2]);
    setLoginSource(fields, failed[1]);
    fields['event.reason'] = failed[3]!;
    categorize(fields, ['authentication'], ['info'], 'logon-failed', 'failure');
    return true;
  }
  const root = LOGIN_ROOT.exec(message);
  const on = root ? null : LOGIN_ON.exec(message);
  if (!root && !on) return false;
  setUser(fields, root ? 'root' : on![1]);
  setLoginSource(fields, root ? root[1] : on![2]);
  categorize(fields, ['authentication', 'session'], ['start'], 'logged-on', 'success');
  return true;
}

const LOGIND_NEW_SESSION = /^New session (\S+) of user (.+?)\.?$/;
const LOGIND_REMOVED_SESSION = /^Removed session (\S+?)\.?$/;

export function interpretLogind(message: string, fields: EventFields): boolean {
  const opened = LOGIND_NEW_SESSION.exec(message);
  if (opened) {
    setUser(fields, opened[2]);
    categorize(fields, ['session'], ['start'], 'logged-on', 'success');
    return true;
  }
  if (!LOGIND_REMOVED_SESSION.test(message)) return false;
  categorize(fields, ['session'], ['end'], 'logged-off', 'success');
  return true;
}
