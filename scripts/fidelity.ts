// Parser fidelity on real logs, in two parts.
//
//   npm run fidelity -- [samples dir] [--only <sample or package>] [--source package|syslog] [--diff]
//
// The samples dir is the first argument, else $CAIRN_SAMPLES_DIR, else
// ../shared/data or ../../shared/data from the repository (a worktree).
//
// 1. Filebeat's samples (<samples>/<folder>/<log> beside <log>-expected.json):
// parses every sample that has an expected output and compares, field by
// field, the ECS fields cairn's parsers promise, pairing each expected event
// with the line it came from by byte offset. `--only suricata/eve-small.log`.
// Expected values that cannot be right for the line they came from are
// judged stale and listed with the reason, apart from the agreement:
//   - the value is not in the line at all (the expected file was generated
//     from another version of the log, see SOURCES.md);
//   - for RFC 3164 lines without a year, the run's clock is set to the year
//     Filebeat ran in (from the expected output), and its var.timezone
//     (event.timezone) is used for lines without a zone, as Filebeat's test did.
//
// 2. Elastic's integration pipeline tests (<samples>/elastic-integrations/,
// read by elastic-corpus.ts, compared by elastic-fidelity.ts): every input
// is parsed with the source a sensor would name, the package name
// ("fortinet_fortigate", "cisco_asa"), or with `--source syslog` one neutral
// source for all, to show what content detection alone gives. Per
// package/stream and in total, agreement on the key fields source.ip,
// destination.ip, source.port, destination.port, event.outcome,
// event.category, event.action, user.name, network.transport, url (url.original,
// or url.path where the expected document has only that) and
// http.response.status_code; plus how many inputs parsed at all and the
// parser most used. `--only fortinet_fortigate` (or cisco_asa/log).
//   - Only fields the expected document has are compared: one comparison is
//     an (input, field) pair. A field cairn lacks is a disagreement.
//   - Values are compared as normalize() in ecs-compare.ts makes them:
//     canonical IPs, arrays as sets, 443 equal to "443"; event.category and
//     event.action as cairn writes them.
//   - Streams of MANIFEST-windows-zeek.tsv (Windows, Zeek, Suricata) are a
//     table of their own, outside the main total.
//   - An input paired by position whose expected document quotes another
//     event.original: a difference whose expected value is not in the input
//     is judged stale (Elastic's document was made from another version).
//   - Differences cairn makes on purpose are listed in fidelity-judged.json,
//     an array of entries
//       {"package": "panw" or "panw/panos", "field": one of the key fields,
//        "file"?: "test-x.log", "line"?: 3, "match"?: {"expected"?: "...", "actual"?: "..."},
//        "reason": "why cairn differs"}
//     An entry judges a difference when its package (or package/stream) and
//     field are the difference's and every selector it gives is equal: file,
//     line (an input's first line in a .log, its event number in a .json,
//     1-based), and the expected and parsed values as --diff prints them.
//     Judged differences are listed with their reason and left out of the
//     agreement; an entry that judges nothing is reported as unused.
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { parseRaw } from '../pipeline/parser/registry.js';
import type { FieldValue } from '../pipeline/parser/types.js';
import { flatten, normalize, type Json } from './ecs-compare.js';
import { elasticReport } from './elastic-fidelity.js';

export const COMPARED_FIELDS = [
  '@timestamp',
  'event.kind',
  'event.category',
  'event.type',
  'event.action',
  'event.outcome',
  'event.code',
  'source.ip',
  'source.port',
  'source.domain',
  'destination.ip',
  'destination.port',
  'destination.domain',
  'network.transport',
  'network.protocol',
  'user.name',
  'host.hostname',
  'process.name',
  'process.pid',
  'rule.id',
  'rule.name',
  'dns.question.name',
  'dns.resolved_ip',
  'dns.type',
  'dns.response_code',
  'url.original',
  'url.domain',
  'http.request.method',
  'http.response.status_code',
] as const;

interface Line {
  offset: number;
  text: string;
}

/** The file's lines with the byte offset each starts at. */
function linesWithOffsets(buffer: Buffer): Line[] {
  const lines: Line[] = [];
  let start = 0;
  for (let i = 0; i <= buffer.length; i++) {
    if (i === buffer.length || buffer[i] === 0x0a) {
      if (i > start || i < buffer.length) lines.push({ offset: start, text: buffer.toString('utf8', start, i).replace(/\r$/, '') });
      start = i + 1;
    }
  }
  return lines;
}

interface Difference {
  file: string;
  offset: number;
  field: string;
  expected: string;
  actual: string;
  staleReason?: string;
}

interface FileResult {
  file: string;
  events: number;
  compared: number;
  equal: number;
  stale: number;
  differences: Difference[];
}

/**
 * The line the expected event quotes (event.original / log.original, the
 * whole line or, as Filebeat's Cisco module keeps it, its message part),
 * nearest to the expected offset among lines not paired yet: the surest pairing.
 */
