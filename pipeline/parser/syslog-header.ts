// The syslog header in front of auth, kernel (iptables) and firewall lines.
//
// Accepted shapes (an optional <PRI> first):
//   RFC 5424:  <34>1 2026-11-22T06:01:02.003Z host app 4242 ID47 [sd] message
//   RFC 3164:  Nov 22 06:01:02 host program[4242]: message
//              Nov  2 06:01:02 host program: message
//   variants:  Oct 10 2018 12:34:56 host program[999]: message   (a year, as Cisco ASA writes)
//              2019-06-14T10:40:20.912134 host program: message  (RFC 3339 time, rsyslog's high precision)
//              Oct 10 2019 10:21:36 host: message                (no program)
//
// RFC 3164 times carry no year: the year is the one in which cairn received
// the line, or the year before when that would put the line more than a day
// in the future (a December line read in January, a Feb 29 read in a common
// year). A date that does not exist gives no timestamp. Times without a zone are
// in `ctx.timezone` (an offset such as "+02:00"), UTC by default.
import type { ParseContext } from './types.js';
import { lookupTable } from '../../lib/lookup-table.js';

export interface SyslogHeader {
  /** ISO 8601 UTC, or undefined when the time did not parse. */
  timestamp?: string;
  hostname?: string;
  program?: string;
  pid?: number;
  priority?: number;
  message: string;
}

const MONTHS = lookupTable<number>({ Jan: 0, Feb: 1, Mar: 2, Apr: 3, May: 4, Jun: 5, Jul: 6, Aug: 7, Sep: 8, Oct: 9, Nov: 10, Dec: 11 });
const DAY_MS = 86_400_000;

// Some senders (Cisco ASA) put a colon after the priority: <166>:Apr 15 ...
const PRI = /^<(\d{1,3})>:?/;
const RFC5424 = /^1 (\S+) (\S+) (\S+) (\S+) (\S+) (-|(?:\[[^\]]*\])+) ?/;
// Mmm dd [yyyy] hh:mm:ss[.frac] [yyyy][:] — a colon right after the time ends the header (no host, no program).
const BSD_TIME = /^([A-Z][a-z]{2}) +(\d{1,2})(?: (\d{4}))? (\d{2}):(\d{2}):(\d{2})(\.\d+)?(?: (\d{4}))?(:)?(?= )/;
const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?(?: ?(Z|[+-]\d{2}:?\d{2}))?(?= )/;
// program[pid]: or program:  — a program name has no spaces. All spaces after
// the colon go: sudo pads its message ("sudo:      tsg : ..."), Filebeat drops them too.
const PROGRAM = /^([^\s:[\]]+)(?:\[(\d+)(?:\/[^\]]*)?\])?: */;
// BSD syslogd writes its own "--- last message repeated 2 times ---" with no host.
const SYSLOGD_MARK = '--- ';

/** Offset in minutes east of UTC, from "Z", "+02:00", "-0130"; undefined when not an offset. */
export function offsetMinutes(zone: string | undefined): number | undefined {
  if (!zone) return undefined;
  if (zone === 'Z' || zone === 'UTC') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(zone);
  if (!m) return undefined;
  const minutes = Number(m[2]) * 60 + Number(m[3]);
  return m[1] === '-' ? -minutes : minutes;
}

/** Milliseconds of a ".123456" fraction, truncated like Filebeat does. */
function fractionMs(fraction: string | undefined): number {
  return fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0;
}

/** UTC milliseconds, or NaN for a date that does not exist (Feb 30, 25:00) instead of Date.UTC's silent roll-over. */
function utcMillis(year: number, month: number, day: number, h: number, m: number, s: number, ms: number, offset: number): number {
  if (month < 0 || month > 11 || day < 1 || h > 23 || m > 59 || s > 60) return NaN;
  const local = Date.UTC(year, month, day, h, m, s, ms);
  if (new Date(local).getUTCDate() !== day && s !== 60) return NaN;
  return local - offset * 60_000;
}

/** Parses an RFC 3339 time such as 2019-06-14T10:40:20.912134+02:00 (or without a zone). */
export function parseIsoTime(text: string, ctx: ParseContext): string | undefined {
  const m = ISO_TIME.exec(`${text} `);
  if (!m) return undefined;
  const offset = offsetMinutes(m[8]) ?? offsetMinutes(ctx.timezone) ?? 0;
  const ms = utcMillis(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), fractionMs(m[7]), offset);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

/** Whether the line ends with CR or LF, as a line cut from a CRLF file does. */
function endsWithLineBreak(line: string): boolean {
  const last = line.charCodeAt(line.length - 1);
  return last === 13 || last === 10;
}

/**
 * The last BSD time read and what it gave: lines come in bursts of the same
 * second, and the date arithmetic cost more than the rest of the header. The
 * answer depends on the zone and, for a time without a year, on when the
 * line was received (to the minute: only a line a day ahead of its receipt
 * could tell two receipts of one minute apart).
 */
let lastBsd: { text: string; zone: string | undefined; minute: number; timestamp: string | undefined } | null = null;

