// Linux audit records, one record a line, as auditd writes them to
// /var/log/audit/audit.log or as they reach syslog:
//
//   type=USER_LOGIN msg=audit(1364481363.243:24287): pid=1 uid=0 auid=4294967295 ses=4294967295 msg='op=login acct="root" exe="/usr/sbin/sshd" hostname=? addr=203.0.113.9 terminal=ssh res=failed'
//   node=web1 type=SYSCALL msg=audit(...): arch=c000003e syscall=59 success=yes ... comm="ls" exe="/usr/bin/ls" key=(null)<GS>ARCH=x86_64 SYSCALL=execve AUID="alice" UID="root" ...
//   Nov 22 06:01:02 web1 audispd: node=web1 type=... msg=audit(...): ...         (audisp/audisp-syslog, rsyslog imfile)
//   Nov 22 06:01:02 web1 kernel: [  12.345678] audit: type=1400 audit(...): apparmor="DENIED" ...   (printk, no auditd)
//   Nov 22 06:01:02 web1 audit[1234]: USER_LOGIN pid=1234 uid=0 ... msg='...'   (systemd-journald; no serial)
//
// The record is the header "type=T msg=audit(EPOCH:SERIAL):" and key=value
// pairs. Values are "quoted", bare, or, for strings the kernel or auditd does
// not trust (command lines, paths, names), hex-encoded when they hold a
// space, a quote, a control or a non-ASCII byte: such a value is unquoted and
// would have been quoted otherwise, which is how it is told from a bare word
// (auditd's rule; see decodeUntrusted). User-space records nest a second list
// in msg='...'. With log_format=ENRICHED, auditd appends the interpreted
// values (names of uids, syscalls, architectures) in upper case after a GS
// (0x1d) character. Every key lands under auditd.log.<key> (as Elastic's
// auditd module writes them, so its searches carry over); the ECS view is
// built from them (mapRecord). Records of one event share EPOCH:SERIAL and
// are joined by the analysis stage (pipeline/analysis/audit-join.ts).
import { canonicalIp } from '../ip.js';
import { parseSyslogHeader, syslogFields, type SyslogHeader } from '../syslog-header.js';
import type { EventFields, FormatParser, ParseContext } from '../types.js';
import { setOwn } from '../../../lib/lookup-table.js';
import { AF_INET, AF_INET6, AF_UNIX, ARCHITECTURES, isKnownRecordType, recordClass, recordTypeName, syscallClass, syscallName, type EcsClass } from './linux-audit-tables.js';

export const LINUX_AUDIT_PARSER = 'linux-audit';

