// Syslog lines (RFC 3164, RFC 5424, rsyslog's RFC 3339 times) as ECS fields, with
// the messages of sshd, PAM, sudo, su, login, systemd-logind and the shadow-utils IAM tools read.
//
// Event names follow Filebeat's system/auth module where it has one (ssh_login,
// its event.category/type/outcome), Winlogbeat-style names elsewhere
// (logged-on, added-member-to-group). Lines from other programs keep the header
// and the message, nothing guessed. A message that syslog folded into "message
// repeated N times: [ ... ]" is read as the inner message with event.repeat_count N.
import { canonicalIp } from '../ip.js';
import { parseSyslogHeader, syslogFields } from '../syslog-header.js';
import type { EventFields, FormatParser } from '../types.js';

/** Reads one program's message into `fields`; false when the message is not a shape it knows. */
type Interpreter = (message: string, fields: EventFields) => boolean;
type Outcome = 'success' | 'failure';

// ---------------------------------------------------------------- helpers

function setUser(fields: EventFields, name: string | undefined, field = 'user.name'): void {
  if (name) fields[field] = name;
}

const HOST_NAME = /^[A-Za-z0-9](?:[A-Za-z0-9.-]*[A-Za-z0-9])?$/;

/** A peer address: an IP goes to source.ip, a name (sshd with UseDNS, PAM rhost) to source.domain. */
function setSource(fields: EventFields, address: string | undefined, port?: string): void {
  if (address) {
    const ip = canonicalIp(address);
    if (ip) fields['source.ip'] = ip;
    else if (HOST_NAME.test(address) && address !== 'UNKNOWN') fields['source.domain'] = address;
  }
  if (port) fields['source.port'] = Number(port);
}

function categorize(fields: EventFields, category: string[], type: string[], action: string, outcome?: Outcome): void {
  fields['event.category'] = category;
  fields['event.type'] = type;
  fields['event.action'] = action;
  if (outcome) fields['event.outcome'] = outcome;
}

/** The first word of a message, the key most interpreters dispatch on. */
function firstWord(message: string): string {
  const space = message.indexOf(' ');
  return space < 0 ? message : message.slice(0, space);
}

// ---------------------------------------------------------------- sshd

// The login verdict: Accepted/Failed are outcomes; Postponed/Partial are steps of one login.
const SSH_AUTH = /^(Accepted|Failed|Postponed|Partial) (\S+) for (invalid user )?(.*?) from (\S+) port (\d+)(?: ssh[12])?(?:: (.+))?$/;
const SSH_INVALID_USER = /^Invalid user (.*?) from (\S+)(?: port (\d+))?$/;
const SSH_INVALID_USER_PREAUTH = /^input_userauth_request: invalid user (.*?)(?: \[preauth\])?$/;
const SSH_REVERSE_MAPPING = /^reverse mapping checking getaddrinfo for (\S+) \[([^\]]+)\] failed/;
const SSH_ADDRESS_MISMATCH = /^Address (\S+) maps to (\S+), but this does not map back/;
// OpenSSH >= 7.x: "from IP port P:11: reason"; older: "from IP: 11: reason" (the IP may be IPv6, so anchor on ": ").
const SSH_RECEIVED_DISCONNECT = /^Received disconnect from (\S+) port (\d+):(\d+): ?(.*?)(?: \[preauth\])?$/;
const SSH_RECEIVED_DISCONNECT_OLD = /^Received disconnect from (\S+): (\d+): ?(.*?)(?: \[preauth\])?$/;
const SSH_DISCONNECTED = /^Disconnected from (?:(invalid|authenticating) )?(?:user (.*?) )?(\S+) port (\d+)(?: \[preauth\])?$/;
const SSH_CONNECTION_CLOSED = /^Connection (?:closed|reset) by (?:(invalid|authenticating) )?(?:user (.*?) )?(\S+?)(?: port (\d+))?(?: \[preauth\])?$/;
const SSH_CONNECTION_FROM = /^Connection from (\S+) port (\d+) on (\S+) port (\d+)/;
const SSH_MAX_ATTEMPTS = /^maximum authentication attempts exceeded for (invalid user )?(.*?) from (\S+) port (\d+)/;
const SSH_DISCONNECTING_USER = /^Disconnecting (?:(invalid|authenticating) )?user (.*?) (\S+) port (\d+): (.*?)(?: \[preauth\])?$/;
const SSH_DISCONNECTING = /^Disconnecting: (.*?)(?: \[preauth\])?$/;
const SSH_TOO_MANY_FAILURES = /^Too many authentication failures(?: for (?:invalid user )?(.+))?$/;
const SSH_NO_IDENTIFICATION = /^Did not receive identification string from (\S+)(?: port (\d+))?/;
const SSH_USER_NOT_ALLOWED = /^User (.+?) from (\S+) not allowed because (.+)$/;
const SSH_ROOT_REFUSED = /^ROOT LOGIN REFUSED FROM (\S+)(?: port (\d+))?/;
// sshd names the peer "from/by/with/for IP port P" in its other messages.
const SSH_ANY_PEER = /\b(?:from|by|with|for) (\S+) port (\d+)\b/;

