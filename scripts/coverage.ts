// Detection coverage on fail2ban's labelled corpus of real log lines
// (Debian package fail2ban: /usr/lib/python3/dist-packages/fail2ban/tests/files/logs/).
// In each file, a line `# failJSON: {"time", "match", "host", ...}` describes
// the next line: whether fail2ban must act on it, and the address it blames.
// The corpus is GPL: this script reads it where it is installed, and the
// repository keeps only file names and line numbers (coverage-judged.json).
//
//   npm run coverage -- [dir] [--source service|syslog] [--misses] [--as-labelled]
//   (both source modes by default; --as-labelled counts every line as fail2ban labels it)
//
// Each line goes through the parser's real entry point (parseRaw) with the
// source a sensor would name: the service, since a deployment labels what it
// ships. fail2ban names its files service-purpose ("mysqld-auth",
// "named-refused", "sshd-journal"): the purpose is dropped, so the source is
// the service ("mysqld", "named", "sshd"). `--source syslog` passes the same
// neutral source for every file instead, to show what content detection
// alone achieves; both totals are printed. Per service and in total:
//   address  lines fail2ban must match with an IP host where cairn's source.ip is that address
//   failure  of those, lines cairn marks event.outcome: failure
//   (the TOTAL lines also give failure over all address-labelled lines, the
//   share the neutral-source target is stated in)
//   false    lines fail2ban marks "match": false that cairn marks as failures
import fs from 'node:fs';
import path from 'node:path';
import { canonicalIp } from '../pipeline/parser/ip.js';
import { parseRaw } from '../pipeline/parser/registry.js';
import type { EventFields } from '../pipeline/parser/types.js';

const DEFAULT_DIR = '/usr/lib/python3/dist-packages/fail2ban/tests/files/logs';
const JUDGED_FILE = path.join(import.meta.dirname, 'coverage-judged.json');
const TARGETS = { address: 0.95, failure: 0.85, falseFailure: 0.05 };
/** With the neutral source: address over address-labelled lines, failure over the same lines (not only those with the right address). */
const NEUTRAL_TARGETS = { address: 0.9, failureOfAll: 0.8 };

interface Labelled {
  file: string;
  /** 1-based line number of the log line (the one after its failJSON). */
  line: number;
  text: string;
  match: boolean;
  host?: string;
}

interface Judged {
  file: string;
  line: number;
  reason: string;
}

/** The labelled lines of one corpus file, as fail2ban's own sample test reads them. */
export function labelledLines(file: string, content: string): Labelled[] {
  const lines = content.split('\n');
  const out: Labelled[] = [];
  for (let i = 0; i < lines.length - 1; i++) {
    const m = /^#+ ?failJSON:(.+)$/.exec(lines[i]!);
    if (!m) continue;
    const data = JSON.parse(m[1]!) as { match?: boolean; host?: unknown };
    out.push({ file, line: i + 2, text: lines[i + 1]!.replace(/\r$/, ''), match: data.match === true, host: typeof data.host === 'string' ? data.host : undefined });
    i++;
  }
  return out;
}

function parse(text: string, source: string): EventFields | null {
  try {
    return parseRaw(text, { source, receivedAt: Date.parse('2026-11-23T12:00:00Z') }).fields;
  } catch {
    return null;
  }
}

interface Tally {
  expected: number;
  address: number;
  failure: number;
  negatives: number;
  falseFailures: number;
  misses: string[];
}

function pct(n: number, d: number): string {
  return d === 0 ? '-' : `${((100 * n) / d).toFixed(1)}%`;
}

function tallyFile(entries: Labelled[], source: (file: string) => string, judged: Set<string>): Tally {
  const t: Tally = { expected: 0, address: 0, failure: 0, negatives: 0, falseFailures: 0, misses: [] };
  for (const e of entries) {
    if (judged.has(`${e.file}:${e.line}`)) continue;
    const fields = parse(e.text, source(e.file));
    const failure = fields?.['event.outcome'] === 'failure';
    if (!e.match) {
      t.negatives++;
      if (failure) {
        t.falseFailures++;
        t.misses.push(`  false failure ${e.file}:${e.line}`);
      }
      continue;
    }
    const host = e.host ? canonicalIp(e.host) : null;
    if (!host) continue;
    t.expected++;
    if (fields?.['source.ip'] === host) {
      t.address++;
      if (failure) t.failure++;
      else t.misses.push(`  no failure    ${e.file}:${e.line} (${String(fields?.['event.action'] ?? 'no action')})`);
    } else {
      t.misses.push(`  no address    ${e.file}:${e.line} (${fields ? `source.ip=${String(fields['source.ip'] ?? '-')}` : 'unparsed'})`);
    }
  }
  return t;
}

