// Reads Elastic's integration pipeline tests in place
// (<samples>/elastic-integrations/<package>/<stream>/, see its README.md):
// each test's inputs as a shipper would send them, the test's settings, and
// the expected ECS document paired with each input. The files are under the
// Elastic License 2.0: they are read where they are, never copied.
//
// Inputs: a `test-*.log` holds one input per line, except where the test's
// multiline.first_line_pattern says which lines start an input (the others
// are joined to the one before with "\n", as a shipper's multiline setting
// does); a `test-*.json` holds {"events": [...]}, each event sent as one JSON
// line. Elastic's event.original for a .json event is the event's own
// event.original (or message) when it has one.
//
// Pairing an input with its `<input>-expected.json` document:
//   1. by event.original (trailing newline trimmed) where the document has
//      one: the first input not yet paired whose text is the same, else the
//      first whose text ends with it (mysql's error pipeline keeps only the
//      message after the time and level);
//   2. the documents left, by position: when there are as many documents as
//      inputs, or when no document quotes its input and there are fewer
//      documents than inputs (the expected file covers the first inputs);
//   3. documents still left pair with nothing and are counted as unpaired
//      (they came from another version of the log: infoblox audit's last 7,
//      for example).
import fs from 'node:fs';
import path from 'node:path';
import { parseDocument } from 'yaml';
import { flatten, type Json } from './ecs-compare.js';

export interface Input {
  /** Where the input starts: the 1-based line of a .log file, or the 1-based event of a .json file. */
  line: number;
  /** What a shipper sends: the line (lines joined by "\n" for a multiline input), or a .json event as one JSON line. */
  raw: string;
  /** The text Elastic's event.original holds for this input. */
  original: string;
}

export interface TestSettings {
  /** multiline.first_line_pattern: a line that matches starts a new input. */
  firstLine?: RegExp;
  /** The time zone the test gives for times without one, when it is an offset ("+02:00"). */
  timezone?: string;
  /** The read time the test fixes (fields."@timestamp"), ms since the epoch. */
  readAt?: number;
}

export interface Pairing {
  /** Per input: its expected document, null when Elastic drops the input, undefined when no document pairs with it. */
  expected: (Json | null | undefined)[];
  /** Per input: how its document was found. */
  pairedBy: ('original' | 'position' | undefined)[];
  /** Expected documents that pair with no input. */
  unpaired: number;
}

export interface TestFile {
  package: string;
  stream: string;
  /** The input file's name in the stream folder, e.g. test-auth.log. */
  file: string;
  /** 'windows-zeek' for the streams listed in MANIFEST-windows-zeek.tsv, else 'main'. */
  section: 'main' | 'windows-zeek';
  settings: TestSettings;
  inputs: Input[];
  /** Absent when the test has no expected file. */
  pairing?: Pairing;
}

/** A zone as an offset "+HH:MM" ("GMT+2", "+0500", "GMT-0200", "UTC"); undefined for a zone name ("America/New_York", "Local"). */
export function zoneOffset(zone: unknown): string | undefined {
  if (typeof zone !== 'string') return undefined;
  const text = zone.trim().toUpperCase();
  if (text === 'UTC' || text === 'GMT' || text === 'Z') return '+00:00';
  const m = /^(?:GMT|UTC)?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(text);
  return m ? `${m[1]}${m[2]!.padStart(2, '0')}:${m[3] ?? '00'}` : undefined;
}

