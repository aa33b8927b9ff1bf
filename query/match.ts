// Evaluates a parsed query against one event in memory, with the same
// meaning the store gives it (query/to-sql.ts): words through the tokenizer
// and ASCII case folding, phrases and words with separators as
// case-insensitive substrings, fields equal to a value (ASCII case ignored;
// any value of a multi-valued field).
import type { FieldValue } from '../topics/index.js';
import { asciiLower, tokenize, type Clause, type Query } from './parse.js';

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

  get lowerRaw(): string {
    this.lowered ??= this.target.raw.toLowerCase();
    return this.lowered;
  }
}

type ClauseTest = (t: PreparedTarget) => boolean;

function textTest(value: string, phrase: boolean): ClauseTest {
  const words = tokenize(value).map(asciiLower);
  const exactWord = !phrase && words.length === 1 && words[0] === asciiLower(value);
  const needle = value.toLowerCase();
  return (t) => words.every((w) => t.tokens.has(w)) && (exactWord || t.lowerRaw.includes(needle));
}

function fieldTest(field: string, value: string): ClauseTest {
  if (field === 'source') return (t) => t.target.source === value;
  if (field === 'id') return (t) => t.target.id === value.toLowerCase();
  const wanted = asciiLower(value);
  return (t) => {
    const present = t.target.fields[field];
    if (present === undefined) return false;
    const values = Array.isArray(present) ? present : [present];
    return values.some((v) => asciiLower(String(v)) === wanted);
  };
}

function clauseTest(clause: Clause): ClauseTest {
  const test = clause.kind === 'text' ? textTest(clause.value, clause.phrase) : fieldTest(clause.field, clause.value);
  return clause.negated ? (t) => !test(t) : test;
}

/** A predicate over prepared targets: all clauses must hold (an empty query matches everything). */
export function compileMatcher(query: Query): (target: PreparedTarget) => boolean {
  const tests = query.clauses.map(clauseTest);
  return (target) => tests.every((test) => test(target));
}
