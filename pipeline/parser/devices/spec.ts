// The device format catalogue: one YAML file per vendor under ./catalogue,
// each describing, as data, how that vendor's appliances write their logs
// (key=value pairs, CSV columns per log type, message ids with a pattern
// each) and how their fields become ECS. Adding a vendor is adding a file;
// its test lines are run by devices.test.ts. The files are read, checked and
// compiled once, when the catalogue is first used.
//
// A file names a vendor and lists its formats. A format says:
//   markers  literals, one of which every line of the format contains (a cheap first test);
//            a format without markers (its lines have no literal of their own) is tried
//            only for artifacts whose source names the vendor
//   start    a regular expression that finds where the format's payload starts in the line;
//            what comes before it is a syslog header (time, host, priority); its named
//            captures go into the record
//   layout   how the payload becomes a record of the vendor's own keys:
//            kv    key=value pairs (the assign and pair separators are options)
//            csv   comma separated columns, named per variant (a log type), the variant
//                  chosen by a pattern on the payload
//            text  the payload is the record's `message`, read by `messages` (with
//                  `pairs: true` its key=value pairs are read too, for logs that put
//                  positional words before pairs)
//            json  a JSON object, its nested keys flattened to dotted names (`unwrap`
//                  names an envelope key whose object's keys are also read without it)
//            cef   an ArcSight CEF extension (start captures the header's fields):
//                  key=value pairs whose values run to the next key
//   require  conditions the record must meet, or the line is not this format
//   messages patterns tried in order on a record value (default `message`; `@payload` is
//            the whole payload whatever the layout), each with a condition (`if`, e.g. a
//            message id); the first that matches adds its named captures to the record
//            and its `set` fields to the event (one marked `continue` lets the next
//            messages be tried too)
//   fields   record key -> ECS field (or a list of them), with the kind of value (address,
//            port, transport...)
//   rules    conditions on the record, each setting ECS fields (categorisation, outcome);
//            every rule that holds applies, in order, so later rules refine earlier ones
//   time     which record keys hold the device's own time
//   unescape how the device escapes characters in values (octal: "\040" is a space)
// The vendor's `fields`, `rules`, `time` and `observer` apply to all its formats (a
// format's own rules come after the vendor's, its fields override the vendor's).
// The vendor's `patterns` are named pieces of message patterns: `{NAME}` puts a
// piece in, `{NAME:p}` puts it in with its captures renamed p_<capture>, so one
// piece ("interface:address/port") serves the source and the destination.
// YAML merge keys (`<<: *anchor`) let messages share a `set`.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { compilePattern, MACRO_NAMES } from '../decoders/catalogue.js';
import { kindOf, VALUE_KINDS, type ValueKind } from './values.js';
import { escapeRegExp } from '../../../lib/regex-escape.js';

const Scalar = z.union([z.string(), z.number(), z.boolean()]);
const Template = z.union([Scalar, z.array(z.string()), z.null()]);

/** A condition on one record key: a value, one of several values (case ignored), or a test. */
const Condition = z.union([
  Scalar,
  z.array(Scalar).min(1),
  z.strictObject({ match: z.string().optional(), present: z.boolean().optional(), not: z.union([Scalar, z.array(Scalar)]).optional() }),
]);

const When = z.record(z.string(), Condition);

const OneTarget = z.union([
  z.string(),
  z.strictObject({
    /** The ECS field (for `endpoint`, `identity` and `user_or_host`: the prefix, e.g. "source"). */
    to: z.string(),
    as: z.enum(VALUE_KINDS).optional(),
    /** A table from the vendor's value (case ignored) to the ECS value; values not in it are left out. */
    map: z.record(z.string(), Template).optional(),
    /** Conditions on the record: the mapping applies only when they hold (a column whose meaning depends on the log type). */
    if: When.optional(),
  }),
]);
/**
 * One ECS field, or several that take the same value: an ECS field and the vendor's own, or a
 * message id that is event.code and, through a table, event.action.
 */
const FieldTarget = z.union([OneTarget, z.array(OneTarget).min(1)]);