function lineQuoted(lines: Line[], expected: Json, offset: number, used: Set<Line>): Line | undefined {
  const quoted = expected['event.original'] ?? expected['log.original'];
  if (typeof quoted !== 'string') return undefined;
  const text = quoted.replace(/\r?\n$/, '');
  let best: Line | undefined;
  for (const l of lines) {
    if (used.has(l) || (l.text !== text && !l.text.endsWith(text))) continue;
    if (!best || Math.abs(l.offset - offset) < Math.abs(best.offset - offset)) best = l;
  }
  return best;
}

/**
 * When neither the text nor the offset pairs the event (the expected file came
 * from another version of the log, see SOURCES.md): the only line, or one
 * starting within 16 bytes. Differences on such pairs are judged stale.
 */
function nearestLine(lines: Line[], offset: number): Line | undefined {
  if (lines.length === 1) return lines[0];
  return lines.find((l) => Math.abs(l.offset - offset) <= 16);
}

/** ECS's allowed values (ECS 8 categorization fields); older Filebeat versions wrote others. */
const ECS_ALLOWED: Record<string, ReadonlySet<string>> = {
  'event.kind': new Set(['alert', 'asset', 'enrichment', 'event', 'metric', 'state', 'pipeline_error', 'signal']),
  'event.category': new Set(['api', 'authentication', 'configuration', 'database', 'driver', 'email', 'file', 'host', 'iam', 'intrusion_detection', 'library', 'malware', 'network', 'package', 'process', 'registry', 'session', 'threat', 'vulnerability', 'web']),
  'event.type': new Set(['access', 'admin', 'allowed', 'change', 'connection', 'creation', 'deletion', 'denied', 'end', 'error', 'group', 'indicator', 'info', 'installation', 'protocol', 'start', 'user']),
  'event.outcome': new Set(['failure', 'success', 'unknown']),
};

function staleReason(field: string, expected: unknown, line: string): string | undefined {
  if (field === 'http.request.method' && typeof expected === 'string' && expected === expected.toLowerCase() && line.includes(expected.toUpperCase())) {
    return 'ECS before 1.6 lower-cased HTTP methods; ECS now keeps the method as sent';
  }
  if (field === '@timestamp' && typeof expected === 'number') {
    return 'an old Filebeat wrote @timestamp as epoch milliseconds cut to the second; the line has the fraction';
  }
  const allowed = ECS_ALLOWED[field];
  if (allowed) {
    const outside = (Array.isArray(expected) ? expected : [expected]).filter((v) => !allowed.has(String(v)));
    if (outside.length > 0) return `${outside.join(', ')} is not an ECS ${field} value (an older Filebeat wrote it); cairn writes ECS values`;
  }
  if (['source.ip', 'destination.ip', 'user.name', 'source.port', 'destination.port', 'dns.question.name'].includes(field)) {
    const values = Array.isArray(expected) ? expected : [expected];
    const missing = values.filter((v) => !line.includes(String(v)));
    if (missing.length > 0) return `expected ${missing.join(', ')} does not occur in the line: the expected file was made from another version of the log`;
  }
  return undefined;
}

function sourceFor(file: string): string {
  return file.split('/')[0]!;
}

export function compareFile(samplesDir: string, file: string): FileResult {
  const logPath = path.join(samplesDir, file);
  const expectedRaw = JSON.parse(fs.readFileSync(`${logPath}-expected.json`, 'utf8')) as Json | Json[];
  const expectedEvents = (Array.isArray(expectedRaw) ? expectedRaw : [expectedRaw]).map((e) => flatten(e));
  const lines = linesWithOffsets(fs.readFileSync(logPath));
  const byOffset = new Map(lines.map((l) => [l.offset, l]));
  const result: FileResult = { file, events: expectedEvents.length, compared: 0, equal: 0, stale: 0, differences: [] };
  const used = new Set<Line>();
  for (const expected of expectedEvents) {
    const offset = Number(expected['log.offset'] ?? expected.offset ?? 0);
    const quoted = lineQuoted(lines, expected, offset, used);
    const exact = quoted ?? byOffset.get(offset);
    const line = exact ?? nearestLine(lines, offset);
    if (line) used.add(line);
    if (!line) {
      result.differences.push({ file, offset, field: '(line)', expected: 'a line at this offset', actual: 'none' });
      continue;
    }
    const expectedTime = typeof expected['@timestamp'] === 'string' ? new Date(expected['@timestamp']) : null;
    const receivedAt = expectedTime ? Date.UTC(expectedTime.getUTCFullYear(), 11, 31, 23, 59, 59) : fs.statSync(logPath).mtimeMs;
    const timezone = typeof expected['event.timezone'] === 'string' ? expected['event.timezone'] : undefined;
    let actual: Record<string, FieldValue> = {};
    try {
      actual = parseRaw(line.text, { source: sourceFor(file), receivedAt, timezone }).fields;
    } catch (err) {
      actual = { '(failure)': (err as Error).message };
    }
    for (const field of COMPARED_FIELDS) {
      if (!(field in expected)) continue;
      const want = normalize(field, expected[field]);
      const got = field in actual ? normalize(field, actual[field]) : '(missing)';
      if (want === got) {
        result.compared++;
        result.equal++;
        continue;
      }
      const stale =
        staleReason(field, expected[field], line.text) ??
        (exact ? undefined : `paired approximately (offset ${offset} is no line start here): the expected event came from another version of the file`);
      if (stale) result.stale++;
      else result.compared++;
      result.differences.push({ file, offset, field, expected: want, actual: got, staleReason: stale });
    }
  }
  return result;
}

