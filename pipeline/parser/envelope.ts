// The envelope of a plain-text log line that has no syslog header: the
// timestamp a program writes in front of its own log file, in any of the
// forms real programs use, then an optional "program[pid]:" tag. What
// follows is the message the decoder catalogue reads. A line with no
// recognisable time keeps the artifact's own timestamp.
//
//   2013-06-12 03:57:58 ...                 ISO 8601 / RFC 3339, with T or space, fraction (. or ,), zone or none
//   2015/01/21 10:56:10 ...                 YYYY/MM/DD (nginx), YYYY.MM.DD (stunnel), YYYY:MM:DD-HH:MM:SS (DirectAdmin)
//   [2012-02-13 17:21:54] ...               any of these in brackets
//   [22-Jan-2013 22:28:21 +0200]: ...       DD-Mon-YYYY (BIND, PHP), DD/Mon/YYYY (Apache access, Kerio)
//   [Thu Jan 17 10:00:00.123456 2013] ...   ctime (Apache error, vsftpd, Monitorix), bracketed or not
//   Apr-07-13 07:08:36 ...                  Mon-DD-YY (ASSP)
//   11-06-2013 02:09:40 +0300 ...           DD-MM-YYYY (3proxy, Domino); 10/06/2013 15:50:41 MM/DD/YYYY (SquirrelMail, PortSentry)
//   130324  0:04:00 ...                     YYMMDD H:MM:SS (MySQL 5)
//   1386543323.000 ..., [1387288694] ...    epoch seconds (Squid, NSD)
//   @400000004c91b044077a9e94 ...           TAI64N (daemontools, runit, s6)
//   L 01/01/2014 - 01:25:17: ...            Half-Life server logs
//   <W>2015-11-29 16:38:01.818 ...          Murmur's level prefix
// Times without a zone are in ctx.timezone (UTC by default).
import { offsetMinutes } from './syslog-header.js';
import type { ParseContext } from './types.js';
import { lookupTable } from '../../lib/lookup-table.js';

export interface Envelope {
  /** ISO 8601 UTC, when the line carries a time. */
  timestamp?: string;
  program?: string;
  pid?: number;
  message: string;
}

const MONTHS = lookupTable<number>({ jan: 0, feb: 1, mar: 2, apr: 3, may: 4, jun: 5, jul: 6, aug: 7, sep: 8, oct: 9, nov: 10, dec: 11 });

