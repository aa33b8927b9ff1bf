// The in-memory back end: a query tree compiled once into a predicate over
// one event, with the meaning the store gives it (query/to-sql.ts): words
// through the tokenizer and ASCII case folding, phrases and words with
// separators as substrings, fields (any value of a multi-valued field), and
// the shared value rules of query/values.ts.
import type { FieldValue } from '../topics/index.js';
import { ARTIFACT_FIELDS, type FieldNode, type QueryNode } from './ast.js';
import { anchoredRegex } from './regex.js';
import { asciiLower, globParts, globSource, globToRegExp, inAnyNetwork, inNetwork, isNumber, parseNetwork, timeMillis, tokenize, type Network } from './values.js';

export interface MatchTarget {
  /** The artifact's id and source (the fields `id` and `source`). */
  id: string;
  source: string;
  raw: string;
  fields: Record<string, FieldValue>;
}

/** What a target costs to prepare for text matching, computed once per target and reused by every rule. */
export class PreparedTarget {
  private lowered: string | null = null;

  constructor(readonly target: MatchTarget) {}

  /**
   * Whether `word` (a token: query/values.ts tokenize, lower-cased) is one
   * of the raw text's tokens: an occurrence with a separator or an end on
   * either side. Found without splitting the whole text, which cost more
   * than every rule's tests together.
   */
  hasToken(word: string): boolean {
    const text = this.lowerRaw;
    for (let at = text.indexOf(word); at !== -1; at = text.indexOf(word, at + 1)) {
      const end = at + word.length;
      if ((at === 0 || isSeparator(text.charCodeAt(at - 1))) && (end === text.length || isSeparator(text.charCodeAt(end)))) return true;
    }
    return false;
  }

  /** The raw text with ASCII letters lower-cased. */
  get lowerRaw(): string {
    this.lowered ??= asciiLower(this.target.raw);
    return this.lowered;
  }

  /** The values of a field as text: the artifact's own columns for source and id. */
  values(field: string): string[] {
    if (field === 'source') return [this.target.source];
    if (field === 'id') return [this.target.id];
    const present = this.target.fields[field];
    if (present === undefined) return [];
    return Array.isArray(present) ? present.map(String) : [String(present)];
  }

  /** Whether any value of a field passes `test`: values() without building the list (rules ask this per rule and event). */
  someValue(field: string, test: (value: string) => boolean): boolean {
    if (field === 'source') return test(this.target.source);
    if (field === 'id') return test(this.target.id);
    const present = this.target.fields[field];
    if (present === undefined) return false;
    if (!Array.isArray(present)) return test(String(present));
    for (const value of present) if (test(String(value))) return true;
    return false;
  }
}

/** The tokenizer's separators (query/values.ts tokenize): ASCII other than letters and digits. */
function isSeparator(code: number): boolean {
  return code < 0x80 && !((code >= 0x30 && code <= 0x39) || (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a));
}

type Test = (t: PreparedTarget) => boolean;

function textTest(value: string, phrase: boolean): Test {
  const words = tokenize(value).map(asciiLower);
  const exactWord = !phrase && words.length === 1 && words[0] === asciiLower(value);
  const needle = asciiLower(value);
  if (exactWord) return (t) => t.hasToken(words[0]!);
  return (t) => t.lowerRaw.includes(needle) && words.every((w) => t.hasToken(w));
}

/** A test on the values of a field: true when any value passes. */
function anyValue(field: string, test: (value: string) => boolean): Test {
  return (t) => t.someValue(field, test);
}

function fieldTest(node: FieldNode): Test {
  switch (node.kind) {
    case 'eq': {
      // The artifact's own source and id compare exactly, as their columns do.
      if (node.field === 'source' || node.field === 'id') {
        const wanted = node.field === 'id' ? node.value.toLowerCase() : node.value;
        return anyValue(node.field, (v) => v === wanted);
      }
      const wanted = asciiLower(node.value);
      // Lower-casing ASCII keeps the length: values of another length are told apart without it.
      return anyValue(node.field, (v) => v.length === wanted.length && (v === wanted || asciiLower(v) === wanted));
    }
    case 'glob': {
      const regex = globToRegExp(globParts(node.pattern), true);
      return anyValue(node.field, (v) => regex.test(asciiLower(v)));
    }
    case 'exists':
      return anyValue(node.field, () => true);
    case 'cidr': {
      const network = parseNetwork(node.cidr);
      return anyValue(node.field, (v) => inNetwork(v, network));
    }
    case 'range': {
      const read = node.type === 'number' ? (v: string) => (isNumber(v) ? Number(v) : NaN) : timeMillis;
      const lower = node.lower ? read(node.lower.value) : -Infinity;
      const upper = node.upper ? read(node.upper.value) : Infinity;
      const lowerOk = node.lower?.inclusive === false ? (n: number) => n > lower : (n: number) => n >= lower;
      const upperOk = node.upper?.inclusive === false ? (n: number) => n < upper : (n: number) => n <= upper;
      return anyValue(node.field, (v) => {
        const n = read(v);
        return !Number.isNaN(n) && lowerOk(n) && upperOk(n);
      });
    }
    case 'regex': {
      const regex = new RegExp(anchoredRegex(node.pattern), 'su');
      return anyValue(node.field, (v) => regex.test(v));
    }
  }
}

