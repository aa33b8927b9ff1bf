// The decoder catalogue: one YAML file per service under ./catalogue, each
// naming the programs (syslog tags) and artifact sources it reads and the
// message shapes it knows, with named captures that become ECS fields, and
// the lines it is tested on. Adding a service is adding a file. The files are
// read, checked and compiled once, when this module is first imported.
//
// A pattern is a JavaScript regular expression with macros for the pieces
// every log repeats (see MACROS). Captures with these names need no mapping:
//   addr  the peer: an IP becomes source.ip, a host name source.domain
//   port  source.port        user  user.name
// Any other capture is used through `fields` as "$name"; a field whose
// captures are all missing is left out.
import fs from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { FieldValue } from '../types.js';

/** Pieces of patterns, written `{NAME}` (capture named by default) or `{NAME:capture}`. */
const MACROS: Record<string, { pattern: string; capture?: string }> = {
  // An IPv4 or IPv6 address, also IPv4-mapped (::ffff:1.2.3.4).
  IP: { pattern: '(?:[0-9A-Fa-f]{0,4}:){2,7}(?:\\d{1,3}(?:\\.\\d{1,3}){3}|[0-9A-Fa-f]{1,4})?|\\d{1,3}(?:\\.\\d{1,3}){3}', capture: 'addr' },
  // A host name or an address.
  HOST: { pattern: '[A-Za-z0-9_](?:[A-Za-z0-9._:-]*[A-Za-z0-9_])?', capture: 'addr' },
  PORT: { pattern: '\\d{1,5}', capture: 'port' },
  // A user name as programs print it: no spaces, quotes or brackets.
  USER: { pattern: '[^\\s\'"<>\\[\\](),;]*', capture: 'user' },
  WORD: { pattern: '\\S+' },
  NUMBER: { pattern: '\\d+' },
};

/** The macro names, which other pattern languages built on this one must not redefine. */
export const MACRO_NAMES: readonly string[] = Object.keys(MACROS);

const FieldTemplate = z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]);

const DecoderSpec = z.strictObject({
  /** Names the shape in test failures and in event.action when no action is set. */
  name: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'a lower-case name: letters, digits, - and _'),
  /** Tried against the message (after the syslog header or plain-text envelope). */
  match: z.string().min(1),
  /**
   * Cheap literal the message must contain before the pattern is tried (a
   * list: any one of them); default: the longest literal the pattern itself
   * requires. It is also what lets a line of an unknown program reach this
   * decoder by content (see DecoderIndex.decodeByContent).
   */
  contains: z.union([z.string().min(1), z.array(z.string().min(1)).min(1)]).optional(),
  /** Match letters regardless of case (JavaScript has no inline (?i)). */
  ignore_case: z.boolean().default(false),
  fields: z.record(z.string(), FieldTemplate).default({}),
});

const TestLine = z.strictObject({
  line: z.string().min(1),
  /** Artifact source to parse it with; default: the service's first source, else "syslog". */
  source: z.string().optional(),
  /** Fields the parse must give (equal); `null` means the field must be absent. */
  expect: z.record(z.string(), z.union([FieldTemplate, z.null()])),
});

/** A service as its YAML file (or a user's decoder, api/routes/decoders.ts) writes it. */
export const ServiceSpec = z.strictObject({
  service: z.string().regex(/^[a-z0-9][a-z0-9._-]*$/),
  description: z.string(),
  /** Syslog tags: exact names (case ignored), or globs with a star, e.g. "postfix-*" or "cyrus/*". */
  programs: z.array(z.string()).default([]),
  /** Artifact sources whose lines this service reads when no program names another. */
  sources: z.array(z.string()).default([]),
  /** Tried for lines of any program and source once the specific services found nothing. */
  fallback: z.boolean().default(false),
  /** With fallback: only for lines no service claims by program or source (loose shapes that a known program's own text could fake). */
  unclaimed_only: z.boolean().default(false),
  /** Fields set on every event this service decodes (a decoder's own fields win). */
  defaults: z.record(z.string(), FieldTemplate).default({}),
  decoders: z.array(DecoderSpec).min(1),
  tests: z.array(TestLine).min(1, 'every service carries test lines'),
});
export type ServiceSpec = z.infer<typeof ServiceSpec>;
export type TestLine = z.infer<typeof TestLine>;