const MessageSpec = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/),
  if: When.optional(),
  /** The record key the pattern reads; default `message`. */
  on: z.string().default('message'),
  /** A literal the value must contain before the pattern is tried. */
  contains: z.string().optional(),
  match: z.string().min(1),
  ignore_case: z.boolean().default(false),
  /** After a match the next messages are tried too: a pattern for a piece that some lines have. */
  continue: z.boolean().default(false),
  set: z.record(z.string(), Template).default({}),
});

const Rule = z.strictObject({ if: When.default({}), set: z.record(z.string(), Template) });

const TimeSpec = z.strictObject({
  /** Record keys whose values, joined with a space, are the time. */
  from: z.array(z.string()).min(1),
  /** A SimpleDateFormat pattern ("MMM dd yyyy HH:mm:ss"); default: the forms every log uses. */
  format: z.string().optional(),
  /** A record key holding the zone offset ("-0500", "+02:00") of a time written without one. */
  zone: z.string().optional(),
});

const Observer = z.strictObject({ vendor: z.string(), product: z.string(), type: z.string().optional() });

const CsvVariant = z.strictObject({
  name: z.string(),
  /** A pattern on the payload that picks this variant; the first variant that matches is used. */
  when: z.string().default(''),
  /** Column names in order; "" skips a column. */
  columns: z.array(z.string()).min(1),
});

const FormatSpec = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/),
  observer: Observer.optional(),
  markers: z.array(z.string().min(2)).default([]),
  start: z.string().min(1),
  layout: z.enum(['kv', 'csv', 'text', 'json', 'cef']),
  /** How the device escapes characters in values: `octal` "\\040" for a space (Infoblox, syslog daemons); decoded in every record value. */
  unescape: z.enum(['octal']).optional(),
  /** A text layout also reads the payload's key=value pairs (by the `kv` options). */
  pairs: z.boolean().default(false),
  /** A json layout whose event sits under this key ({"sourcetype": ..., "event": {...}}) reads its keys as if at the top too. */
  unwrap: z.string().min(1).optional(),
  /** Conditions the record must meet for the format to claim the line (keys every line of it has). */
  require: When.default({}),
  /** The pair separator may be several characters, any of which separates (";," for logs that use either). */
  kv: z.strictObject({ assign: z.string().min(1).max(2).default('='), separator: z.string().max(4).default(' ') }).default({ assign: '=', separator: ' ' }),
  csv: z.strictObject({ delimiter: z.string().length(1).default(','), variants: z.array(CsvVariant).min(1) }).optional(),
  messages: z.array(MessageSpec).default([]),
  fields: z.record(z.string(), FieldTarget).default({}),
  rules: z.array(Rule).default([]),
  time: TimeSpec.optional(),
});

const TestLine = z.strictObject({
  line: z.string().min(1),
  /** Artifact source to parse it with; default: the vendor's first source. */
  source: z.string().optional(),
  /** Fields the parse must give (equal); `null` means the field must be absent. */
  expect: z.record(z.string(), Template),
});

const VendorSpec = z.strictObject({
  vendor: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/),
  description: z.string(),
  /** Artifact sources that name this vendor's devices (the registry tries device formats first for them). */
  sources: z.array(z.string()).default([]),
  observer: Observer.optional(),
  /** Named pieces of message patterns (plain regular expressions), used as {NAME} or {NAME:prefix}. */
  patterns: z.record(z.string().regex(/^[A-Z][A-Z0-9_]*$/, 'an upper-case name'), z.string().min(1)).default({}),
  fields: z.record(z.string(), FieldTarget).default({}),
  rules: z.array(Rule).default([]),
  time: TimeSpec.optional(),
  formats: z.array(FormatSpec).min(1),
  tests: z.array(TestLine).min(1, 'every vendor carries test lines'),
});
export type VendorSpec = z.infer<typeof VendorSpec>;
type TemplateValue = z.infer<typeof Template>;
type ConditionSpec = z.infer<typeof Condition>;

export class DeviceCatalogueError extends Error {
  constructor(file: string, message: string) {
    super(`device catalogue ${file}: ${message}`);
    this.name = 'DeviceCatalogueError';
  }
}

