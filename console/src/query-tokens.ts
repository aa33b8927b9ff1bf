// A small tokenizer of cairn's query language (docs/query-language.md) for
// the query box's highlighting and completion. It follows the server's
// parser (query/parse.ts) in what starts a field, a phrase, a regex and a
// keyword, but never fails: any text splits into tokens that cover it
// exactly, so a half-typed query still colours and completes. The server
// stays the judge of what a query means (its errors point at a position).

export type TokenKind = 'space' | 'keyword' | 'paren' | 'not' | 'field' | 'operator' | 'phrase' | 'regex' | 'range' | 'value' | 'word';

export interface Token {
  kind: TokenKind;
  text: string;
  start: number;
  /** For value tokens (and the operator before one): the field they test. */
  field?: string;
}

// As the server's FIELD_START: a field name, then ":" or a comparison.
const FIELD_START = /([A-Za-z@][A-Za-z0-9_.@-]*)(>=|<=|>|<|:)/y;
const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'TO']);
const isSpace = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\r';
const endsWord = (c: string | undefined) => c === undefined || isSpace(c) || c === '(' || c === ')' || c === '"';

/** Where a phrase that starts at `at` ends (after its closing quote, or the end of the text when unclosed). */
function phraseEnd(text: string, at: number): number {
  let i = at + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return Math.min(i + 1, text.length);
}

function wordEnd(text: string, at: number): number {
  let i = at;
  while (!endsWord(text[i])) i += text[i] === '\\' ? 2 : 1;
  return Math.min(i, text.length);
}

/** Where a value after `field:` ends: a phrase, a regex /.../, a range [a TO b], or a word. */
function valueEnd(text: string, at: number): { end: number; kind: TokenKind } {
  const c = text[at];
  if (c === '"') return { end: phraseEnd(text, at), kind: 'phrase' };
  if (c === '/') {
    let i = at + 1;
    while (i < text.length && text[i] !== '/') i += text[i] === '\\' ? 2 : 1;
    return { end: Math.min(i + 1, text.length), kind: 'regex' };
  }
  if (c === '[' || c === '{') {
    const close = text.slice(at).search(/[\]}]/);
    return { end: close === -1 ? text.length : at + close + 1, kind: 'range' };
  }
  return { end: wordEnd(text, at), kind: 'value' };
}

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  const push = (kind: TokenKind, end: number, field?: string) => {
    tokens.push({ kind, text: text.slice(i, end), start: i, ...(field ? { field } : {}) });
    i = end;
  };
  while (i < text.length) {
    const c = text[i];
    if (isSpace(c)) {
      let end = i;
      while (isSpace(text[end])) end++;
      push('space', end);
    } else if (c === '(' || c === ')') {
      push('paren', i + 1);
    } else if (c === '"') {
      push('phrase', phraseEnd(text, i));
    } else if (c === '-' && !endsWord(text[i + 1]) && (i === 0 || endsWord(text[i - 1]))) {
      push('not', i + 1);
    } else {
      FIELD_START.lastIndex = i;
      const field = FIELD_START.exec(text);
      if (field) {
        const name = field[1]!;
        push('field', i + name.length);
        push('operator', i + field[2]!.length, name);
        if (i < text.length && !isSpace(text[i]) && text[i] !== '(' && text[i] !== ')') {
          const value = valueEnd(text, i);
          push(value.kind, value.end, name);
        }
      } else {
        const end = wordEnd(text, i);
        const word = text.slice(i, end);
        push(KEYWORDS.has(word) ? (word === 'NOT' ? 'not' : 'keyword') : 'word', end);
      }
    }
  }
  return tokens;
}

/** What the caret is in the middle of: a field name being typed, or a value of a field. */
export type CompletionContext = { kind: 'field'; prefix: string; start: number; end: number } | { kind: 'value'; field: string; prefix: string; start: number; end: number };

export function completionAt(text: string, caret: number): CompletionContext | null {
  const tokens = tokenize(text);
  for (const [n, token] of tokens.entries()) {
    const end = token.start + token.text.length;
    if (caret < token.start || caret > end) continue;
    // Just after "field:", before any value.
    if (token.kind === 'operator' && caret === end && token.text === ':') {
      const next = tokens[n + 1];
      if (!next || next.kind === 'space' || next.start !== end) return { kind: 'value', field: token.field!, prefix: '', start: end, end };
      continue;
    }
    if ((token.kind === 'value' || token.kind === 'phrase') && token.field) {
      const prefix = token.text.slice(0, caret - token.start).replace(/^"/, '');
      return { kind: 'value', field: token.field, prefix, start: token.start, end };
    }
    if (token.kind === 'word' && caret === end) return { kind: 'field', prefix: token.text, start: token.start, end };
  }
  return null;
}

/** A value as the query language takes it after `field:`: bare when it is one plain word, else quoted. */
export function quoteValue(value: string): string {
  return /^[A-Za-z0-9_.@][A-Za-z0-9_.@\-:/]*$/.test(value) && !KEYWORDS.has(value) ? value : `"${value.replace(/["\\]/g, '\\$&')}"`;
}