function sshLogin(message: string, fields: EventFields): boolean {
  const m = SSH_AUTH.exec(message);
  if (!m) return false;
  const [, verdict, method, invalidUser, user, address, port, key] = m;
  fields['system.auth.ssh.event'] = verdict!;
  fields['system.auth.ssh.method'] = method!;
  if (key) fields['system.auth.ssh.signature'] = key;
  setUser(fields, user);
  setSource(fields, address, port);
  if (invalidUser) fields['event.reason'] = 'invalid user';
  if (verdict === 'Accepted') categorize(fields, ['authentication', 'session'], ['info'], 'ssh_login', 'success');
  else if (verdict === 'Failed') categorize(fields, ['authentication'], ['info'], 'ssh_login', 'failure');
  return true;
}

/** "Invalid user X from IP": Filebeat counts it as a failed ssh_login, and so do we. */
function sshInvalidUser(message: string, fields: EventFields): boolean {
  const m = SSH_INVALID_USER.exec(message);
  if (!m) return false;
  fields['system.auth.ssh.event'] = 'Invalid';
  setUser(fields, m[1]);
  setSource(fields, m[2], m[3]);
  fields['event.reason'] = 'invalid user';
  categorize(fields, ['authentication'], ['info'], 'ssh_login', 'failure');
  return true;
}

/** The preauth echo of "Invalid user": the name only, not a second failure. */
function sshInvalidUserPreauth(message: string, fields: EventFields): boolean {
  const m = SSH_INVALID_USER_PREAUTH.exec(message);
  if (!m) return false;
  setUser(fields, m[1]);
  fields['event.reason'] = 'invalid user';
  return true;
}

/** The peer's reverse DNS does not match its address (sshd says POSSIBLE BREAK-IN ATTEMPT). */
function sshReverseMapping(message: string, fields: EventFields): boolean {
  const reverse = SSH_REVERSE_MAPPING.exec(message);
  const mismatch = reverse ? null : SSH_ADDRESS_MISMATCH.exec(message);
  const [domain, address] = reverse ? [reverse[1], reverse[2]] : mismatch ? [mismatch[2], mismatch[1]] : [];
  if (!address) return false;
  setSource(fields, address);
  if (domain && HOST_NAME.test(domain)) fields['source.domain'] = domain;
  categorize(fields, ['network'], ['info'], 'ssh_reverse_dns_mismatch');
  return true;
}

function sshDisconnect(fields: EventFields, address: string | undefined, port: string | undefined, reason: string | undefined): void {
  setSource(fields, address, port);
  if (reason) fields['event.reason'] = reason;
  categorize(fields, ['network'], ['end'], 'ssh_disconnect');
}

