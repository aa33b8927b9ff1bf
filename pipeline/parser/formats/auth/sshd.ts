// sshd's messages: login verdicts, invalid users, disconnects, refused logins
// and scans, as Filebeat's system/auth module names them (ssh_login ...).
import { canonicalIp } from '../../ip.js';
import type { EventFields } from '../../types.js';
import { categorize, HOST_NAME, setSource, setUser, type Interpreter } from './common.js';
import { pamSummary } from './pam.js';

/** The first word of a message, the key sshd's messages are told apart by. */
function firstWord(message: string): string {
  const space = message.indexOf(' ');
  return space < 0 ? message : message.slice(0, space);
}

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

export function interpretSshd(message: string, fields: EventFields): boolean {
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