// ---------------------------------------------------------------- compiled form

/** A test on one record value (undefined when the record lacks the key). */
export type ValueTest = (value: string | undefined) => boolean;
export type CompiledWhen = [key: string, test: ValueTest][];

export interface FieldMapping {
  key: string;
  to: string;
  kind: ValueKind;
  map?: ReadonlyMap<string, TemplateValue>;
  when?: CompiledWhen;
}

export interface Setter {
  field: string;
  template: TemplateValue;
}

export interface CompiledMessage {
  name: string;
  when: CompiledWhen;
  on: string;
  contains?: string;
  regex: RegExp;
  set: Setter[];
  continue: boolean;
}

export interface CompiledRule {
  when: CompiledWhen;
  set: Setter[];
}

export interface CompiledFormat {
  vendor: string;
  /** The vendor's artifact sources (lower case): a format without markers reads only their lines. */
  sources: ReadonlySet<string>;
  name: string;
  file: string;
  observer?: z.infer<typeof Observer>;
  markers: string[];
  start: RegExp;
  layout: 'kv' | 'csv' | 'text' | 'json' | 'cef';
  unescape?: 'octal';
  unwrap?: string;
  require: CompiledWhen;
  kvPair?: RegExp;
  csv?: { delimiter: string; variants: { name: string; when: RegExp | null; columns: string[] }[] };
  messages: CompiledMessage[];
  /** Which messages a record can match, found by one key's value instead of testing every message (MessageIndex). */
  messageIndex?: MessageIndex;
  fields: FieldMapping[];
  /** The field mappings by record key, each with its place in `fields` (their order decides which value wins). */
  fieldsByKey: ReadonlyMap<string, [place: number, mapping: FieldMapping][]>;
  rules: CompiledRule[];
  time?: z.infer<typeof TimeSpec>;
}

/**
 * A format whose messages mostly test one key for given values (ASA's message
 * id: a hundred messages, each for a few ids) files them by those values; the
 * messages without such a test are tried for every record. Candidates keep
 * the messages' order.
 */
export interface MessageIndex {
  key: string;
  byValue: ReadonlyMap<string, number[]>;
  always: number[];
}

/** The values a message's condition on `key` accepts, lower-cased; undefined when it has no such list or value. */
function acceptedValues(when: Record<string, ConditionSpec> | undefined, key: string): string[] | undefined {
  const condition = when?.[key];
  if (condition === undefined || (typeof condition === 'object' && !Array.isArray(condition))) return undefined;
  return (Array.isArray(condition) ? condition : [condition]).map((v) => String(v).toLowerCase());
}

const INDEXED_MESSAGES_MIN = 8;

function indexMessages(messages: z.infer<typeof MessageSpec>[]): MessageIndex | undefined {
  const uses = new Map<string, number>();
  for (const m of messages) for (const key of Object.keys(m.if ?? {})) if (acceptedValues(m.if, key)) uses.set(key, (uses.get(key) ?? 0) + 1);
  const [key, count] = [...uses].sort((a, b) => b[1] - a[1])[0] ?? [];
  if (key === undefined || count! < INDEXED_MESSAGES_MIN) return undefined;
  const byValue = new Map<string, number[]>();
  const always: number[] = [];
  messages.forEach((m, i) => {
    const values = acceptedValues(m.if, key);
    if (!values) return always.push(i);
    for (const value of new Set(values)) {
      const list = byValue.get(value);
      if (list) list.push(i);
      else byValue.set(value, [i]);
    }
  });
  return { key, byValue, always };
}

export interface Vendor {
  spec: VendorSpec;
  file: string;
  formats: CompiledFormat[];
}

function compileRegex(source: string, where: string, file: string, flags = ''): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw new DeviceCatalogueError(file, `${where}: ${(err as Error).message}`);
  }
}

