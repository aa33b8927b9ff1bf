// sshd's messages: login verdicts, invalid users, disconnects, refused logins
// and scans, as Filebeat's system/auth module names them (ssh_login ...).
//
// Connections that end before authentication (sshd marks them "[preauth]"):
// a client that leaves or is cut off before logging in is a failed
// connection, event.category network, type end, outcome failure; the user
// it tried, when sshd names one, goes to user.name. They are not
// authentication failures: the login verdicts (Failed ..., Invalid user,
// too many authentication failures) already count those, and a rule that
// counts failed logins must not count one attempt twice. A disconnect whose
// reason says authentication failed (code 14, "Auth fail") is one.
// Protocol failures before a session (no identification string, bad
// banners, key exchange errors) are network, type protocol, outcome failure.
// The same messages without [preauth] end a session normally: no outcome.
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
const SSH_AUTH = /^(Accepted|Failed|Postponed|Partial) (\S+) for (invalid user )?(.*?) from (\S+)(?: port (\d+))?(?: ssh[12])?(?:: (.+))?$/;
const SSH_INVALID_USER = /^Invalid user (.*?) from (\S+)(?: port (\d+))?$/;
const SSH_INVALID_USER_PREAUTH = /^input_userauth_request: invalid user (.*?)(?: \[preauth\])?$/;
const SSH_REVERSE_MAPPING = /^reverse mapping checking getaddrinfo for (\S+) \[([^\]]+)\] failed/;
const SSH_ADDRESS_MISMATCH = /^Address (\S+) maps to (\S+), but this does not map back/;
// OpenSSH >= 7.x: "from IP port P:11: reason"; older: "from IP: 11: reason" (the IP may be IPv6, so anchor on ": ").
const SSH_RECEIVED_DISCONNECT = /^Received disconnect from (\S+) port (\d+):(\d+): ?(.*?)( \[preauth\])?$/;
const SSH_RECEIVED_DISCONNECT_OLD = /^Received disconnect from (\S+): (\d+): ?(.*?)( \[preauth\])?$/;
const SSH_DISCONNECTED = /^Disconnected from (?:(invalid|authenticating) )?(?:user (.*?) )?(\S+) port (\d+)( \[preauth\])?$/;
const SSH_CONNECTION_CLOSED = /^Connection (?:closed|reset) by (?:(invalid|authenticating) )?(?:user (.*?) )?(\S+?)(?: port (\d+))?( \[preauth\])?$/;
// SSH_DISCONNECT_NO_MORE_AUTH_METHODS_AVAILABLE (14), or a client saying its authentication failed.
const AUTH_FAILED_REASON = /^14$|auth(?:entication)? fail/i;
// Failures of the protocol before authentication; sshd names no peer in most of them.
const SSH_PROTOCOL_FAILURE = /^(?:kex_exchange_identification: (.*)|Unable to negotiate a key exchange method|no matching (?:mac|cipher|host key type|key exchange method) found\b.*?|(?:Read from socket failed|ssh_dispatch_run_fatal): (?:Connection from (\S+) port (\d+): )?(.*?))(?: \[preauth\])?$/;
const SSH_CONNECTION_FROM = /^Connection from (\S+) port (\d+) on (\S+) port (\d+)/;
const SSH_MAX_ATTEMPTS = /^maximum authentication attempts exceeded for (invalid user )?(.*?) from (\S+) port (\d+)/;
const SSH_DISCONNECTING_USER = /^Disconnecting (?:(invalid|authenticating) )?user (.*?) (\S+) port (\d+): (.*?)(?: \[preauth\])?$/;
const SSH_DISCONNECTING = /^Disconnecting: (.*?)(?: \[preauth\])?$/;
const SSH_TOO_MANY_FAILURES = /^Too many authentication failures(?: for (?:invalid user )?(.+))?$/;
const SSH_NO_IDENTIFICATION = /^Did not receive identification string from (\S+)(?: port (\d+))?/;
const SSH_USER_NOT_ALLOWED = /^User (.+?)(?: from (\S+))? not allowed because (.+)$/;
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
  categorize(fields, ['authentication'], ['info'], 'ssh_invalid_user');
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

/** How a connection's end reads: before authentication a failure (see the top of the file), otherwise a plain end. */
function connectionEnd(fields: EventFields, action: string, preauth: boolean, userState?: string): void {
  if (userState === 'invalid') fields['event.reason'] = 'invalid user';
  else if (preauth) fields['event.reason'] ??= 'closed before authentication';
  categorize(fields, ['network'], ['end'], action, preauth || userState !== undefined ? 'failure' : undefined);
}

function sshDisconnect(fields: EventFields, address: string | undefined, port: string | undefined, reason: string | undefined, preauth = false): void {
  setSource(fields, address, port);
  if (reason) fields['event.reason'] = reason;
  connectionEnd(fields, 'ssh_disconnect', preauth);
}

function sshReceivedDisconnect(message: string, fields: EventFields): boolean {
  const m = SSH_RECEIVED_DISCONNECT.exec(message);
  const old = m ? null : SSH_RECEIVED_DISCONNECT_OLD.exec(message);
  if (!m && !old) return false;
  const [address, port, code, reason, preauth] = m ? [m[1], m[2], m[3], m[4], m[5]] : [old![1], undefined, old![2], old![3], old![4]];
  if (AUTH_FAILED_REASON.test(code!) || AUTH_FAILED_REASON.test(reason!)) {
    setSource(fields, address, port);
    if (reason) fields['event.reason'] = reason;
    categorize(fields, ['authentication'], ['end'], 'ssh_disconnect', 'failure');
  } else {
    sshDisconnect(fields, address, port, reason, preauth !== undefined);
  }
  return true;
}

function sshDisconnected(message: string, fields: EventFields): boolean {
  const m = SSH_DISCONNECTED.exec(message);
  if (!m) return false;
  setUser(fields, m[2]);
  setSource(fields, m[3], m[4]);
  connectionEnd(fields, 'ssh_disconnect', m[5] !== undefined, m[1]);
  return true;
}

/** Key exchange and banner failures, a socket reset before authentication: a connection that failed at the protocol. */
function sshProtocolFailure(message: string, fields: EventFields): boolean {
  const m = SSH_PROTOCOL_FAILURE.exec(message);
  if (!m) return false;
  setSource(fields, m[2], m[3]);
  fields['event.reason'] = m[1] ?? m[4] ?? message.replace(/ \[preauth\]$/, '');
  categorize(fields, ['network'], ['protocol'], 'ssh_protocol_failure', 'failure');
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
  setSource(fields, m[3], m[4]);
  connectionEnd(fields, 'ssh_connection_closed', m[5] !== undefined, m[1]);
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
  categorize(fields, ['network'], ['protocol'], 'ssh_no_identification', 'failure');
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
  ['kex_exchange_identification:', sshProtocolFailure],
  ['Unable', sshProtocolFailure],
  ['no', sshProtocolFailure],
  ['Read', sshProtocolFailure],
  ['ssh_dispatch_run_fatal:', sshProtocolFailure],
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