function sshReceivedDisconnect(message: string, fields: EventFields): boolean {
  const m = SSH_RECEIVED_DISCONNECT.exec(message);
  if (m) {
    sshDisconnect(fields, m[1], m[2], m[4]);
    return true;
  }
  const old = SSH_RECEIVED_DISCONNECT_OLD.exec(message);
  if (!old) return false;
  sshDisconnect(fields, old[1], undefined, old[3]);
  return true;
}

function sshDisconnected(message: string, fields: EventFields): boolean {
  const m = SSH_DISCONNECTED.exec(message);
  if (!m) return false;
  setUser(fields, m[2]);
  if (m[1] === 'invalid') fields['event.reason'] = 'invalid user';
  sshDisconnect(fields, m[3], m[4], undefined);
  return true;
}

/** "Connection closed|reset by ..." (the peer left) or "Connection from IP port P on IP port P". */
function sshConnection(message: string, fields: EventFields): boolean {
  const from = SSH_CONNECTION_FROM.exec(message);
  if (from) {
    setSource(fields, from[1], from[2]);
    const server = canonicalIp(from[3]!);
    if (server) fields['destination.ip'] = server;
    fields['destination.port'] = Number(from[4]);
    categorize(fields, ['network'], ['start'], 'ssh_connection');
    return true;
  }
  const m = SSH_CONNECTION_CLOSED.exec(message);
  if (!m) return false;
  setUser(fields, m[2]);
  if (m[1] === 'invalid') fields['event.reason'] = 'invalid user';
  setSource(fields, m[3], m[4]);
  categorize(fields, ['network'], ['end'], 'ssh_connection_closed');
  return true;
}

function sshTooManyFailures(fields: EventFields, user: string | undefined): void {
  setUser(fields, user);
  fields['event.reason'] = 'too many authentication failures';
  categorize(fields, ['authentication'], ['info'], 'ssh_max_auth_attempts', 'failure');
}

function sshMaxAttempts(message: string, fields: EventFields): boolean {
  const m = SSH_MAX_ATTEMPTS.exec(message);
  if (!m) return false;
  setSource(fields, m[3], m[4]);
  sshTooManyFailures(fields, m[2]);
  return true;
}

function sshDisconnecting(message: string, fields: EventFields): boolean {
  const withUser = SSH_DISCONNECTING_USER.exec(message);
  if (withUser) {
    setSource(fields, withUser[3], withUser[4]);
    if (withUser[5]!.startsWith('Too many authentication failures')) sshTooManyFailures(fields, withUser[2]);
    else sshDisconnect(fields, undefined, undefined, withUser[5]);
    setUser(fields, withUser[2]);
    return true;
  }
  const m = SSH_DISCONNECTING.exec(message);
  if (!m) return false;
  const tooMany = SSH_TOO_MANY_FAILURES.exec(m[1]!);
  if (tooMany) sshTooManyFailures(fields, tooMany[1]);
  else sshDisconnect(fields, undefined, undefined, m[1]);
  return true;
}

/** A connection that never spoke SSH (a port scan); Filebeat takes its IP as source.ip. */
function sshNoIdentification(message: string, fields: EventFields): boolean {
  const m = SSH_NO_IDENTIFICATION.exec(message);
  if (!m) return false;
  setSource(fields, m[1], m[2]);
  categorize(fields, ['network'], ['info'], 'ssh_no_identification');
  return true;
}

/** Logins refused by configuration (AllowUsers, PermitRootLogin): failed logins. */
function sshRefused(message: string, fields: EventFields): boolean {
  const notAllowed = SSH_USER_NOT_ALLOWED.exec(message);
  const root = notAllowed ? null : SSH_ROOT_REFUSED.exec(message);
  if (notAllowed) {
    setUser(fields, notAllowed[1]);
    setSource(fields, notAllowed[2]);
    fields['event.reason'] = notAllowed[3]!;
  } else if (root) {
    setUser(fields, 'root');
    setSource(fields, root[1], root[2]);
  } else {
    return false;
  }
  categorize(fields, ['authentication'], ['info'], 'ssh_login', 'failure');
  return true;
}

