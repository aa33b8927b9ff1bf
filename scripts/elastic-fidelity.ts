// Agreement with Elastic's integration pipeline tests on the key fields a
// detection reads (the corpus reader is elastic-corpus.ts; the rules are
// described at the top of fidelity.ts, which runs this).
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { ParseFailure } from '../pipeline/parser/failure.js';
import { parseRaw } from '../pipeline/parser/registry.js';
import type { EventFields } from '../pipeline/parser/types.js';
import { flatten, normalize, type Json } from './ecs-compare.js';
import { readCorpus, type TestFile } from './elastic-corpus.js';

/** The fields compared; "url" is url.original, or url.path where the expected document has only that. */
export const KEY_FIELDS = [
  'source.ip',
  'destination.ip',
  'source.port',
  'destination.port',
  'event.outcome',
  'event.category',
  'event.action',
  'user.name',
  'network.transport',
  'url',
  'http.response.status_code',
] as const;
export type KeyField = (typeof KEY_FIELDS)[number];

const COLUMN: Record<KeyField, string> = {
  'source.ip': 'src.ip',
  'destination.ip': 'dst.ip',
  'source.port': 'src.port',
  'destination.port': 'dst.port',
  'event.outcome': 'outcome',
  'event.category': 'category',
  'event.action': 'action',
  'user.name': 'user',
  'network.transport': 'transport',
  url: 'url',
  'http.response.status_code': 'status',
};

export interface Comparison {
  field: KeyField;
  expected: string;
  actual: string;
  /** The expected value as the document has it, to look for in the input. */
  expectedValue: unknown;
}

const MISSING = '(missing)';

/** Fields whose value is copied from the input's text, so that a value the input lacks cannot have come from it. */
const COPIED_FROM_TEXT = new Set<KeyField>(['source.ip', 'destination.ip', 'source.port', 'destination.port', 'user.name', 'url']);

/** The key fields the expected document has, each with cairn's value beside it (MISSING when cairn has none). */
export function compareKeyFields(expected: Json, actual: EventFields | null): Comparison[] {
  const out: Comparison[] = [];
  const has = (fields: Record<string, unknown> | null, name: string) => fields !== null && fields[name] !== undefined && fields[name] !== null;
  for (const field of KEY_FIELDS) {
    const name = field !== 'url' ? field : has(expected, 'url.original') ? 'url.original' : 'url.path';
    if (!has(expected, name)) continue;
    out.push({ field, expected: normalize(name, expected[name]), actual: has(actual, name) ? normalize(name, actual![name]) : MISSING, expectedValue: expected[name] });
  }
  return out;
}

const JudgedEntry = z.strictObject({
  /** "package" or "package/stream". */
  package: z.string().min(1),
  field: z.enum(KEY_FIELDS),
  /** The input file's name, e.g. test-fortinet-7-6.log. */
  file: z.string().min(1).optional(),
  /** The input's first line (.log) or event number (.json), 1-based. */
  line: z.number().int().positive().optional(),
  /** The values as --diff prints them. */
  match: z.strictObject({ expected: z.string().optional(), actual: z.string().optional() }).optional(),
  reason: z.string().min(1),
});
export type JudgedEntry = z.infer<typeof JudgedEntry>;

export function parseJudged(text: string): JudgedEntry[] {
  return z.array(JudgedEntry).parse(JSON.parse(text));
}

export interface Difference {
  /** package/stream */
  stream: string;
  file: string;
  line: number;
  field: KeyField;
  expected: string;
  actual: string;
}

/** The first entry that judges the difference: every selector it gives is equal. */
export function judgedBy(entries: readonly JudgedEntry[], d: Difference): number | undefined {
  const i = entries.findIndex(
    (e) =>
      (e.package === d.stream || e.package === d.stream.split('/')[0]) &&
      e.field === d.field &&
      (e.file === undefined || e.file === d.file) &&
      (e.line === undefined || e.line === d.line) &&
      (e.match?.expected === undefined || e.match.expected === d.expected) &&
      (e.match?.actual === undefined || e.match.actual === d.actual),
  );
  return i < 0 ? undefined : i;
}