type Template = z.infer<typeof FieldTemplate>;

export interface Decoder {
  service: string;
  name: string;
  regex: RegExp;
  /** Literals one of which the message must contain (lower-case when the pattern ignores case); empty: none known. */
  contains: string[];
  /** Whether `contains` was written by the service's author rather than derived from the pattern. */
  declared: boolean;
  fields: [string, Template][];
}

export interface Service {
  spec: ServiceSpec;
  file: string;
  decoders: Decoder[];
}

export class CatalogueError extends Error {
  constructor(
    file: string,
    /** What is wrong, without the file: "decoder x: unknown macro {Y}; ...". */
    readonly reason: string,
  ) {
    super(`decoder catalogue ${file}: ${reason}`);
    this.name = 'CatalogueError';
  }
}

/** Expands macros and compiles; the error names the file and decoder. */
export function compilePattern(pattern: string, where: string, file: string, flags = ''): RegExp {
  const used = new Set<string>();
  const source = pattern.replace(/\{([A-Z]+)(?::([a-z][a-z0-9_]*))?\}/g, (whole, name: string, capture: string | undefined) => {
    const macro = MACROS[name];
    if (!macro) throw new CatalogueError(file, `${where}: unknown macro {${name}}; known: ${Object.keys(MACROS).join(', ')}`);
    const group = capture ?? macro.capture;
    if (!group || used.has(group)) return `(?:${macro.pattern})`;
    used.add(group);
    return `(?<${group}>${macro.pattern})`;
  });
  try {
    return new RegExp(source, flags);
  } catch (err) {
    throw new CatalogueError(file, `${where}: ${(err as Error).message}`);
  }
}

// Escapes whose character is itself (\. \[ \( ...), as opposed to classes (\d \s \w), assertions (\b) and codes (\n \x41).
const LITERAL_ESCAPE = /[^A-Za-z0-9]/;
const QUANTIFIER_BRACES = /^\{(\d+)(?:,\d*)?\}/;
/** Group openings and the length of each; lookarounds (?= (?! (?<= (?<! require nothing we can count on. */
const GROUP_OPENING = /^\((?:\?:|\?<[A-Za-z_]\w*>|(\?<?[=!]))?/;
/** Literals shorter than this prefilter too little to be worth a test. */
const LITERAL_MIN = 3;

/**
 * Literals one of which every match of `source` contains: a cheap test that
 * spares most messages the regular expression. Read from the pattern's
 * structure: runs of literal characters, and groups or top-level
 * alternatives each of whose branches requires one (then any of them will
 * do). Of the candidates, the one whose shortest literal is longest wins.
 * Undefined when nothing of at least LITERAL_MIN characters is required.
 */
export function requiredLiterals(source: string): string[] | undefined {
  const branches = splitAlternatives(source);
  if (branches.length > 1) {
    const sets = branches.map(requiredLiterals);
    return sets.every((set) => set !== undefined) ? [...new Set(sets.flat() as string[])] : undefined;
  }
  const candidates: string[][] = [];
  let run = '';
  const end = (): void => {
    if (run.length >= LITERAL_MIN) candidates.push([run]);
    run = '';
  };
  let i = 0;
  while (i < source.length) {
    const c = source[i]!;
    // The atom at i: a literal character (kept in `run`), a group (its literals), or anything else.
    let literal: string | undefined;
    let group: string[] | undefined;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (LITERAL_ESCAPE.test(next)) literal = next;
      i += 2;
      // \xHH, \uHHHH, \k<name>: their argument is no literal either.
      if (next === 'x') i += 2;
      else if (next === 'u') i += 4;
      else if (next === 'k') i = source.indexOf('>', i) + 1;
    } else if (c === '(' || c === '[') {
      const close = skipGroup(source, i);
      if (close < 0) return undefined;
      const opening = c === '(' ? GROUP_OPENING.exec(source.slice(i))! : null;
      if (opening && !opening[1]) group = requiredLiterals(source.slice(i + opening[0].length, close - 1));
      i = close;
    } else if (c === '.' || c === '^' || c === '$') {
      i++;
    } else {
      literal = c;
      i++;
    }
    // A quantifier after the atom: an atom that may be absent requires nothing; a repeated one ends the run.
    const q = source[i];
    const braces = q === '{' ? QUANTIFIER_BRACES.exec(source.slice(i)) : null;
    const quantified = q === '*' || q === '?' || q === '+' || braces !== null;
    const mayBeAbsent = q === '*' || q === '?' || (braces !== null && braces[1] === '0');
    if (quantified) {
      i += braces ? braces[0].length : 1;
      if (source[i] === '?') i++;
    }
    if (literal !== undefined && !mayBeAbsent) run += literal;
    if (literal === undefined || quantified) end();
    if (group && !mayBeAbsent) candidates.push(group);
  }
  end();
  const shortest = (set: string[]): number => Math.min(...set.map((l) => l.length));
  const best = candidates.reduce<string[] | undefined>((a, b) => (!a || shortest(b) > shortest(a) ? b : a), undefined);
  return best && shortest(best) >= LITERAL_MIN ? best : undefined;
}

