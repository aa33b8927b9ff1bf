// The one query language of cairn, for artifact search, saved searches and
// lead-rule patterns:
//
//   Failed password                 two terms, both must occur (AND is implicit)
//   "Failed password for root"      a phrase: the words, adjacent, in this order
//   source.ip:10.0.0.1              a field of the parsed event equals a value
//   user.name:"svc backup"          quoted field value
//   A AND B                         explicit AND, same as "A B"
//   NOT term, -term                 exclusion (of a term, phrase or field)
//
// Matching ignores ASCII case. A word with a colon is a field term when the
// part before the colon is a field name (a letter, then letters, digits, `_`,
// `.`, `@`, `-`); quote it to search the text instead ("10:30" and "fe80::1"
// are already text). OR and parentheses are not supported.

export type Clause =
  | { kind: 'text'; value: string; phrase: boolean; negated: boolean }
  | { kind: 'field'; field: string; value: string; negated: boolean };

export interface Query {
  clauses: Clause[];
}

export class QuerySyntaxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'QuerySyntaxError';
  }
}

export const MAX_QUERY_LENGTH = 2000;
export const MAX_CLAUSES = 32;

const FIELD_TERM = /^([A-Za-z@][A-Za-z0-9_.@-]*):(.+)$/s;

/** Reads a double-quoted string starting at `start` (the opening quote); returns it and the index after the closing quote. */
function readQuoted(input: string, start: number): { value: string; end: number } {
  let value = '';
  for (let i = start + 1; i < input.length; i++) {
    const c = input[i]!;
    if (c === '\\' && i + 1 < input.length) value += input[++i];
    else if (c === '"') return { value, end: i + 1 };
    else value += c;
  }
  throw new QuerySyntaxError(`unterminated quote starting at character ${start + 1}`);
}

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

export function parseQuery(input: string): Query {
  if (input.length > MAX_QUERY_LENGTH) throw new QuerySyntaxError(`query is longer than ${MAX_QUERY_LENGTH} characters`);
  const clauses: Clause[] = [];
  let negateNext = false;
  let i = 0;
  while (i < input.length) {
    if (isSpace(input[i])) {
      i++;
      continue;
    }
    let negated = negateNext;
    negateNext = false;
    if (input[i] === '-' && i + 1 < input.length && !isSpace(input[i + 1])) {
      negated = !negated;
      i++;
    }
    if (input[i] === '"') {
      const { value, end } = readQuoted(input, i);
      if (end < input.length && !isSpace(input[end])) throw new QuerySyntaxError(`expected a space after the quote ending at character ${end}`);
      if (value.trim()) clauses.push({ kind: 'text', value, phrase: true, negated });
      i = end;
      continue;
    }
    let end = i;
    while (end < input.length && !isSpace(input[end]) && input[end] !== '"') end++;
    const word = input.slice(i, end);
    if (word === 'AND' && !negated) {
      i = end;
      continue;
    }
    if (word === 'NOT' && !negated) {
      negateNext = true;
      i = end;
      continue;
    }
    if (word === 'OR') throw new QuerySyntaxError('OR is not supported: terms are combined with AND; run one search per alternative');
    const field = FIELD_TERM.exec(word) ?? (/^[A-Za-z@][A-Za-z0-9_.@-]*:$/.test(word) ? [word, word.slice(0, -1), ''] : null);
    if (field && /^[A-Za-z@][A-Za-z0-9_.@-]*$/.test(field[1]!) && !field[2]!.startsWith('/') && !field[2]!.startsWith(':')) {
      let value = field[2]!;
      end = i + word.length;
      if (value === '' && input[end] === '"') {
        const quoted = readQuoted(input, end);
        value = quoted.value;
        end = quoted.end;
      }
      if (value === '') throw new QuerySyntaxError(`field ${field[1]} needs a value, e.g. ${field[1]}:value`);
      clauses.push({ kind: 'field', field: field[1]!, value, negated });
    } else {
      if (input[end] === '"') throw new QuerySyntaxError(`unexpected quote at character ${end + 1}; put a space before it`);
      clauses.push({ kind: 'text', value: word, phrase: false, negated });
    }
    i = end;
  }
  if (negateNext) throw new QuerySyntaxError('NOT must be followed by a term');
  if (clauses.length > MAX_CLAUSES) throw new QuerySyntaxError(`query has more than ${MAX_CLAUSES} terms`);
  return { clauses };
}

/** Lower-cases ASCII letters only, as the store's `lower()` does. */
export function asciiLower(text: string): string {
  return text.replace(/[A-Z]/g, (c) => c.toLowerCase());
}

/** The store's tokenizer (splitByNonAlpha): runs of ASCII letters and digits and of non-ASCII characters. */
export function tokenize(text: string): string[] {
  return text.split(/[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/).filter(Boolean);
}