function valueTest(condition: ConditionSpec, where: string, file: string): ValueTest {
  if (Array.isArray(condition)) {
    const values = new Set(condition.map((v) => String(v).toLowerCase()));
    // Most values (message ids, lower-case words) hit as they are: no lower-cased copy made.
    return (v) => v !== undefined && (values.has(v) || values.has(v.toLowerCase()));
  }
  if (typeof condition === 'object') {
    const tests: ValueTest[] = [];
    if (condition.present !== undefined) tests.push(condition.present ? (v) => v !== undefined : (v) => v === undefined);
    if (condition.match !== undefined) {
      const regex = compileRegex(condition.match, where, file, 'i');
      tests.push((v) => v !== undefined && regex.test(v));
    }
    if (condition.not !== undefined) {
      const excluded = valueTest(condition.not, where, file);
      tests.push((v) => !excluded(v));
    }
    return (v) => tests.every((t) => t(v));
  }
  const value = String(condition).toLowerCase();
  return (v) => v !== undefined && (v === value || v.toLowerCase() === value);
}

function compileWhen(when: Record<string, ConditionSpec> | undefined, where: string, file: string): CompiledWhen {
  return Object.entries(when ?? {}).map(([key, condition]) => [key, valueTest(condition, `${where}: if ${key}`, file)]);
}

function setters(set: Record<string, TemplateValue>): Setter[] {
  return Object.entries(set).map(([field, template]) => ({ field, template }));
}

function fieldMappings(fields: VendorSpec['fields'], where: string, file: string): FieldMapping[] {
  return Object.entries(fields).flatMap(([key, targets]) =>
    (Array.isArray(targets) ? targets : [targets]).map((target): FieldMapping => {
      if (typeof target === 'string') return { key, to: target, kind: kindOf(target) };
      const map = target.map ? new Map(Object.entries(target.map).map(([k, v]) => [k.toLowerCase(), v])) : undefined;
      const when = target.if ? compileWhen(target.if, `${where}: field ${key}`, file) : undefined;
      return { key, to: target.to, kind: target.as ?? kindOf(target.to), map, when };
    }),
  );
}

const QUOTED_VALUE = `"(?:[^"\\\\]|\\\\.)*"|'(?:[^'\\\\]|\\\\.)*'`;

/**
 * The pair pattern of a kv layout: a key, the assign text, then a quoted value or a bare one.
 * Separated by spaces, keys are words and a bare value ends at a space. Separated by another
 * character (",") a pair starts the payload or follows a separator, its key may hold spaces
 * ("Device IP Address=") and its bare value runs to the next separator ("Outside Zone").
 */
function kvPairRegex(assign: string, separator: string): RegExp {
  const equals = escapeRegExp(assign);
  if (separator === ' ') return new RegExp(`([A-Za-z_][\\w.\\-/]*)${equals}(${QUOTED_VALUE}|[^\\s]*)`, 'g');
  // The separator is a set of characters (Huawei writes ";" or ","), one of which ends a pair.
  const sep = [...separator].map((c) => c.replace(/[\]\\^-]/g, '\\$&')).join('');
  const first = escapeRegExp(assign[0]!);
  // The key ends on a character that is no space, so "key  =" has one reading (no backtracking over spaces).
  return new RegExp(`(?:^|[${sep}])\\s*([A-Za-z_](?:[^${sep}${first}]*[^\\s${sep}${first}])?)\\s*${equals}(${QUOTED_VALUE}|[^${sep}\\r\\n]*)`, 'g');
}

const PIECE = /\{([A-Z][A-Z0-9_]*)(?::([a-z][a-z0-9_]*))?\}/g;

