// PAM's messages, whichever program logged them: sessions opened and closed,
// authentication failures and their summaries, password changes.
import type { EventFields } from '../../types.js';
import { categorize, setSource, setUser } from './common.js';

// pam_module(service:facility): text
const PAM_PREFIX = /^pam_[\w-]+\([^:)]*:\w+\): /;
// Linux-PAM >= 1.5 adds "(uid=N)" after the user: "session opened for user alice(uid=1000) by (uid=0)".
const PAM_SESSION = /^session (opened|closed) for user ([^\s(]+)(?:\(uid=(\d+)\))?(?: by ([^\s(]*)(?:\(uid=\d+\))?)?$/;
// The fixed key order of pam_unix and pam_sss: "logname= uid=0 euid=0 tty=ssh ruser= rhost=1.2.3.4  user=root".
// A remote user name may hold spaces and even "rhost=": the address is the rhost right
// before " user=", else the last one.
const PAM_FAILURE_KEYS = /ruser=(\S*) (?:.* )?rhost=(\S*)\s+user=(\S+)|ruser=(\S*) (?:.* )?rhost=(\S*)\s*$/;
const PAM_PASSWORD_CHANGED = /^password changed for (\S+)$/;
// Where other PAM messages name the user: "... not met by user "root"", "... for user alice".
const PAM_QUOTED_USER = / user ["']([^"']+)["']/;
const PAM_FOR_USER = / (?:for|by) user (\S+?)$/;
// "by LOGIN(uid=0)": login's placeholder for the calling process, not a person.
const NOT_A_USER = 'LOGIN';

function pamSession(m: RegExpExecArray, fields: EventFields): void {
  const [, verb, target, targetUid, by] = m;
  if (by && by !== target && by !== NOT_A_USER) {
    // sudo/su: "for user root by alice(uid=0)" — alice acts as root.
    setUser(fields, by);
    setUser(fields, target, 'user.effective.name');
    if (targetUid) fields['user.effective.id'] = targetUid;
  } else {
    setUser(fields, target);
    if (targetUid) fields['user.id'] = targetUid;
  }
  const opened = verb === 'opened';
  categorize(fields, ['session'], [opened ? 'start' : 'end'], opened ? 'logged-on' : 'logged-off', 'success');
}

/** The keys of a PAM authentication failure: the account tried, the remote user and host. */
function pamFailureKeys(text: string, fields: EventFields): void {
  const m = PAM_FAILURE_KEYS.exec(text);
  if (!m) return;
  const [remoteUser, remoteHost, user] = m[1] !== undefined ? [m[1], m[2], m[3]] : [m[4], m[5], undefined];
  if (remoteUser && user && remoteUser !== user) {
    // su: "ruser=alice ... user=root" — alice tried to become root.
    setUser(fields, remoteUser);
    setUser(fields, user, 'user.effective.name');
  } else {
    setUser(fields, user ?? remoteUser);
  }
  setSource(fields, remoteHost);
}

export function interpretPam(message: string, fields: EventFields): boolean {
  const prefix = PAM_PREFIX.exec(message);
  const text = prefix ? message.slice(prefix[0].length) : message;
  const session = text.startsWith('session ') ? PAM_SESSION.exec(text) : null;
  if (session) {
    pamSession(session, fields);
  } else if (text.startsWith('authentication failure;')) {
    pamFailureKeys(text, fields);
    categorize(fields, ['authentication'], ['info'], 'authentication-failed', 'failure');
  } else if (text === 'check pass; user unknown') {
    // pam_unix checked a password for an account that does not exist: a failed attempt (the
    // "authentication failure; ... user=..." line after it names the peer).
    fields['event.reason'] = 'user unknown';
    categorize(fields, ['authentication'], ['info'], 'user-unknown', 'failure');
  } else {
    const password = PAM_PASSWORD_CHANGED.exec(text);
    if (password) {
      setUser(fields, password[1]);
      categorize(fields, ['iam'], ['user', 'change'], 'changed-password', 'success');
    } else {
      setUser(fields, (PAM_QUOTED_USER.exec(text) ?? PAM_FOR_USER.exec(text))?.[1]);
    }
  }
  return true;
}

/** "PAM 4 more authentication failures; ...": a summary of failures already logged one by one. */
export function pamSummary(message: string, fields: EventFields): boolean {
  if (!message.startsWith('PAM ') || !message.includes(' more authentication failure')) return false;
  pamFailureKeys(message, fields);
  return true;
}