/** `source` cut at its top-level | (one piece when it has none). */
function splitAlternatives(source: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (c === '(' || c === '[') i = skipGroup(source, i) - 1;
    else if (c === '|') {
      pieces.push(source.slice(start, i));
      start = i + 1;
    }
    if (i < 0) return [source];
  }
  pieces.push(source.slice(start));
  return pieces;
}

/** The index just past the class or group that starts at `start` (classes and escapes inside skipped), or -1 when it never closes. */
function skipGroup(source: string, start: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = start; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') i++;
    else if (inClass) {
      if (c === ']') {
        inClass = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === '[') inClass = true;
    else if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i + 1;
  }
  return -1;
}

/** A checked spec compiled: its patterns with macros expanded, its fields checked against their captures. */
export function compileService(spec: ServiceSpec, file: string): Service {
  const decoders = spec.decoders.map((d) => {
    const regex = compilePattern(d.match, `decoder ${d.name}`, file, d.ignore_case ? 'i' : '');
    const captures = new Set([...regex.source.matchAll(/\(\?<([a-z][a-z0-9_]*)>/g)].map((m) => m[1]!));
    for (const [field, value] of Object.entries(d.fields)) {
      for (const ref of String(value).matchAll(/\$([a-z][a-z0-9_]*)/g)) {
        if (!captures.has(ref[1]!)) throw new CatalogueError(file, `decoder ${d.name}: field ${field} uses $${ref[1]}, which the pattern does not capture`);
      }
    }
    const declared = d.contains === undefined ? undefined : typeof d.contains === 'string' ? [d.contains] : d.contains;
    const contains = (declared ?? requiredLiterals(regex.source) ?? []).map((l) => (d.ignore_case ? l.toLowerCase() : l));
    return { service: spec.service, name: d.name, regex, contains, declared: declared !== undefined, fields: Object.entries({ ...spec.defaults, ...d.fields }) };
  });
  return { spec, file, decoders };
}

export const CATALOGUE_DIR = path.join(import.meta.dirname, 'catalogue');

export function loadServices(dir = CATALOGUE_DIR): Service[] {
  return fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .map((f) => {
      let document: unknown;
      try {
        document = parseYaml(fs.readFileSync(path.join(dir, f), 'utf8'));
      } catch (err) {
        throw new CatalogueError(f, `not valid YAML: ${(err as Error).message.split('\n')[0]}`);
      }
      const parsed = ServiceSpec.safeParse(document);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new CatalogueError(f, `${issue.path.join('.') || 'file'}: ${issue.message}`);
      }
      return compileService(parsed.data, f);
    });
}

/** The artifact source a test line is parsed with: its own, else the service's first, else "syslog". */
export function testSource(spec: ServiceSpec, test: TestLine): string {
  return test.source ?? spec.sources[0] ?? 'syslog';
}

/** A field value from its template and the match's captures; undefined when a capture it needs is missing. */
export function fillTemplate(template: Template, groups: Record<string, string | undefined>): FieldValue | undefined {
  if (typeof template !== 'string' || !template.includes('$')) return template;
  let missing = false;
  const value = template.replace(/\$([a-z][a-z0-9_]*)/g, (_, name: string) => {
    const v = groups[name];
    if (v === undefined || v === '') missing = true;
    return v ?? '';
  });
  return missing ? undefined : value;
}