/** A message pattern with the vendor's named pieces put in ({NAME}, {NAME:prefix}); catalogue macros are left for compilePattern. */
function expandPieces(pattern: string, pieces: Record<string, string>, where: string, file: string, depth = 0): string {
  return pattern.replace(PIECE, (whole, name: string, prefix: string | undefined) => {
    const piece = pieces[name];
    if (piece === undefined) return whole;
    if (depth >= 4) throw new DeviceCatalogueError(file, `${where}: pattern piece {${name}} nests too deep`);
    const expanded = expandPieces(piece, pieces, where, file, depth + 1);
    return prefix ? expanded.replace(/\(\?<([A-Za-z][A-Za-z0-9_]*)>/g, `(?<${prefix}_$1>`) : expanded;
  });
}

function compileFormat(vendor: VendorSpec, format: z.infer<typeof FormatSpec>, file: string): CompiledFormat {
  const where = `format ${format.name}`;
  if (format.layout === 'csv' && !format.csv) throw new DeviceCatalogueError(file, `${where}: a csv layout needs csv.variants`);
  if (format.layout === 'text' && format.messages.length === 0) throw new DeviceCatalogueError(file, `${where}: a text layout needs messages`);
  const messages = format.messages.map((m) => ({
    name: m.name,
    when: compileWhen(m.if, `${where} message ${m.name}`, file),
    on: m.on,
    contains: m.contains,
    regex: compileCatalogueRegex(expandPieces(m.match, vendor.patterns, `${where} message ${m.name}`, file), `${where} message ${m.name}`, file, m.ignore_case ? 'i' : ''),
    set: setters(m.set),
    continue: m.continue,
  }));
  // A format's mapping of a key replaces the vendor's.
  const formatKeys = new Set(Object.keys(format.fields));
  const mappings = [...fieldMappings(vendor.fields, where, file).filter((f) => !formatKeys.has(f.key)), ...fieldMappings(format.fields, where, file)];
  const fieldsByKey = new Map<string, [number, FieldMapping][]>();
  mappings.forEach((mapping, place) => {
    const list = fieldsByKey.get(mapping.key);
    if (list) list.push([place, mapping]);
    else fieldsByKey.set(mapping.key, [[place, mapping]]);
  });
  return {
    vendor: vendor.vendor,
    sources: new Set(vendor.sources.map((source) => source.toLowerCase())),
    name: format.name,
    file,
    observer: format.observer ?? vendor.observer,
    markers: format.markers,
    start: compileRegex(format.start, `${where}: start`, file),
    layout: format.layout,
    unescape: format.unescape,
    unwrap: format.unwrap,
    require: compileWhen(format.require, `${where}: require`, file),
    kvPair: format.layout === 'kv' || format.pairs ? kvPairRegex(format.kv.assign, format.kv.separator) : undefined,
    csv: format.csv && {
      delimiter: format.csv.delimiter,
      variants: format.csv.variants.map((v) => ({ name: v.name, when: v.when ? compileRegex(v.when, `${where} variant ${v.name}`, file) : null, columns: v.columns })),
    },
    messages,
    messageIndex: indexMessages(format.messages),
    fields: mappings,
    fieldsByKey,
    rules: [...vendor.rules, ...format.rules].map((r, i) => ({ when: compileWhen(r.if, `${where} rule ${i + 1}`, file), set: setters(r.set) })),
    time: format.time ?? vendor.time,
  };
}

/** Message patterns use the decoder catalogue's macros ({IP:src_ip}, {PORT:src_port}, ...). */
function compileCatalogueRegex(pattern: string, where: string, file: string, flags: string): RegExp {
  try {
    return compilePattern(pattern, where, file, flags);
  } catch (err) {
    throw new DeviceCatalogueError(file, (err as Error).message.replace(/^decoder catalogue \S+: /, ''));
  }
}

export const DEVICE_CATALOGUE_DIR = path.join(import.meta.dirname, 'catalogue');

export function loadVendors(dir = DEVICE_CATALOGUE_DIR): Vendor[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((file) => {
      let document: unknown;
      try {
        document = parseYaml(fs.readFileSync(path.join(dir, file), 'utf8'), { merge: true });
      } catch (err) {
        throw new DeviceCatalogueError(file, `not valid YAML: ${(err as Error).message.split('\n')[0]}`);
      }
      const parsed = VendorSpec.safeParse(document);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new DeviceCatalogueError(file, `${issue.path.join('.') || 'file'}: ${issue.message}`);
      }
      const shadowing = Object.keys(parsed.data.patterns).find((name) => MACRO_NAMES.includes(name));
      if (shadowing) throw new DeviceCatalogueError(file, `patterns: {${shadowing}} is a catalogue macro; name the piece otherwise`);
      return { spec: parsed.data, file, formats: parsed.data.formats.map((f) => compileFormat(parsed.data, f, file)) };
    });
}