/** A YAML config as far as it reads: system/auth's has an unquoted @timestamp key, which yaml reports and still reads. */
function readYaml(file: string): Json {
  if (!fs.existsSync(file)) return {};
  const value: unknown = parseDocument(fs.readFileSync(file, 'utf8')).toJS();
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

function asJson(value: unknown): Json {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
}

/** The test's settings: test-common-config.yml with `<input>-config.yml` over it. */
export function readSettings(streamDir: string, file: string): TestSettings {
  const common = readYaml(path.join(streamDir, 'test-common-config.yml'));
  const own = readYaml(path.join(streamDir, `${file}-config.yml`));
  const fields = { ...flatten(asJson(common.fields)), ...flatten(asJson(own.fields)) };
  const pattern = asJson(own.multiline).first_line_pattern ?? asJson(common.multiline).first_line_pattern;
  const settings: TestSettings = {};
  if (typeof pattern === 'string') settings.firstLine = new RegExp(pattern);
  const timezone = ['event.timezone', '_conf.tz_offset', '_tmp.tz_offset'].map((f) => zoneOffset(fields[f])).find(Boolean);
  if (timezone) settings.timezone = timezone;
  const readAt = typeof fields['@timestamp'] === 'string' ? Date.parse(fields['@timestamp']) : NaN;
  if (!Number.isNaN(readAt)) settings.readAt = readAt;
  return settings;
}

/** A .log file's inputs: one per line, or per first line and the lines after it that do not match `firstLine`. */
export function logInputs(content: string, firstLine?: RegExp): Input[] {
  const lines = content.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const inputs: Input[] = [];
  lines.forEach((line, i) => {
    const text = line.replace(/\r$/, '');
    const last = inputs.at(-1);
    if (firstLine && last && !firstLine.test(text)) {
      last.raw += `\n${text}`;
      last.original = last.raw;
    } else {
      inputs.push({ line: i + 1, raw: text, original: text });
    }
  });
  return inputs;
}

/** A .json file's inputs: each event of its `events` array as one JSON line. */
export function jsonInputs(content: string): Input[] {
  const events = asJson(JSON.parse(content)).events;
  if (!Array.isArray(events)) return [];
  return events.map((event: unknown, i) => {
    const raw = JSON.stringify(event);
    const fields = flatten(asJson(event));
    const quoted = fields['event.original'] ?? fields.message;
    return { line: i + 1, raw, original: typeof quoted === 'string' ? quoted : raw };
  });
}

function originalOf(doc: Json | null): string | undefined {
  const original = doc ? flatten(doc)['event.original'] : undefined;
  return typeof original === 'string' ? original.replace(/\r?\n$/, '') : undefined;
}

/** The first free input whose text is `original`, else the first that ends with it (mysql's error pipeline keeps only the message part). */
function inputQuoting(inputs: readonly Input[], original: string, free: (k: number) => boolean): number {
  const text = (k: number) => inputs[k]!.original.replace(/\r?\n$/, '');
  const exact = inputs.findIndex((_, k) => free(k) && text(k) === original);
  if (exact >= 0 || original === '') return exact;
  return inputs.findIndex((_, k) => free(k) && text(k).endsWith(original));
}

/** Pairs expected documents with inputs (see the top of this file). */
export function pairExpected(inputs: readonly Input[], docs: readonly (Json | null)[]): Pairing {
  const pairing: Pairing = { expected: inputs.map(() => undefined), pairedBy: inputs.map(() => undefined), unpaired: 0 };
  const left: number[] = [];
  docs.forEach((doc, d) => {
    const original = originalOf(doc);
    const i = original === undefined ? -1 : inputQuoting(inputs, original, (k) => pairing.pairedBy[k] === undefined);
    if (i < 0) {
      left.push(d);
      return;
    }
    pairing.expected[i] = doc;
    pairing.pairedBy[i] = 'original';
  });
  const noneQuoted = docs.every((doc) => originalOf(doc) === undefined);
  const byPosition = docs.length === inputs.length || (noneQuoted && docs.length < inputs.length);
  for (const d of left) {
    if (byPosition && pairing.pairedBy[d] === undefined) {
      pairing.expected[d] = docs[d];
      pairing.pairedBy[d] = 'position';
    } else {
      pairing.unpaired++;
    }
  }
  return pairing;
}

/** The (package, stream) pairs MANIFEST-windows-zeek.tsv lists, as "package/stream". */
function windowsZeekStreams(corpusDir: string): Set<string> {
  const manifest = path.join(corpusDir, 'MANIFEST-windows-zeek.tsv');
  if (!fs.existsSync(manifest)) return new Set();
  const rows = fs.readFileSync(manifest, 'utf8').split('\n').slice(1);
  return new Set(rows.map((row) => row.split('\t')).filter((cols) => cols.length > 1).map((cols) => `${cols[0]}/${cols[1]}`));
}

function subdirectories(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
}

/** Every test input file of the corpus with its settings, inputs and pairing. */
export function readCorpus(corpusDir: string): TestFile[] {
  const windowsZeek = windowsZeekStreams(corpusDir);
  const tests: TestFile[] = [];
  for (const pkg of subdirectories(corpusDir)) {
    for (const stream of subdirectories(path.join(corpusDir, pkg))) {
      const streamDir = path.join(corpusDir, pkg, stream);
      const files = fs
        .readdirSync(streamDir)
        .filter((f) => /^test-.*\.(log|json)$/.test(f) && !f.endsWith('-expected.json'))
        .sort();
      for (const file of files) {
        const settings = readSettings(streamDir, file);
        const content = fs.readFileSync(path.join(streamDir, file), 'utf8');
        const inputs = file.endsWith('.json') ? jsonInputs(content) : logInputs(content, settings.firstLine);
        const test: TestFile = { package: pkg, stream, file, section: windowsZeek.has(`${pkg}/${stream}`) ? 'windows-zeek' : 'main', settings, inputs };
        const expectedFile = path.join(streamDir, `${file}-expected.json`);
        if (fs.existsSync(expectedFile)) {
          const docs = asJson(JSON.parse(fs.readFileSync(expectedFile, 'utf8'))).expected;
          test.pairing = pairExpected(inputs, Array.isArray(docs) ? docs.map((d: unknown) => (d === null ? null : asJson(d))) : []);
        }
        tests.push(test);
      }
    }
  }
  return tests;
}