const SSHD_BY_FIRST_WORD = new Map<string, Interpreter>([
  ['Accepted', sshLogin],
  ['Failed', sshLogin],
  ['Postponed', sshLogin],
  ['Partial', sshLogin],
  ['Invalid', sshInvalidUser],
  ['input_userauth_request:', sshInvalidUserPreauth],
  ['reverse', sshReverseMapping],
  ['Address', sshReverseMapping],
  ['Received', sshReceivedDisconnect],
  ['Disconnected', sshDisconnected],
  ['Connection', sshConnection],
  ['maximum', sshMaxAttempts],
  ['Disconnecting', sshDisconnecting],
  ['Disconnecting:', sshDisconnecting],
  ['Did', sshNoIdentification],
  ['User', sshRefused],
  ['ROOT', sshRefused],
  ['PAM', pamSummary],
]);

function interpretSshd(message: string, fields: EventFields): boolean {
  // "error: ..." and "fatal: ..." wrap the same messages.
  const text = message.startsWith('error: ') || message.startsWith('fatal: ') ? message.slice(7) : message;
  if (SSHD_BY_FIRST_WORD.get(firstWord(text))?.(text, fields)) return true;
  const peer = SSH_ANY_PEER.exec(text);
  const ip = peer ? canonicalIp(peer[1]!) : null;
  if (!peer || !ip) return false;
  fields['source.ip'] = ip;
  fields['source.port'] = Number(peer[2]);
  return true;
}

// ---------------------------------------------------------------- PAM