/** Cheap prefilter: every form holds "audit(" (the record header), "audit[" or "audit:" (journald's and the kernel's tags). */
const MARKER = /audit[([:]/;
/** The record header, from "type=": a name, a number (printk) or UNKNOWN[n]; "msg=" is missing in the printk form. */
const HEAD = /type=([A-Z0-9_]{1,40}|UNKNOWN\[\d{1,6}\]) (?:msg=)?audit\((\d{1,12})\.(\d{1,9}):(\d{1,20})\):? ?/y;
/** Where the header may start: after a syslog header, a node name and the program tags, never further in. */
const MAX_HEAD_AT = 2048;
/** journald's form: the record type name first, then the fields. */
const JOURNAL_TYPE = /^([A-Z][A-Z0-9_]{1,40})(?: |$)/;
/** A key as audit writes them: a0, a0_len, a0[1], old-auid, new_gid, SYSCALL. */
const KEY = /^[A-Za-z][\w-]{0,63}(?:\[\d{1,6}\])?$/;
/** Pairs read from one record (a 100 KB EXECVE can hold thousands); the rest of the line is left in `message`. */
const MAX_PAIRS = 512;
const MAX_ARGS = 512;

const UNSET_IDS = new Set(['4294967295', '-1']);
/** Strings the kernel and auditd hex-encode when untrusted (audit_log_untrustedstring, audit_encode_nv_string). */
const UNTRUSTED_STRINGS = new Set(['proctitle', 'acct', 'cmd', 'comm', 'exe', 'name', 'cwd', 'key', 'path', 'ocomm', 'data', 'dir', 'watch', 'vm', 'grp', 'new_group', 'old-chardev', 'new-chardev']);
const SUCCESS_WORDS = new Set(['success', 'yes', '1']);
const FAILURE_WORDS = new Set(['failed', 'no', '0', 'failure']);
const HOST_NAME = /^(?=.*[A-Za-z])[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?$/;

/** One record's pairs, first occurrence of a key kept, values decoded; bare words (avc's "denied", "{ read }") apart. */
interface Pairs {
  values: Map<string, string>;
  words: string[];
  /** Brace sets: avc's permissions "{ read write }". */
  sets: string[];
  /** EXECVE's long arguments, "a1[0]", "a1[1]" ..., by argument. */
  chunks?: Map<number, string[]>;
  count: number;
}

// ---------------------------------------------------------------- reading

const SPACE = 0x20;
const TAB = 0x09;
const GS = 0x1d;
const EQUALS = 0x3d;
const DQUOTE = 0x22;
const SQUOTE = 0x27;
const OPEN_BRACE = 0x7b;
const OPEN_PAREN = 0x28;

function isSeparator(c: number): boolean {
  return c === SPACE || c === GS || c === TAB;
}

/** Whether the value's bytes would have made auditd encode it: a space, a quote, a control or a non-ASCII byte. */
function needsEncoding(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c <= SPACE || c === DQUOTE || c >= 0x7f) return true;
  }
  return false;
}

function isEvenHex(text: string): boolean {
  if (text.length < 2 || text.length % 2 !== 0) return false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i) | 0x20;
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * An untrusted string as auditd meant it. Unquoted even-length hex is an
 * encoded value only when what it decodes to would have needed encoding and
 * is valid UTF-8: a user named "cafe" or "deadbeef" (bare, since nothing in
 * it needs quoting) stays a name.
 */
function decodeUntrusted(value: string): string {
  if (!isEvenHex(value)) return value;
  let text: string;
  try {
    text = UTF8.decode(Buffer.from(value, 'hex'));
  } catch {
    return value;
  }
  return needsEncoding(text) ? text : value;
}

/** Text of hex bytes (the chunks of a long argument), or null when it is not hex. */
function hexText(value: string): string | null {
  return isEvenHex(value) ? Buffer.from(value, 'hex').toString('utf8') : null;
}

function addPair(pairs: Pairs, key: string, value: string, quoted: boolean, argChunks: boolean): void {
  if (pairs.values.has(key)) return;
  if (argChunks && key.endsWith(']')) {
    // a1[0]=... a1[1]=...: EXECVE's argument too long for one field, in pieces.
    const open = key.indexOf('[');
    const arg = Number(key.slice(1, open));
    if (key.charCodeAt(0) === 0x61 && Number.isInteger(arg)) {
      pairs.chunks ??= new Map();
      let list = pairs.chunks.get(arg);
      if (!list) pairs.chunks.set(arg, (list = []));
      list[Number(key.slice(open + 1, -1))] = quoted ? value : (hexText(value) ?? value);
      pairs.count++;
      return;
    }
  }
  const untrusted = !quoted && (UNTRUSTED_STRINGS.has(key) || (argChunks && /^a\d+$/.test(key)));
  pairs.values.set(key, untrusted ? decodeUntrusted(value) : value);
  pairs.count++;
}

/**
 * Reads key=value pairs and bare words between `start` and `end`. One pass:
 * each quoted value ends at the next quote of its kind (audit values never
 * hold one: it would have been hex-encoded), a msg='...' list is read in place.
 */
function readPairs(text: string, start: number, end: number, pairs: Pairs, argChunks: boolean): void {
  let i = start;
  while (i < end && pairs.count < MAX_PAIRS) {
    const c = text.charCodeAt(i);
    if (isSeparator(c)) {
      i++;
      continue;
    }
    if (c === OPEN_BRACE) {
      // avc's permission set "{ read write }".
      const close = closing(text, '}', i + 1, end);
      if (pairs.sets.length < 4) pairs.sets.push(text.slice(i + 1, close).trim());
      i = close + 1;
      continue;
    }
    let j = i;
    while (j < end) {
      const d = text.charCodeAt(j);
      if (d === EQUALS || isSeparator(d)) break;
      j++;
    }
    // "(hostname=..." in the old PAM message layout: the parenthesis is not part of the key.
    const keyStart = c === OPEN_PAREN ? i + 1 : i;
    const key = text.slice(keyStart, j);
    if (j >= end || text.charCodeAt(j) !== EQUALS || !KEY.test(key)) {
      if (pairs.words.length < 16) pairs.words.push(text.slice(i, j));
      i = j + 1;
      continue;
    }
    const v = j + 1;
    const q = text.charCodeAt(v);
    if (q === DQUOTE) {
      const close = closing(text, '"', v + 1, end);
      addPair(pairs, key, text.slice(v + 1, close), true, argChunks);
      i = close + 1;
    } else if (q === SQUOTE) {
      const close = closing(text, "'", v + 1, end);
      if (key === 'msg') readPairs(text, v + 1, close, pairs, false);
      else addPair(pairs, key, text.slice(v + 1, close), true, argChunks);
      i = close + 1;
    } else if (q === OPEN_BRACE) {
      // Enriched SADDR={ saddr_fam=inet laddr=203.0.113.9 lport=443 }
      const close = closing(text, '}', v + 1, end);
      addPair(pairs, key, text.slice(v, Math.min(close + 1, end)), true, argChunks);
      i = close + 1;
    } else {
      let k = v;
      while (k < end && !isSeparator(text.charCodeAt(k))) k++;
      let value = text.slice(v, k);
      // The old layout's "(hostname=h, addr=a, terminal=ssh res=failed)"; "tty=(none)" keeps its parentheses.
      if (value.endsWith(',')) value = value.slice(0, -1);
      if (value.endsWith(')') && !value.includes('(')) value = value.slice(0, -1);
      addPair(pairs, key, value, false, argChunks);
      i = k;
    }
  }
}

/** Where the quote or brace opened before `from` closes, or `end` when it does not. */
function closing(text: string, mark: string, from: number, end: number): number {
  const at = text.indexOf(mark, from);
  return at < 0 || at > end ? end : at;
}

// ---------------------------------------------------------------- locating the record

interface Located {
  /** Where the record starts (node= or type=): what comes before is the syslog header. */
  start: number;
  bodyStart: number;
  node?: string;
  type: string;
  epochSeconds: string;
  epochFraction: string;
  serial: string;
}

function locate(raw: string): Located | null {
  const limit = Math.min(raw.length, MAX_HEAD_AT);
  for (let at = raw.indexOf('audit('); at >= 0 && at < limit; at = raw.indexOf('audit(', at + 6)) {
    // "type=" sits right before "msg=audit(" (a type name is at most 40 characters): only that stretch is searched.
    const from = Math.max(0, at - 56);
    const typeAt = raw.slice(from, at).lastIndexOf('type=');
    if (typeAt < 0) continue;
    HEAD.lastIndex = from + typeAt;
    const head = HEAD.exec(raw);
    if (!head) continue;
    const node = nodeBefore(raw, head.index);
    return {
      start: node ? head.index - node.length - 6 : head.index,
      bodyStart: head.index + head[0].length,
      node,
      type: recordTypeName(head[1]!),
      epochSeconds: head[2]!,
      epochFraction: head[3]!,
      serial: head[4]!,
    };
  }
  return null;
}

/** The name in "node=<name> " right before "type=" (a host name: at most 255 characters, no spaces). */
function nodeBefore(raw: string, typeAt: number): string | undefined {
  if (typeAt < 7 || raw.charCodeAt(typeAt - 1) !== SPACE) return undefined;
  const from = Math.max(0, typeAt - 262);
  const nodeAt = raw.slice(from, typeAt).lastIndexOf('node=');
  if (nodeAt < 0) return undefined;
  const at = from + nodeAt;
  if (at > 0 && !isSeparator(raw.charCodeAt(at - 1))) return undefined;
  const name = raw.slice(at + 5, typeAt - 1);
  return name.length > 0 && !/\s/.test(name) ? name : undefined;
}

/** "1364481363" and "243" to ISO 8601 with milliseconds. */
function epochIso(seconds: string, fraction: string): string {
  const ms = Number(seconds) * 1000 + Number(fraction.slice(0, 3).padEnd(3, '0'));
  return new Date(ms).toISOString();
}

function headerFields(header: SyslogHeader | null, fields: EventFields): void {
  if (!header) return;
  const syslog = syslogFields(header);
  if (header.hostname) fields['host.hostname'] = header.hostname;
  // The program is the forwarder (audispd, kernel, audit), not the audited process.
  if (header.program) fields['log.syslog.appname'] = header.program;
  if (header.pid !== undefined) fields['log.syslog.procid'] = String(header.pid);
  for (const key of ['log.syslog.priority', 'log.syslog.facility.code', 'log.syslog.severity.code']) {
    if (syslog[key] !== undefined) fields[key] = syslog[key];
  }
}

// ---------------------------------------------------------------- the parser

export function parseLinuxAudit(raw: string, ctx: ParseContext): EventFields | null {
  // Tried first for some sources without detect(): other lines leave after one scan.
  if (!MARKER.test(raw)) return null;
  const line = raw.endsWith('\n') || raw.endsWith('\r') ? raw.trimEnd() : raw;
  const located = locate(line);
  if (located) return parseRecord(line, located, ctx);
  return parseJournalRecord(line, ctx);
}

function parseRecord(line: string, at: Located, ctx: ParseContext): EventFields {
  const fields: EventFields = {};
  const prefix = line.slice(0, at.start).trim();
  // The header ends where the record starts: parsed with a stand-in message, as for CEF.
  if (prefix) headerFields(parseSyslogHeader(`${prefix} -`, ctx), fields);
  if (at.node) {
    if (fields['host.hostname'] !== undefined && fields['host.hostname'] !== at.node) fields['log.syslog.hostname'] = fields['host.hostname'];
    fields['host.hostname'] = at.node;
    fields['auditd.log.node'] = at.node;
  }
  fields['@timestamp'] = epochIso(at.epochSeconds, at.epochFraction);
  fields['auditd.log.sequence'] = Number(at.serial);
  fields['auditd.log.epoch'] = `${at.epochSeconds}.${at.epochFraction}`;
  mapRecord(at.type, line, at.bodyStart, fields);
  return fields;
}

/** journald's "audit[pid]: TYPE k=v ...": no serial, the time from the syslog header. */
function parseJournalRecord(line: string, ctx: ParseContext): EventFields | null {
  const header = parseSyslogHeader(line, ctx);
  if (!header || (header.program !== 'audit' && header.program !== 'auditd')) return null;
  let body = header.message;
  // "audit: type=1400 ..." without audit(...) is not a record; an uptime stamp may precede the type.
  if (body.startsWith('[')) body = body.replace(/^\[\s*\d+\.\d+\]\s*/, '');
  const type = JOURNAL_TYPE.exec(body);
  if (!type || !isKnownRecordType(type[1]!)) return null;
  const fields: EventFields = {};
  headerFields(header, fields);
  if (header.timestamp) fields['@timestamp'] = header.timestamp;
  mapRecord(type[1]!, body, type[0].length, fields);
  return fields;
}

// ---------------------------------------------------------------- ECS

/** The record's fields: every pair under auditd.log.*, then the ECS view of them. */
function mapRecord(type: string, text: string, bodyStart: number, fields: EventFields): void {
  const pairs: Pairs = { values: new Map(), words: [], sets: [], count: 0 };
  readPairs(text, bodyStart, text.length, pairs, type === 'EXECVE');
  const v = pairs.values;

  fields['event.kind'] = 'event';
  fields['event.module'] = 'auditd';
  fields['event.dataset'] = 'auditd.log';
  fields['auditd.log.record_type'] = type;
  for (const [key, value] of v) setOwn(fields, `auditd.log.${key}`, value);
  if (bodyStart < text.length) fields.message = text.slice(bodyStart);

  let ecsClass: EcsClass | undefined = recordClass(type);
  let action = type.toLowerCase().replace(/_/g, '-');

  const arch = v.get('arch');
  const architecture = v.get('ARCH') ?? (arch ? ARCHITECTURES[arch.toLowerCase()] : undefined);
  if (architecture) fields['host.architecture'] = architecture;

  if (type === 'SYSCALL') {
    const name = v.get('SYSCALL') ?? syscallName(arch, v.get('syscall'));
    if (name) {
      action = name;
      fields['auditd.log.syscall_name'] = name;
      ecsClass = syscallClass(name);
    }
  }

  setProcess(type, v, pairs, fields);
  setUsers(type, ecsClass, v, fields);
  setNetwork(type, v, fields);
  setFile(type, v, fields);
  ecsClass = setVerdict(type, ecsClass, v, pairs, fields) ?? ecsClass;

  const unit = v.get('unit');
  if (unit && (type === 'SERVICE_START' || type === 'SERVICE_STOP')) fields['service.name'] = unit;
  const key = v.get('key');
  if (key && key !== '(null)') {
    // Several rule keys are joined by 0x01 (and then hex-encoded).
    const keys = key.split('\x01').filter(Boolean);
    fields['auditd.log.key'] = keys.length === 1 ? keys[0]! : keys;
    fields['rule.name'] = keys[0]!;
  }

  if (ecsClass?.category) fields['event.category'] = ecsClass.category;
  if (ecsClass?.type) fields['event.type'] = fields['event.type'] ?? ecsClass.type;
  if (ecsClass?.kind) fields['event.kind'] = ecsClass.kind;
  fields['event.action'] = action;
  setOutcome(v, fields);
}

function setProcess(type: string, v: Map<string, string>, pairs: Pairs, fields: EventFields): void {
  const pid = v.get('pid');
  if (pid && /^\d{1,10}$/.test(pid)) fields['process.pid'] = Number(pid);
  const ppid = v.get('ppid');
  if (ppid && /^\d{1,10}$/.test(ppid)) fields['process.parent.pid'] = Number(ppid);
  const exe = v.get('exe');
  if (exe && exe !== '?' && exe !== '(null)') fields['process.executable'] = exe;
  const comm = v.get('comm');
  if (comm && comm !== '?' && comm !== '(null)') fields['process.name'] = comm;
  else if (exe && exe.includes('/')) fields['process.name'] = exe.slice(exe.lastIndexOf('/') + 1);
  else if (type.startsWith('DAEMON_')) fields['process.name'] = 'auditd';
  const proctitle = v.get('proctitle');
  if (proctitle) {
    // argv separated by nul bytes, as /proc/<pid>/cmdline holds it.
    const title = proctitle.replace(/\0+$/, '').replace(/\0/g, ' ');
    fields['process.title'] = title;
    fields['auditd.log.proctitle'] = title;
  }
  const cwd = v.get('cwd');
  if (cwd && (type === 'CWD' || type === 'USER_CMD')) fields['process.working_directory'] = cwd;
  if (type === 'EXECVE') setArgs(v, pairs, fields);
  // sudo's command (USER_CMD): the command line sudo ran, auditd.log.cmd decoded.
  const cmd = v.get('cmd');
  if (cmd && type === 'USER_CMD') fields['process.command_line'] = cmd;
}

/** EXECVE's a0..aN (argc of them), long ones reassembled from their chunks. */
function setArgs(v: Map<string, string>, pairs: Pairs, fields: EventFields): void {
  const argc = Number(v.get('argc'));
  if (!Number.isInteger(argc) || argc < 0) return;
  fields['process.args_count'] = argc;
  const args: string[] = [];
  for (let i = 0; i < Math.min(argc, MAX_ARGS); i++) {
    const chunks = pairs.chunks?.get(i);
    const arg = chunks ? chunks.join('') : v.get(`a${i}`);
    if (arg === undefined) break;
    if (chunks) setOwn(fields, `auditd.log.a${i}`, arg);
    args.push(arg);
  }
  if (args.length === 0) return;
  fields['process.args'] = args;
  fields['process.command_line'] = args.join(' ');
}

/** Group management: acct= or grp= names the group. */
const GROUP_TYPES = new Set(['ADD_GROUP', 'DEL_GROUP', 'GRP_MGMT', 'GRP_CHAUTHTOK', 'CHGRP_ID']);

function userId(value: string | undefined): string | undefined {
  return value !== undefined && /^-?\d{1,10}$/.test(value) && !UNSET_IDS.has(value) ? value : undefined;
}

function userName(value: string | undefined): string | undefined {
  return value && value !== '?' && value !== '(unknown)' && value !== 'unset' && value !== '(invalid user)' ? value : undefined;
}

/**
 * Who the record is about. Kernel records and most user-space ones: the
 * process's real user (uid=, with auditd's interpreted name), its effective
 * user and groups, and the login user (auid=, "user.audit", as Elastic's
 * auditd module names it; 4294967295 is unset). Authentication and session
 * records name the account logging in (acct=, id=): that is user.*, since
 * uid= there is the PAM program's (root for sshd). Account and group
 * management names the account changed: user.target.* and group.*, the
 * actor staying user.*. LOGIN sets a session's login uid: auid= is the user.
 */
function setUsers(type: string, ecsClass: EcsClass | undefined, v: Map<string, string>, fields: EventFields): void {
  const categories = ecsClass?.category ?? [];
  const acct = userName(v.get('acct'));
  const id = userId(v.get('id'));
  const auid = userId(v.get('auid'));
  if (auid) fields['user.audit.id'] = auid;
  const auidName = userName(v.get('AUID'));
  if (auid && auidName) fields['user.audit.name'] = auidName;

  const isIam = categories.includes('iam');
  if (type === 'LOGIN') {
    if (auid) fields['user.id'] = auid;
    if (auidName) fields['user.name'] = auidName;
  } else if (!isIam && (categories.includes('authentication') || categories.includes('session'))) {
    // uid= is the PAM program's own (sshd, login, cron): the user is the account, or nobody when it is "?".
    const name = acct ?? (id ? userName(v.get('ID')) : undefined);
    if (name) fields['user.name'] = name;
    if (id) fields['user.id'] = id;
  } else {
    const uid = userId(v.get('uid'));
    if (uid) {
      fields['user.id'] = uid;
      const name = userName(v.get('UID'));
      if (name) fields['user.name'] = name;
    }
    if (GROUP_TYPES.has(type)) {
      // ADD_GROUP acct="devs" id=1002; GRP_MGMT grp="devs".
      const group = acct ?? userName(v.get('grp'));
      if (group) fields['group.name'] = group;
      if (id) fields['group.id'] = id;
    } else if (isIam) {
      if (acct) fields['user.target.name'] = acct;
      if (id) fields['user.target.id'] = id;
    } else if (acct && fields['user.name'] === undefined && uid === undefined) {
      fields['user.name'] = acct;
    }
  }
  const euid = userId(v.get('euid'));
  if (euid) {
    fields['user.effective.id'] = euid;
    const name = userName(v.get('EUID'));
    if (name) fields['user.effective.name'] = name;
  }
  const gid = userId(v.get('gid'));
  if (gid) {
    fields['user.group.id'] = gid;
    const name = userName(v.get('GID'));
    if (name) fields['user.group.name'] = name;
  }
  const egid = userId(v.get('egid'));
  if (egid) {
    fields['user.effective.group.id'] = egid;
    const name = userName(v.get('EGID'));
    if (name) fields['user.effective.group.name'] = name;
  }
}

/** addr= and hostname= of user-space records (the remote end of a login), NETFILTER_PKT's addresses, SOCKADDR's socket. */
function setNetwork(type: string, v: Map<string, string>, fields: EventFields): void {
  const addr = v.get('addr');
  const ip = addr && addr !== '?' ? canonicalIp(addr) : null;
  if (ip) fields['source.ip'] = ip;
  // hostname= is the peer's name only beside its address: local tools (useradd, passwd) write their own host there.
  const hostname = v.get('hostname');
  if (ip && hostname && hostname !== addr && HOST_NAME.test(hostname) && !canonicalIp(hostname)) fields['source.domain'] = hostname;
  if (type === 'NETFILTER_PKT') {
    const source = canonicalIp(v.get('saddr') ?? '');
    const destination = canonicalIp(v.get('daddr') ?? '');
    if (source) fields['source.ip'] = source;
    if (destination) fields['destination.ip'] = destination;
    const sport = v.get('sport');
    const dport = v.get('dport');
    if (sport && /^\d{1,5}$/.test(sport)) fields['source.port'] = Number(sport);
    if (dport && /^\d{1,5}$/.test(dport)) fields['destination.port'] = Number(dport);
  } else if (type === 'SOCKADDR') {
    setSocket(v.get('saddr'), fields);
  }
}

/** SOCKADDR's saddr: a struct sockaddr in hex (family in host order, port and address in network order). */
function setSocket(saddr: string | undefined, fields: EventFields): void {
  if (!saddr || !isEvenHex(saddr) || saddr.length < 4) return;
  const bytes = Buffer.from(saddr, 'hex');
  // Little-endian hosts write the family's low byte first; big-endian ones (s390x, ppc64) the high.
  const family = bytes[1] === 0 ? bytes[0]! : bytes[0] === 0 ? bytes[1]! : -1;
  if (family === AF_INET && bytes.length >= 8) {
    fields['auditd.log.socket.family'] = 'ipv4';
    fields['auditd.log.socket.port'] = bytes.readUInt16BE(2);
    fields['auditd.log.socket.address'] = `${bytes[4]}.${bytes[5]}.${bytes[6]}.${bytes[7]}`;
  } else if (family === AF_INET6 && bytes.length >= 24) {
    const groups: string[] = [];
    for (let i = 8; i < 24; i += 2) groups.push(bytes.readUInt16BE(i).toString(16));
    const ip = canonicalIp(groups.join(':'));
    fields['auditd.log.socket.family'] = 'ipv6';
    fields['auditd.log.socket.port'] = bytes.readUInt16BE(2);
    if (ip) fields['auditd.log.socket.address'] = ip;
  } else if (family === AF_UNIX) {
    fields['auditd.log.socket.family'] = 'unix';
    // An abstract socket's name starts with a nul byte.
    const path = bytes.subarray(2).toString('utf8').replace(/\0+$/, '').replace(/^\0/, '@');
    if (path) fields['auditd.log.socket.path'] = path;
  }
}

const FILE_TYPES: Record<string, string> = { '0100000': 'file', '0040000': 'dir', '0120000': 'symlink', '0020000': 'char', '0060000': 'block', '0010000': 'fifo', '0140000': 'socket' };

/** PATH's object, CWD's directory, the file an AVC or AppArmor decision was about. */
function setFile(type: string, v: Map<string, string>, fields: EventFields): void {
  if (type === 'PATH') {
    const name = v.get('name');
    if (name && name !== '(null)') setPath(name, fields);
    const inode = v.get('inode');
    if (inode) fields['file.inode'] = inode;
    const dev = v.get('dev');
    if (dev) fields['file.device'] = dev;
    const mode = v.get('mode');
    if (mode && /^0?[0-7]{1,7}$/.test(mode)) {
      const bits = parseInt(mode, 8);
      fields['file.mode'] = (bits & 0o7777).toString(8).padStart(4, '0');
      const kind = FILE_TYPES[`0${(bits & 0o170000).toString(8).padStart(6, '0')}`];
      if (kind) fields['file.type'] = kind;
    }
    const ouid = userId(v.get('ouid'));
    if (ouid) fields['file.uid'] = ouid;
    const ogid = userId(v.get('ogid'));
    if (ogid) fields['file.gid'] = ogid;
    const owner = userName(v.get('OUID'));
    if (owner) fields['file.owner'] = owner;
    const group = userName(v.get('OGID'));
    if (group) fields['file.group'] = group;
    const nametype = v.get('nametype');
    if (nametype === 'CREATE') fields['event.type'] = ['creation'];
    else if (nametype === 'DELETE') fields['event.type'] = ['deletion'];
  } else if (type === 'CWD') {
    const cwd = v.get('cwd');
    if (cwd) fields['file.path'] = cwd;
  } else if (v.has('apparmor') || type === 'AVC' || type === 'USER_AVC') {
    // AVC's name= is the last component, path= the whole path; AppArmor's name= is a path.
    const path = v.get('path');
    const name = v.get('name');
    if (path?.startsWith('/')) setPath(path, fields);
    else if (name?.startsWith('/')) setPath(name, fields);
    else if (name) fields['file.name'] = name;
  }
}

function setPath(path: string, fields: EventFields): void {
  if (path.startsWith('/')) fields['file.path'] = path;
  const slash = path.lastIndexOf('/', path.length - 2);
  const name = path.slice(slash + 1).replace(/\/$/, '');
  if (name && name !== '.' && name !== '..') fields['file.name'] = name;
}

/**
 * MAC decisions. SELinux "avc: denied { read } for ... permissive=0": denied
 * and enforced; with permissive=1 the access went ahead (event.outcome
 * success, event.type still the policy's "denied"); "granted" (auditallow)
 * is allowed. AppArmor's apparmor="DENIED|ALLOWED|AUDIT|STATUS" decides the
 * same way (ALLOWED is complain mode; STATUS is a profile loaded or replaced).
 */
function setVerdict(type: string, ecsClass: EcsClass | undefined, v: Map<string, string>, pairs: Pairs, fields: EventFields): EcsClass | undefined {
  const avc = pairs.words.indexOf('avc:');
  if (avc >= 0) {
    const result = pairs.words[avc + 1];
    if (result) fields['auditd.log.avc.result'] = result;
    if (pairs.sets[0]) fields['auditd.log.avc.permissions'] = pairs.sets[0].split(/\s+/);
    if (result === 'granted') {
      fields['event.outcome'] = 'success';
      return { category: ['intrusion_detection'], type: ['allowed'] };
    }
    if (result === 'denied') {
      fields['event.outcome'] = v.get('permissive') === '1' ? 'success' : 'failure';
      return { category: ['intrusion_detection'], type: ['denied'] };
    }
  }
  const apparmor = v.get('apparmor')?.toUpperCase();
  if (apparmor) {
    if (apparmor === 'DENIED') {
      fields['event.outcome'] = 'failure';
      return { category: ['intrusion_detection'], type: ['denied'] };
    }
    if (apparmor === 'ALLOWED') {
      fields['event.outcome'] = 'success';
      return { category: ['intrusion_detection'], type: ['allowed'] };
    }
    if (apparmor === 'STATUS') return { category: ['configuration'], type: ['change'] };
    return { category: ['intrusion_detection'], type: ['info'] };
  }
  if (type === 'SELINUX_ERR' || type === 'USER_SELINUX_ERR') fields['event.outcome'] = 'failure';
  return ecsClass;
}

/** res= (user space, CONFIG_CHANGE), success= (SYSCALL), result=; a verdict set already stands. */
function setOutcome(v: Map<string, string>, fields: EventFields): void {
  if (fields['event.outcome'] !== undefined) return;
  const word = (v.get('res') ?? v.get('success') ?? v.get('result'))?.toLowerCase();
  if (word === undefined) return;
  if (SUCCESS_WORDS.has(word)) fields['event.outcome'] = 'success';
  else if (FAILURE_WORDS.has(word)) fields['event.outcome'] = 'failure';
}

export const linuxAudit: FormatParser = {
  name: LINUX_AUDIT_PARSER,
  detect: (raw) => MARKER.test(raw),
  parse: parseLinuxAudit,
};