function compile(node: QueryNode, shared?: SharedParts): Test {
  const test = compileNode(node, shared);
  return shared ? shared.remembered(node, test) : test;
}

function compileNode(node: QueryNode, shared: SharedParts | undefined): Test {
  switch (node.kind) {
    case 'all':
      return () => true;
    case 'text':
      return textTest(node.value, node.phrase);
    case 'text_glob': {
      const regex = globToRegExp(globParts(node.pattern), false);
      return (t) => regex.test(t.lowerRaw);
    }
    case 'and': {
      // The cheap parts first: a part that fails ends the test, and reading a field costs less than searching the line.
      const tests = [...node.children].sort((a, b) => partCost(a) - partCost(b)).map((child) => compile(child, shared));
      // Loops rather than every/some: rules run these for each event and rule, and a callback per part showed.
      return (t) => {
        for (let i = 0; i < tests.length; i++) if (!tests[i]!(t)) return false;
        return true;
      };
    }
    case 'or': {
      const tests = orTests(node.children, shared);
      if (tests.length === 1) return tests[0]!;
      return (t) => {
        for (let i = 0; i < tests.length; i++) if (tests[i]!(t)) return true;
        return false;
      };
    }
    case 'not': {
      const test = compile(node.child, shared);
      return (t) => !test(t);
    }
    default:
      return fieldTest(node);
  }
}

/** A rough cost of testing a part: a field read 1, a pattern over a value more, a search of the line most. */
function partCost(node: QueryNode): number {
  switch (node.kind) {
    case 'and':
    case 'or':
      return node.children.reduce((sum, child) => sum + partCost(child), 0);
    case 'not':
      return partCost(node.child);
    case 'text':
    case 'text_glob':
      return 20;
    case 'glob':
    case 'regex':
      return 4;
    default:
      return 1;
  }
}

/** Parts worth remembering a result of: those that do more than read one field. */
function isCompound(node: QueryNode): boolean {
  return node.kind === 'and' || node.kind === 'or' || node.kind === 'not' || node.kind === 'text' || node.kind === 'text_glob' || node.kind === 'regex';
}

/**
 * The parts written alike in several queries of a set (the pack's guessing,
 * spraying and distributed-guessing rules and a step of its
 * failures-then-success sequence all open with the same test of a failed
 * login): each is tested once per target, its result remembered with the
 * target it was for. Compile each query with the same SharedParts.
 */
export class SharedParts {
  private readonly slots = new Map<string, number>();
  private readonly lastTarget: (PreparedTarget | undefined)[] = [];
  private readonly lastResult: boolean[] = [];

  constructor(queries: readonly QueryNode[]) {
    const counts = new Map<string, number>();
    const count = (node: QueryNode): void => {
      if (!isCompound(node)) return;
      const key = JSON.stringify(node);
      counts.set(key, (counts.get(key) ?? 0) + 1);
      if (node.kind === 'and' || node.kind === 'or') node.children.forEach(count);
      else if (node.kind === 'not') count(node.child);
    };
    queries.forEach(count);
    for (const [key, times] of counts) if (times > 1) this.slots.set(key, this.slots.size);
  }

  /** The test, remembering its last result when the part is shared. */
  remembered(node: QueryNode, test: Test): Test {
    const slot = isCompound(node) ? this.slots.get(JSON.stringify(node)) : undefined;
    if (slot === undefined) return test;
    const { lastTarget, lastResult } = this;
    return (t) => {
      if (lastTarget[slot] === t) return lastResult[slot]!;
      const result = test(t);
      lastTarget[slot] = t;
      lastResult[slot] = result;
      return result;
    };
  }
}

