// The in-memory back end: a query tree compiled once into a predicate over
// one event, with the meaning the store gives it (query/to-sql.ts): words
// through the tokenizer and ASCII case folding, phrases and words with
// separators as substrings, fields (any value of a multi-valued field), and
// the shared value rules of query/values.ts.
import type { FieldValue } from '../topics/index.js';
import type { FieldNode, QueryNode } from './ast.js';
import { anchoredRegex } from './regex.js';
import { asciiLower, globParts, globToRegExp, inNetwork, isNumber, parseNetwork, timeMillis, tokenize } from './values.js';

export interface MatchTarget {
  /** The artifact's id and source (the fields `id` and `source`). */
  id: string;
  source: string;
  raw: string;
  fields: Record<string, FieldValue>;
}

/** What a target costs to prepare for text matching, computed once per target and reused by every rule. */
export class PreparedTarget {
  private tokenSet: Set<string> | null = null;
  private lowered: string | null = null;

  constructor(readonly target: MatchTarget) {}

  get tokens(): Set<string> {
    this.tokenSet ??= new Set(tokenize(asciiLower(this.target.raw)));
    return this.tokenSet;
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
}

type Test = (t: PreparedTarget) => boolean;

function textTest(value: string, phrase: boolean): Test {
  const words = tokenize(value).map(asciiLower);
  const exactWord = !phrase && words.length === 1 && words[0] === asciiLower(value);
  const needle = asciiLower(value);
  return (t) => words.every((w) => t.tokens.has(w)) && (exactWord || t.lowerRaw.includes(needle));
}

/** A test on the values of a field: true when any value passes. */
function anyValue(field: string, test: (value: string) => boolean): Test {
  return (t) => t.values(field).some(test);
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
      return anyValue(node.field, (v) => asciiLower(v) === wanted);
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

function compile(node: QueryNode): Test {
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
      const tests = node.children.map(compile);
      return (t) => tests.every((test) => test(t));
    }
    case 'or': {
      const tests = node.children.map(compile);
      return (t) => tests.some((test) => test(t));
    }
    case 'not': {
      const test = compile(node.child);
      return (t) => !test(t);
    }
    default:
      return fieldTest(node);
  }
}

/** A predicate over prepared targets (the empty query matches everything). */
export function compileMatcher(query: QueryNode): (target: PreparedTarget) => boolean {
  return compile(query);
}