interface Parts {
  year: number;
  /** 0-11 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  fraction?: string;
  zone?: string;
}

interface Form {
  regex: RegExp;
  parts(m: RegExpExecArray): Parts | null;
}

const n = Number;
const FRACTION = '(?:[.,](\\d+))?';
const ZONE = '(?: ?(Z|[+-]\\d{2}:?\\d{2}|UTC|GMT))?';

function month(name: string | undefined): number {
  return MONTHS[(name ?? '').slice(0, 3).toLowerCase()] ?? -1;
}

function century(yy: number): number {
  return yy < 70 ? 2000 + yy : 1900 + yy;
}

// Each form reads the time at the start of the (unbracketed) text; the regex ends where the time ends.
const FORMS: Form[] = [
  // 2013-06-12 03:57:58.123 +02:00, 2016-11-20T00:04:00.110+0100, 2013/06/12 ..., 2011.11.21 ...
  {
    regex: new RegExp(`^(\\d{4})([-/.])(\\d{2})\\2(\\d{2})(?:T| +)(\\d{1,2}):(\\d{2}):(\\d{2})${FRACTION}${ZONE}`),
    parts: (m) => ({ year: n(m[1]), month: n(m[3]) - 1, day: n(m[4]), hour: n(m[5]), minute: n(m[6]), second: n(m[7]), fraction: m[8], zone: m[9] }),
  },
  // 2014:07:02-00:17:45 (DirectAdmin)
  {
    regex: /^(\d{4}):(\d{2}):(\d{2})-(\d{2}):(\d{2}):(\d{2})/,
    parts: (m) => ({ year: n(m[1]), month: n(m[2]) - 1, day: n(m[3]), hour: n(m[4]), minute: n(m[5]), second: n(m[6]) }),
  },
  // 22-Jan-2013 22:28:21 +0200, 11-Aug-2013 03:36:11.372, 17/Jun/2011 17:00:45, 10/Oct/2000:13:55:36 -0700
  {
    regex: new RegExp(`^(\\d{1,2})[-/]([A-Za-z]{3,5})\\.?[-/](\\d{4})[: ](\\d{2}):(\\d{2}):(\\d{2})${FRACTION}${ZONE}`),
    parts: (m) => ({ year: n(m[3]), month: month(m[2]), day: n(m[1]), hour: n(m[4]), minute: n(m[5]), second: n(m[6]), fraction: m[7], zone: m[8] }),
  },
  // Thu Jan 17 10:00:00.123456 2013 (ctime), optionally with a zone name before the year
  {
    regex: /^[A-Z][a-z]{2} ([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?: [A-Z]{3,4})? (\d{4})/,
    parts: (m) => ({ year: n(m[7]), month: month(m[1]), day: n(m[2]), hour: n(m[3]), minute: n(m[4]), second: n(m[5]), fraction: m[6] }),
  },
  // Apr-07-13 07:08:36 (ASSP)
  {
    regex: /^([A-Z][a-z]{2})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})/,
    parts: (m) => ({ year: century(n(m[3])), month: month(m[1]), day: n(m[2]), hour: n(m[4]), minute: n(m[5]), second: n(m[6]) }),
  },
  // 11-06-2013 02:09:40 +0300 (day first, as 3proxy and Domino write it)
  {
    regex: new RegExp(`^(\\d{2})-(\\d{2})-(\\d{4}) +(\\d{2}):(\\d{2}):(\\d{2})${FRACTION}${ZONE}`),
    parts: (m) => ({ year: n(m[3]), month: n(m[2]) - 1, day: n(m[1]), hour: n(m[4]), minute: n(m[5]), second: n(m[6]), fraction: m[7], zone: m[8] }),
  },
  // 10/06/2013 15:50:41 (month first, as SquirrelMail and PortSentry write it)
  {
    regex: /^(\d{2})\/(\d{2})\/(\d{4}) (\d{2}):(\d{2}):(\d{2})/,
    parts: (m) => ({ year: n(m[3]), month: n(m[1]) - 1, day: n(m[2]), hour: n(m[4]), minute: n(m[5]), second: n(m[6]) }),
  },
  // Jan 18 17:39:50, PDT Apr 16 21:05:29 (no year: the year the line was received in, as for RFC 3164)
  {
    regex: /^(?:[A-Z]{3,4} )?([A-Z][a-z]{2}) +(\d{1,2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?/,
    parts: (m) => ({ year: 0, month: month(m[1]), day: n(m[2]), hour: n(m[3]), minute: n(m[4]), second: n(m[5]), fraction: m[6] }),
  },
  // 08-03 07:56:53.026292 (FreeSWITCH: MM-DD, no year)
  {
    regex: /^(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?/,
    parts: (m) => ({ year: 0, month: n(m[1]) - 1, day: n(m[2]), hour: n(m[3]), minute: n(m[4]), second: n(m[5]), fraction: m[6] }),
  },
  // 130324  0:04:00 (MySQL 5: YYMMDD, hour not padded)
  {
    regex: /^(\d{2})(\d{2})(\d{2}) +(\d{1,2}):(\d{2}):(\d{2})/,
    parts: (m) => ({ year: century(n(m[1])), month: n(m[2]) - 1, day: n(m[3]), hour: n(m[4]), minute: n(m[5]), second: n(m[6]) }),
  },
];

// Epoch seconds (9-10 digits, optional fraction) or TAI64N, at the start.
const EPOCH = /^(\d{9,10})(?:\.(\d+))?(?= |\]|$)/;
const TAI64N = /^@([0-9a-f]{16})([0-9a-f]{8})(?= )/;
const HALF_LIFE = /^L (\d{2})\/(\d{2})\/(\d{4}) - (\d{2}):(\d{2}):(\d{2}):/;
const LEVEL_PREFIX = /^<[A-Z]>/;
// Between the time and the message.
const SEPARATOR = /^(?: ?\]:?| ?-| ?:| ?\|)? */;
// A program tag after the time: "auth-worker(default):", "nsd[7745]:", "imap-login:".
const PROGRAM = /^([A-Za-z][\w./-]*(?:\([^)\s]*\))?)(?:\[(\d+)\])?: +/;
const TAI64_EPOCH = 2n ** 62n + 10n;