// pam_module(service:facility): text
const PAM_PREFIX = /^pam_[\w-]+\([^:)]*:\w+\): /;
// Linux-PAM >= 1.5 adds "(uid=N)" after the user: "session opened for user alice(uid=1000) by (uid=0)".
const PAM_SESSION = /^session (opened|closed) for user ([^\s(]+)(?:\(uid=(\d+)\))?(?: by ([^\s(]*)(?:\(uid=\d+\))?)?$/;
// The fixed key order of pam_unix and pam_sss: "logname= uid=0 euid=0 tty=ssh ruser= rhost=1.2.3.4  user=root".
const PAM_FAILURE_KEYS = /ruser=(\S*) rhost=(\S*)(?:\s+user=(\S+))?/;
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
  const [, remoteUser, remoteHost, user] = m;
  if (remoteUser && user && remoteUser !== user) {
    // su: "ruser=alice ... user=root" — alice tried to become root.
    setUser(fields, remoteUser);
    setUser(fields, user, 'user.effective.name');
  } else {
    setUser(fields, user ?? remoteUser);
  }
  setSource(fields, remoteHost);
}

function interpretPam(message: string, fields: EventFields): boolean {
  const prefix = PAM_PREFIX.exec(message);
  const text = prefix ? message.slice(prefix[0].length) : message;
  const session = text.startsWith('session ') ? PAM_SESSION.exec(text) : null;
  if (session) {
    pamSession(session, fields);
  } else if (text.startsWith('authentication failure;')) {
    pamFailureKeys(text, fields);
    categorize(fields, ['authentication'], ['info'], 'authentication-failed', 'failure');
  } else if (text === 'check pass; user unknown') {
    fields['event.reason'] = 'user unknown';
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
function pamSummary(message: string, fields: EventFields): boolean {
  if (!message.startsWith('PAM ') || !message.includes(' more authentication failure')) return false;
  pamFailureKeys(message, fields);
  return true;
}

// ---------------------------------------------------------------- sudo

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

function interpretSudo(message: string, fields: EventFields): boolean {
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

// ---------------------------------------------------------------- su, login, systemd-logind

const SU_DEBIAN = /^(?:(FAILED) SU )?\(to ([^)\s]+)\) (\S+) on (\S+)$/;
const SU_VERDICT = /^(Successful|FAILED) su for (\S+) by (\S+)$/;
const SU_SHORT = /^([+-]) (\S+) ([^\s:]+):(\S+)$/;

function switchedUser(fields: EventFields, from: string | undefined, to: string | undefined, outcome: Outcome): void {
  setUser(fields, from);
  setUser(fields, to, 'user.effective.name');
  categorize(fields, ['authentication'], ['info'], 'switched-user', outcome);
}

function interpretSu(message: string, fields: EventFields): boolean {
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

function interpretLogin(message: string, fields: EventFields): boolean {
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

function interpretLogind(message: string, fields: EventFields): boolean {
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

// ---------------------------------------------------------------- useradd, groupadd, usermod, userdel, groupdel, groupmod, gpasswd

const NEW_USER = /^new user: name=([^,]+), UID=(\d+), GID=(\d+), home=([^,]*), shell=([^,]*?)(?:, from=.*)?$/;
const NEW_GROUP = /^(?:new group|group added to \S+): name=([^,]+)(?:, GID=(\d+))?$/;
const GROUP_MEMBERSHIP = /^(add|delete) '([^']+)' (?:to|from) (?:shadow )?group '([^']+)'$/;
const GPASSWD_MEMBERSHIP = /^user (\S+) (added|removed) by \S+ (?:to|from) group (\S+)$/;
const DELETE_USER = /^delete user '([^']+)'/;
const GROUP_REMOVED = /^(?:group '([^']+)' removed|removed (?:shadow )?group '([^']+)' owned by)/;
const USER_CHANGED = /^(?:change|lock|unlock) user (?:name )?'([^']+)'/;
const GROUP_CHANGED = /^group changed in \S+ \(group ([^/\s]+)\/(\d+)/;
const USER_ADD_FAILED = /^failed adding user '([^']+)'/;

function iam(fields: EventFields, type: string[], action: string, outcome: Outcome = 'success'): true {
  categorize(fields, ['iam'], type, action, outcome);
  return true;
}

function interpretIam(message: string, fields: EventFields): boolean {
  let m: RegExpExecArray | null;
  if ((m = GROUP_MEMBERSHIP.exec(message)) || (m = GPASSWD_MEMBERSHIP.exec(message))) {
    // The two shapes order their groups differently: (verb, user, group) and (user, verb, group).
    const added = m[1] === 'add' || m[2] === 'added';
    const [user, group] = m[1] === 'add' || m[1] === 'delete' ? [m[2], m[3]] : [m[1], m[3]];
    setUser(fields, user);
    fields['group.name'] = group!;
    return iam(fields, ['group', 'change'], added ? 'added-member-to-group' : 'removed-member-from-group');
  }
  if ((m = NEW_USER.exec(message))) {
    setUser(fields, m[1]);
    fields['user.id'] = m[2]!;
    fields['group.id'] = m[3]!;
    if (m[4]) fields['system.auth.useradd.home'] = m[4];
    if (m[5]) fields['system.auth.useradd.shell'] = m[5];
    return iam(fields, ['user', 'creation'], 'added-user-account');
  }
  if ((m = NEW_GROUP.exec(message))) {
    fields['group.name'] = m[1]!;
    if (m[2]) fields['group.id'] = m[2];
    return iam(fields, ['group', 'creation'], 'added-group-account');
  }
  if ((m = DELETE_USER.exec(message))) {
    setUser(fields, m[1]);
    return iam(fields, ['user', 'deletion'], 'deleted-user-account');
  }
  if ((m = GROUP_REMOVED.exec(message))) {
    fields['group.name'] = (m[1] ?? m[2])!;
    return iam(fields, ['group', 'deletion'], 'deleted-group-account');
  }
  if ((m = USER_CHANGED.exec(message))) {
    setUser(fields, m[1]);
    return iam(fields, ['user', 'change'], 'modified-user-account');
  }
  if ((m = GROUP_CHANGED.exec(message))) {
    fields['group.name'] = m[1]!;
    fields['group.id'] = m[2]!;
    return iam(fields, ['group', 'change'], 'modified-group-account');
  }
  if ((m = USER_ADD_FAILED.exec(message))) {
    setUser(fields, m[1]);
    return iam(fields, ['user', 'creation'], 'added-user-account', 'failure');
  }
  return false;
}

// ---------------------------------------------------------------- dispatch

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