/**
 * The tests of an OR's branches, with the equalities on one parsed field
 * made one set lookup, its globs one regular expression and its networks
 * one pass over its values: rules list dozens (`destination.port:(20 OR 21 OR ...)`,
 * `source.ip:(10.0.0.0/8 OR ...)`), and each branch alone would read the
 * field, and parse an address, again.
 */
function orTests(children: QueryNode[], shared: SharedParts | undefined): Test[] {
  const equals = new Map<string, Set<string>>();
  const networks = new Map<string, Network[]>();
  const globs = new Map<string, string[]>();
  const tests: Test[] = [];
  for (const child of children) {
    if (child.kind === 'eq' && !(ARTIFACT_FIELDS as readonly string[]).includes(child.field)) {
      const values = equals.get(child.field) ?? new Set<string>();
      equals.set(child.field, values.add(asciiLower(child.value)));
    } else if (child.kind === 'glob') {
      globs.set(child.field, [...(globs.get(child.field) ?? []), globSource(globParts(child.pattern), true)]);
    } else if (child.kind === 'cidr') {
      networks.set(child.field, [...(networks.get(child.field) ?? []), parseNetwork(child.cidr)]);
    } else tests.push(compile(child, shared));
  }
  // Lower-casing only a value the set does not hold as it comes: most have no capital.
  for (const [field, values] of equals) tests.unshift(anyValue(field, (v) => values.has(v) || values.has(asciiLower(v))));
  for (const [field, sources] of globs) {
    const regex = new RegExp(sources.length === 1 ? sources[0]! : `(?:${sources.join('|')})`, 'u');
    tests.unshift(anyValue(field, (v) => regex.test(asciiLower(v))));
  }
  for (const [field, list] of networks) tests.unshift(anyValue(field, (v) => inAnyNetwork(v, list)));
  return tests;
}

/** A predicate over prepared targets (the empty query matches everything). */
export function compileMatcher(query: QueryNode, shared?: SharedParts): (target: PreparedTarget) => boolean {
  return compile(query, shared);
}

/**
 * A condition every match of a query meets, cheap to check on an event: a
 * value of a parsed field (ASCII lower-cased, as equality compares), a
 * parsed field being present, or a text found in the line (ASCII
 * lower-cased, as text terms search it).
 */
export type GateTerm = { field: string; value: string } | { field: string; present: true } | { text: string };

/**
 * Terms one of which every match of the query meets; null when the query
 * names no such set. An equality on a parsed field gives its value, any other
 * test of a parsed field the field's presence (`source` and `id` are not
 * parsed fields), a text term its text, a text glob its longest literal; an
 * OR the terms of all its branches (null if a branch has none); an AND the
 * terms of one of its parts, the set `cost` ranks cheapest; NOT none. An event
 * meeting none of the terms cannot match, which lets rules be looked up by
 * them (pipeline/leads/dispatch.ts).
 */
export function requiredTerms(query: QueryNode, cost: (terms: GateTerm[]) => number): GateTerm[] | null {
  switch (query.kind) {
    case 'eq':
    case 'glob':
    case 'exists':
    case 'cidr':
    case 'range':
    case 'regex':
      if ((ARTIFACT_FIELDS as readonly string[]).includes(query.field)) return null;
      return [query.kind === 'eq' ? { field: query.field, value: asciiLower(query.value) } : { field: query.field, present: true }];
    case 'text':
      return [{ text: asciiLower(query.value) }];
    case 'text_glob': {
      let longest = '';
      for (const part of globParts(query.pattern)) if ('literal' in part && part.literal.length > longest.length) longest = part.literal;
      return longest.length >= 3 ? [{ text: asciiLower(longest) }] : null;
    }
    case 'or': {
      const terms: GateTerm[] = [];
      for (const child of query.children) {
        const required = requiredTerms(child, cost);
        if (!required) return null;
        for (const term of required) if (!terms.some((t) => sameTerm(t, term))) terms.push(term);
      }
      return terms;
    }
    case 'and': {
      let best: GateTerm[] | null = null;
      for (const child of query.children) {
        const required = requiredTerms(child, cost);
        if (required && (!best || cost(required) < cost(best))) best = required;
      }
      return best;
    }
    default:
      return null;
  }
}

function sameTerm(a: GateTerm, b: GateTerm): boolean {
  if ('text' in a || 'text' in b) return 'text' in a && 'text' in b && a.text === b.text;
  return a.field === b.field && ('value' in a ? 'value' in b && a.value === b.value : 'present' in b);
}