type Tally = Record<KeyField, { compared: number; equal: number }>;

interface Row {
  /** package/stream */
  stream: string;
  section: TestFile['section'];
  inputs: number;
  parsed: number;
  failed: number;
  parsers: Map<string, number>;
  fields: Tally;
  judged: number;
  stale: number;
}

interface Note {
  stream: string;
  file: string;
  line: number;
  text: string;
}

interface Outcome {
  rows: Row[];
  differences: Difference[];
  judged: Map<number, Difference[]>;
  stale: Difference[];
  failures: Note[];
  pairing: string[];
  blank: number;
}

function emptyTally(): Tally {
  return Object.fromEntries(KEY_FIELDS.map((f) => [f, { compared: 0, equal: 0 }])) as Tally;
}

/** The clock for lines without a year: the read time the test fixes, else the end of the year Elastic's output has. */
function receivedAt(test: TestFile, doc: Json | null | undefined): number {
  if (test.settings.readAt !== undefined) return test.settings.readAt;
  const year = typeof doc?.['@timestamp'] === 'string' ? new Date(doc['@timestamp']).getUTCFullYear() : NaN;
  return Number.isNaN(year) ? Date.now() : Date.UTC(year, 11, 31, 23, 59, 59);
}

function parse(raw: string, source: string, test: TestFile, doc: Json | null | undefined): { parser?: string; fields: EventFields | null; failure?: string } {
  try {
    const parsed = parseRaw(raw, { source, receivedAt: receivedAt(test, doc), timezone: test.settings.timezone });
    return { parser: parsed.parser, fields: parsed.fields };
  } catch (err) {
    if (!(err instanceof ParseFailure)) throw err;
    return { fields: null, failure: err.message };
  }
}

function run(tests: readonly TestFile[], sourceOf: (test: TestFile) => string, judgedList: readonly JudgedEntry[]): Outcome {
  const outcome: Outcome = { rows: [], differences: [], judged: new Map(), stale: [], failures: [], pairing: [], blank: 0 };
  const rows = new Map<string, Row>();
  for (const test of tests) {
    const stream = `${test.package}/${test.stream}`;
    let row = rows.get(stream);
    if (!row) {
      row = { stream, section: test.section, inputs: 0, parsed: 0, failed: 0, parsers: new Map(), fields: emptyTally(), judged: 0, stale: 0 };
      rows.set(stream, row);
      outcome.rows.push(row);
    }
    const where = `${stream}/${test.file}`;
    if (!test.pairing) outcome.pairing.push(`${where}: no expected file; its ${test.inputs.length} inputs are only parsed`);
    else if (test.pairing.unpaired) outcome.pairing.push(`${where}: ${test.pairing.unpaired} expected documents quote no input (another version of the log)`);
    const quotingOther: number[] = [];
    test.inputs.forEach((input, i) => {
      const doc = test.pairing?.expected[i];
      if (input.raw.trim() === '') {
        outcome.blank++; // a shipper sends no empty lines
        return;
      }
      const { parser, fields, failure } = parse(input.raw, sourceOf(test), test, doc);
      row.inputs++;
      if (parser) {
        row.parsed++;
        row.parsers.set(parser, (row.parsers.get(parser) ?? 0) + 1);
      } else {
        row.failed++;
        outcome.failures.push({ stream, file: test.file, line: input.line, text: failure ?? '' });
      }
      if (!doc) return;
      const expected = flatten(doc);
      const quotesOther = test.pairing?.pairedBy[i] === 'position' && typeof expected['event.original'] === 'string';
      if (quotesOther) quotingOther.push(input.line);
      for (const c of compareKeyFields(expected, fields)) {
        const tally = row.fields[c.field];
        if (c.expected === c.actual) {
          tally.compared++;
          tally.equal++;
          continue;
        }
        const d: Difference = { stream, file: test.file, line: input.line, field: c.field, expected: c.expected, actual: fields ? c.actual : '(parse failure)' };
        const entry = judgedBy(judgedList, d);
        if (entry !== undefined) {
          row.judged++;
          outcome.judged.set(entry, [...(outcome.judged.get(entry) ?? []), d]);
        } else if (quotesOther && COPIED_FROM_TEXT.has(c.field) && !(Array.isArray(c.expectedValue) ? c.expectedValue : [c.expectedValue]).every((v) => input.raw.includes(String(v)))) {
          row.stale++;
          outcome.stale.push(d);
        } else {
          tally.compared++;
          outcome.differences.push(d);
        }
      }
    });
    if (quotingOther.length) {
      const lines = quotingOther.length > 8 ? `${quotingOther.slice(0, 8).join(', ')}, ...` : quotingOther.join(', ');
      outcome.pairing.push(`${where}: ${quotingOther.length} inputs paired by position though Elastic's event.original differs (${test.file.endsWith('.json') ? 'events' : 'lines'} ${lines})`);
    }
  }
  return outcome;
}