const DAY_MS = 86_400_000;

/** UTC ms of the parts, or NaN for a date that does not exist (Feb 30). */
function utcMillis(p: Parts, year: number, offset: number): number {
  const ms = p.fraction ? Math.floor(Number(`0.${p.fraction}`) * 1000) : 0;
  const local = Date.UTC(year, p.month, p.day, p.hour, p.minute, p.second, ms);
  return new Date(local).getUTCDate() === p.day ? local - offset * 60_000 : NaN;
}

function toIso(p: Parts, ctx: ParseContext): string | undefined {
  if (p.month < 0 || p.month > 11 || p.day < 1 || p.day > 31 || p.hour > 23 || p.minute > 59 || p.second > 60) return undefined;
  const offset = p.zone === 'GMT' ? 0 : (offsetMinutes(p.zone) ?? offsetMinutes(ctx.timezone) ?? 0);
  let ms: number;
  if (p.year === 0) {
    // No year: the one the line was received in, or the one before when that would be more than a day ahead.
    const year = new Date(ctx.receivedAt).getUTCFullYear();
    ms = utcMillis(p, year, offset);
    if (Number.isNaN(ms) || ms - ctx.receivedAt > DAY_MS) ms = utcMillis(p, year - 1, offset);
  } else {
    ms = utcMillis(p, p.year, offset);
  }
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function readTime(text: string, ctx: ParseContext): { timestamp?: string; length: number } | null {
  const tai = TAI64N.exec(text);
  if (tai) {
    const seconds = BigInt(`0x${tai[1]}`) - TAI64_EPOCH;
    const ms = Number(seconds) * 1000 + Math.floor(Number.parseInt(tai[2]!, 16) / 1e6);
    return { timestamp: new Date(ms).toISOString(), length: tai[0].length };
  }
  const epoch = EPOCH.exec(text);
  if (epoch) return { timestamp: new Date(Number(epoch[1]) * 1000 + (epoch[2] ? Math.floor(Number(`0.${epoch[2]}`) * 1000) : 0)).toISOString(), length: epoch[0].length };
  const hl = HALF_LIFE.exec(text);
  if (hl) {
    return { timestamp: toIso({ year: n(hl[3]), month: n(hl[1]) - 1, day: n(hl[2]), hour: n(hl[4]), minute: n(hl[5]), second: n(hl[6]) }, ctx), length: hl[0].length };
  }
  for (const form of FORMS) {
    const m = form.regex.exec(text);
    if (!m) continue;
    const parts = form.parts(m);
    return { timestamp: parts ? toIso(parts, ctx) : undefined, length: m[0].length };
  }
  return null;
}

/** A time stamp in any of the forms above (the whole text), as ISO 8601 UTC; undefined when not one. */
export function parseLogTime(text: string, ctx: ParseContext): string | undefined {
  const time = readTime(text.trim(), ctx);
  return time && time.length >= text.trim().length - 1 ? time.timestamp : undefined;
}

/** The envelope of a header-less line, or null when it does not start with a time this module knows. */
export function readEnvelope(line: string, ctx: ParseContext): Envelope | null {
  let text = line.trimEnd();
  if (LEVEL_PREFIX.test(text)) text = text.slice(3);
  const bracketed = text.startsWith('[');
  const time = readTime(bracketed ? text.slice(1) : text, ctx);
  if (!time) return null;
  let rest = text.slice(time.length + (bracketed ? 1 : 0));
  if (bracketed && !rest.startsWith(']')) return null;
  rest = rest.replace(SEPARATOR, '');
  const program = PROGRAM.exec(rest);
  if (program) {
    return { timestamp: time.timestamp, program: program[1], pid: program[2] ? Number(program[2]) : undefined, message: rest.slice(program[0].length) };
  }
  return { timestamp: time.timestamp, message: rest };
}