function bsdTime(bsd: RegExpExecArray, month: number, ctx: ParseContext): string | undefined {
  const explicitYear = bsd[3] ?? bsd[8];
  const minute = explicitYear ? 0 : Math.floor(ctx.receivedAt / 60_000);
  if (lastBsd && lastBsd.text === bsd[0] && lastBsd.zone === ctx.timezone && lastBsd.minute === minute) return lastBsd.timestamp;
  const offset = offsetMinutes(ctx.timezone) ?? 0;
  const [day, h, m, s] = [Number(bsd[2]), Number(bsd[4]), Number(bsd[5]), Number(bsd[6])];
  let year = explicitYear ? Number(explicitYear) : new Date(ctx.receivedAt).getUTCFullYear();
  let ms = utcMillis(year, month, day, h, m, s, fractionMs(bsd[7]), offset);
  // NaN too: a year-less Feb 29 belongs to the last leap year.
  if (!explicitYear && (Number.isNaN(ms) || ms - ctx.receivedAt > DAY_MS)) ms = utcMillis(--year, month, day, h, m, s, fractionMs(bsd[7]), offset);
  const timestamp = Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
  lastBsd = { text: bsd[0], zone: ctx.timezone, minute, timestamp };
  return timestamp;
}

export function parseSyslogHeader(line: string, ctx: ParseContext): SyslogHeader | null {
  let rest = endsWithLineBreak(line) ? line.trimEnd() : line;
  let priority: number | undefined;
  const pri = PRI.exec(rest);
  if (pri) {
    priority = Number(pri[1]);
    rest = rest.slice(pri[0].length);
  }

  const v5424 = pri ? RFC5424.exec(rest) : null;
  if (v5424) {
    const [, time, host, app, procid] = v5424;
    return {
      timestamp: time === '-' ? undefined : parseIsoTime(time!, ctx),
      hostname: host === '-' ? undefined : host,
      program: app === '-' ? undefined : app,
      pid: procid && /^\d+$/.test(procid) ? Number(procid) : undefined,
      priority,
      message: rest.slice(v5424[0].length),
    };
  }

  let timestamp: string | undefined;
  const bsd = BSD_TIME.exec(rest);
  const iso = bsd ? null : ISO_TIME.exec(rest);
  if (bsd) {
    const month = MONTHS[bsd[1]!];
    if (month === undefined) return null;
    timestamp = bsdTime(bsd, month, ctx);
    rest = rest.slice(bsd[0].length + 1);
    if (bsd[9]) return { timestamp, priority, message: rest };
  } else if (iso) {
    timestamp = parseIsoTime(iso[0], ctx);
    rest = rest.slice(iso[0].length + 1);
  } else {
    return null;
  }

  if (rest.startsWith(SYSLOGD_MARK)) return { timestamp, priority, message: rest };
  // No host, straight to the tag: "sshd[8148]: ..." (a host name never holds brackets).
  const untagged = PROGRAM.exec(rest);
  if (untagged?.[2] !== undefined) {
    return { timestamp, program: untagged[1], pid: Number(untagged[2]), priority, message: rest.slice(untagged[0].length) };
  }
  // Then: host, and a program unless the host already ended with a colon.
  const space = rest.indexOf(' ');
  if (space <= 0) return { timestamp, priority, message: rest };
  let hostname = rest.slice(0, space);
  // "[DEBUG] sofia.c:7954 ...", "<auth.info> host ...": a level or facility in brackets, never a host.
  if (hostname.startsWith('[') || hostname.startsWith('<')) return { timestamp, priority, message: rest };
  rest = rest.slice(space + 1);
  if (hostname.endsWith(':')) return { timestamp, hostname: hostname.slice(0, -1), priority, message: rest };
  if (rest.startsWith(': ')) return { timestamp, hostname, priority, message: rest.slice(2) };
  const program = PROGRAM.exec(rest);
  // After an ISO time, a word not followed by a program tag is more likely the message's
  // first word than a host: applications write "2024-03-02 10:11:12 login failed ..." themselves.
  if (!program) return iso ? { timestamp, priority, message: `${hostname} ${rest}` } : { timestamp, hostname, priority, message: rest };
  if (hostname === '-') hostname = '';
  return {
    timestamp,
    hostname: hostname || undefined,
    program: program[1],
    pid: program[2] ? Number(program[2]) : undefined,
    priority,
    message: rest.slice(program[0].length),
  };
}

/** The header as ECS fields. */
export function syslogFields(header: SyslogHeader): Record<string, string | number> {
  const fields: Record<string, string | number> = {};
  if (header.timestamp) fields['@timestamp'] = header.timestamp;
  if (header.hostname) fields['host.hostname'] = header.hostname;
  if (header.program) fields['process.name'] = header.program;
  if (header.pid !== undefined) fields['process.pid'] = header.pid;
  if (header.priority !== undefined) {
    fields['log.syslog.priority'] = header.priority;
    fields['log.syslog.facility.code'] = header.priority >> 3;
    fields['log.syslog.severity.code'] = header.priority & 7;
  }
  fields.message = header.message;
  return fields;
}