function pct(equal: number, compared: number): string {
  return compared ? `${((100 * equal) / compared).toFixed(1)}%` : '-';
}

function sum(rows: readonly Row[], pick: (r: Row) => number): number {
  return rows.reduce((n, r) => n + pick(r), 0);
}

function mostCommon(counts: Map<string, number>): string {
  return [...counts].sort((a, b) => b[1] - a[1])[0]?.[0] ?? '-';
}

function printTable(title: string, rows: readonly Row[]): void {
  console.log(`\n${title}\n`);
  console.log(`| package/stream | inputs | parsed | failed | parser | ${KEY_FIELDS.map((f) => COLUMN[f]).join(' | ')} | agreement | left out |`);
  console.log(`|---|---|---|---|---|${KEY_FIELDS.map(() => '---|').join('')}---|---|`);
  const cell = (t: { compared: number; equal: number }) => (t.compared ? `${t.equal}/${t.compared}` : '-');
  const overall = (tallies: Tally[]) => {
    const compared = tallies.reduce((n, t) => n + KEY_FIELDS.reduce((m, f) => m + t[f].compared, 0), 0);
    const equal = tallies.reduce((n, t) => n + KEY_FIELDS.reduce((m, f) => m + t[f].equal, 0), 0);
    return { compared, equal };
  };
  for (const r of rows) {
    const o = overall([r.fields]);
    console.log(`| ${r.stream} | ${r.inputs} | ${r.parsed} | ${r.failed} | ${mostCommon(r.parsers)} | ${KEY_FIELDS.map((f) => cell(r.fields[f])).join(' | ')} | ${pct(o.equal, o.compared)} (${o.equal}/${o.compared}) | ${r.judged + r.stale || ''} |`);
  }
  const total = emptyTally();
  for (const r of rows) for (const f of KEY_FIELDS) {
    total[f].compared += r.fields[f].compared;
    total[f].equal += r.fields[f].equal;
  }
  const o = overall([total]);
  const parsers = new Map<string, number>();
  for (const r of rows) for (const [p, n] of r.parsers) parsers.set(p, (parsers.get(p) ?? 0) + n);
  const inputs = sum(rows, (r) => r.inputs);
  console.log(`| **total** | ${inputs} | ${sum(rows, (r) => r.parsed)} | ${sum(rows, (r) => r.failed)} | ${mostCommon(parsers)} | ${KEY_FIELDS.map((f) => cell(total[f])).join(' | ')} | **${pct(o.equal, o.compared)}** (${o.equal}/${o.compared}) | ${sum(rows, (r) => r.judged + r.stale) || ''} |`);
  console.log(`| **agreement** | | ${pct(sum(rows, (r) => r.parsed), inputs)} | | | ${KEY_FIELDS.map((f) => pct(total[f].equal, total[f].compared)).join(' | ')} | **${pct(o.equal, o.compared)}** | |`);
}

export interface ElasticOptions {
  /** 'package': the package name, as a sensor would name its source; 'syslog': one neutral source for every input. */
  source: 'package' | 'syslog';
  /** A package or package/stream to restrict the run to. */
  only?: string;
  diff: boolean;
  judgedFile: string;
}