export function sampleFiles(samplesDir: string): string[] {
  return fs
    .readdirSync(samplesDir)
    .filter((d) => fs.statSync(path.join(samplesDir, d)).isDirectory())
    .flatMap((dir) => fs.readdirSync(path.join(samplesDir, dir)).filter((f) => f.endsWith('-expected.json')).map((f) => `${dir}/${f.slice(0, -'-expected.json'.length)}`))
    .sort();
}

const JUDGED_FILE = path.join(import.meta.dirname, 'fidelity-judged.json');

/** The samples dir: CAIRN_SAMPLES_DIR, else shared/data beside the repository or beside its worktrees folder. */
function defaultSamplesDir(): string {
  const repo = path.resolve(import.meta.dirname, '..');
  const candidates = [path.join(repo, '..', 'shared', 'data'), path.join(repo, '..', '..', 'shared', 'data')];
  return process.env.CAIRN_SAMPLES_DIR ?? candidates.find((d) => fs.existsSync(d)) ?? candidates[0]!;
}

function main(): void {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { only: { type: 'string' }, diff: { type: 'boolean', default: false }, source: { type: 'string', default: 'package' } },
  });
  if (values.source !== 'package' && values.source !== 'syslog') {
    console.error(`--source is package or syslog, not ${values.source}`);
    process.exit(2);
  }
  const samplesDir = path.resolve(positionals[0] ?? defaultSamplesDir());
  if (!fs.existsSync(samplesDir)) {
    console.error(`no samples at ${samplesDir}: pass the directory (e.g. ../shared/data) or set CAIRN_SAMPLES_DIR`);
    process.exit(2);
  }
  filebeatReport(samplesDir, values.only, values.diff);
  const found = elasticReport(samplesDir, { source: values.source, only: values.only, diff: values.diff, judgedFile: JUDGED_FILE });
  if (!found) console.log(`\nno Elastic integration tests at ${path.join(samplesDir, 'elastic-integrations')}`);
}

function filebeatReport(samplesDir: string, only: string | undefined, diff: boolean): void {
  const files = sampleFiles(samplesDir).filter((f) => !only || f === only);
  if (files.length === 0) return;
  const results = files.map((f) => compareFile(samplesDir, f));
  console.log(`parser fidelity against Filebeat's expected ECS output, ${samplesDir}\n`);
  console.log('| sample | events | fields compared | equal | agreement | judged stale |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results) {
    console.log(`| ${r.file} | ${r.events} | ${r.compared} | ${r.equal} | ${r.compared ? ((100 * r.equal) / r.compared).toFixed(1) : '-'}% | ${r.stale} |`);
  }
  const compared = results.reduce((n, r) => n + r.compared, 0);
  const equal = results.reduce((n, r) => n + r.equal, 0);
  const stale = results.reduce((n, r) => n + r.stale, 0);
  console.log(`| **all** | ${results.reduce((n, r) => n + r.events, 0)} | ${compared} | ${equal} | **${((100 * equal) / Math.max(compared, 1)).toFixed(1)}%** | ${stale} |`);

  const staleOnes = results.flatMap((r) => r.differences.filter((d) => d.staleReason));
  if (staleOnes.length) {
    console.log('\nExpected values judged stale (left out of the agreement):');
    const byReason = new Map<string, Difference[]>();
    for (const d of staleOnes) byReason.set(`${d.file}: ${d.field}: ${d.staleReason}`, [...(byReason.get(`${d.file}: ${d.field}: ${d.staleReason}`) ?? []), d]);
    for (const [reason, ds] of byReason) console.log(`- ${reason} (${ds.length}x, e.g. offset ${ds[0]!.offset}: expected ${ds[0]!.expected}, parsed ${ds[0]!.actual})`);
  }
  const real = results.flatMap((r) => r.differences.filter((d) => !d.staleReason));
  if (real.length) {
    console.log(`\nDifferences (${real.length})${diff ? '' : '; --diff lists them all'}:`);
    const shown = diff ? real : real.slice(0, 25);
    for (const d of shown) console.log(`- ${d.file} @${d.offset} ${d.field}: expected ${d.expected}, parsed ${d.actual}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) main();