function add(a: Tally, b: Tally): Tally {
  return {
    expected: a.expected + b.expected,
    address: a.address + b.address,
    failure: a.failure + b.failure,
    negatives: a.negatives + b.negatives,
    falseFailures: a.falseFailures + b.falseFailures,
    misses: [...a.misses, ...b.misses],
  };
}

/** The service a fail2ban filter file is about: its name without the purpose suffixes fail2ban adds. */
export function serviceOf(file: string): string {
  let name = file;
  for (;;) {
    const shorter = name.replace(/-(auth|http-auth|refused|reject|spam|journal|syslog|smtp|imap|ssh|fail|adminlog|limit-req|bad-request|botsearch|generic|example|obsolete-multiline)$/, '');
    if (shorter === name) return name;
    name = shorter;
  }
}

const EMPTY: Tally = { expected: 0, address: 0, failure: 0, negatives: 0, falseFailures: 0, misses: [] };

function main(): void {
  const args = process.argv.slice(2);
  const only = args.includes('--source') ? args[args.indexOf('--source') + 1] : undefined;
  // The folder is the one argument that is neither an option nor --source's value.
  const dir = args.find((a, i) => !a.startsWith('--') && args[i - 1] !== '--source') ?? DEFAULT_DIR;
  const showMisses = args.includes('--misses');
  if (!fs.existsSync(dir)) {
    console.error(`no corpus at ${dir}: apt-get install fail2ban, or pass the logs folder`);
    process.exit(1);
  }
  const judgedList = JSON.parse(fs.readFileSync(JUDGED_FILE, 'utf8')) as Judged[];
  const judged = args.includes('--as-labelled') ? new Set<string>() : new Set(judgedList.map((j) => `${j.file}:${j.line}`));
  const files = fs.readdirSync(dir).filter((f) => fs.statSync(path.join(dir, f)).isFile()).sort();
  const corpus = new Map(files.map((f) => [f, labelledLines(f, fs.readFileSync(path.join(dir, f), 'utf8'))]));

  const modes: [string, (file: string) => string][] = [
    ['service (source = the service the file is about)', serviceOf],
    ['neutral (source = "syslog")', () => 'syslog'],
  ];
  const totals: [string, Tally][] = [];
  for (const [label, source] of only === 'syslog' ? modes.slice(1) : only === 'service' ? modes.slice(0, 1) : modes) {
    console.log(`\nsource: ${label}`);
    console.log(`${'service'.padEnd(30)} ${'address'.padStart(13)} ${'failure'.padStart(13)} ${'false'.padStart(11)}`);
    let total = EMPTY;
    for (const [file, entries] of corpus) {
      const t = tallyFile(entries, source, judged);
      total = add(total, t);
      if (t.expected + t.negatives === 0) continue;
      console.log(
        `${file.padEnd(30)} ${`${t.address}/${t.expected}`.padStart(8)} ${pct(t.address, t.expected).padStart(6)} ${`${t.failure}/${t.address}`.padStart(8)} ${pct(t.failure, t.address).padStart(6)} ${`${t.falseFailures}/${t.negatives}`.padStart(6)} ${pct(t.falseFailures, t.negatives).padStart(6)}`,
      );
    }
    if (showMisses) console.log(total.misses.join('\n'));
    totals.push([label, total]);
  }
  console.log(
    judged.size
      ? `\n${judged.size} labelled lines judged wrong and left out (${path.relative(process.cwd(), JUDGED_FILE)}, each with its reason; --as-labelled counts them)`
      : '\nevery line counted as fail2ban labels it',
  );
  for (const [label, t] of totals) {
    const ok = t.address / t.expected >= TARGETS.address && t.failure / t.address >= TARGETS.failure && t.falseFailures / Math.max(t.negatives, 1) < TARGETS.falseFailure;
    const neutral = label.startsWith('neutral');
    const neutralOk = t.address / t.expected >= NEUTRAL_TARGETS.address && t.failure / t.expected >= NEUTRAL_TARGETS.failureOfAll;
    console.log(
      `TOTAL ${label}: address ${t.address}/${t.expected} ${pct(t.address, t.expected)}, failure ${t.failure}/${t.address} ${pct(t.failure, t.address)} of those (${t.failure}/${t.expected} ${pct(t.failure, t.expected)} of all address-labelled lines), false failures ${t.falseFailures}/${t.negatives} ${pct(t.falseFailures, t.negatives)} ${ok ? '(targets met)' : '(targets: address >= 95%, failure >= 85%, false < 5%)'}${neutral ? (neutralOk ? ' (neutral targets met)' : ' (neutral targets: address >= 90%, failure of all >= 80%)') : ''}`,
    );
  }
}

main();