/** Prints the Elastic tables and notes; returns false when the corpus is not there. */
export function elasticReport(samplesDir: string, options: ElasticOptions): boolean {
  const corpusDir = path.join(samplesDir, 'elastic-integrations');
  if (!fs.existsSync(corpusDir)) return false;
  const judgedList = parseJudged(fs.readFileSync(options.judgedFile, 'utf8'));
  const tests = readCorpus(corpusDir).filter((t) => !options.only || options.only === t.package || options.only === `${t.package}/${t.stream}`);
  if (tests.length === 0) return true; // --only names a Filebeat sample
  const sourceOf = options.source === 'syslog' ? () => 'syslog' : (t: TestFile) => t.package;
  const outcome = run(tests, sourceOf, judgedList);

  console.log(`\n\nkey-field agreement with Elastic's integration pipeline tests, ${corpusDir}`);
  console.log(
    options.source === 'syslog'
      ? 'source: "syslog" for every input (content detection alone)'
      : 'source: the package name, as a sensor would name it (fortinet_fortigate, cisco_asa, ...); --source syslog for content detection alone',
  );
  console.log('cells: equal/compared, one comparison being an input whose expected document has the field; left out: differences judged (fidelity-judged.json) or stale');
  const main = outcome.rows.filter((r) => r.section === 'main');
  const windowsZeek = outcome.rows.filter((r) => r.section === 'windows-zeek');
  if (main.length) printTable(`Vendor and service packages (MANIFEST.tsv), ${main.length} streams:`, main);
  if (windowsZeek.length) printTable(`Windows, Zeek, Suricata (MANIFEST-windows-zeek.tsv), ${windowsZeek.length} streams, apart from the total above:`, windowsZeek);

  if (outcome.blank) console.log(`\n${outcome.blank} empty input lines not sent (a shipper sends none)`);
  if (outcome.pairing.length) {
    console.log('\nPairing:');
    for (const p of outcome.pairing) console.log(`- ${p}`);
  }
  if (outcome.stale.length) {
    console.log(`\nJudged stale (${outcome.stale.length}), left out of the agreement: paired by position, the expected value is not in the input (Elastic's document quotes another version of it):`);
    const byField = new Map<string, Difference[]>();
    for (const d of outcome.stale) byField.set(`${d.stream}/${d.file} ${d.field}`, [...(byField.get(`${d.stream}/${d.file} ${d.field}`) ?? []), d]);
    for (const [key, ds] of byField) console.log(`- ${key} (${ds.length}x, e.g. line ${ds[0]!.line}: expected ${ds[0]!.expected}, parsed ${ds[0]!.actual})`);
  }
  const judgedFile = path.relative(process.cwd(), options.judgedFile);
  if (outcome.judged.size) {
    console.log(`\nJudged differences (${judgedFile}), left out of the agreement:`);
    for (const [i, ds] of outcome.judged) {
      const e = judgedList[i]!;
      console.log(`- ${e.package} ${e.field}: ${e.reason} (${ds.length}x, e.g. ${ds[0]!.file}:${ds[0]!.line}: expected ${ds[0]!.expected}, parsed ${ds[0]!.actual})`);
    }
  }
  const inRun = (e: JudgedEntry) => !options.only || [e.package, e.package.split('/')[0]].includes(options.only) || options.only.startsWith(`${e.package}/`);
  const unused = judgedList.filter((e, i) => !outcome.judged.has(i) && inRun(e));
  if (unused.length) {
    console.log(`\nUnused entries in ${judgedFile} (they judge no difference any more: remove them):`);
    for (const e of unused) console.log(`- ${JSON.stringify(e)}`);
  }
  console.log(`\nDifferences: ${outcome.differences.length}; parse failures: ${outcome.failures.length}${options.diff ? '' : ' (--diff lists them)'}`);
  if (options.diff) {
    for (const d of outcome.differences) console.log(`- ${d.stream}/${d.file}:${d.line} ${d.field}: expected ${d.expected}, parsed ${d.actual}`);
    for (const f of outcome.failures) console.log(`- ${f.stream}/${f.file}:${f.line} parse failure: ${f.text}`);
  }
  return true;
}
