// The parser of cairn's query language (grammar and examples in
// docs/query-language.md): recursive descent, so every error can say what
// was expected and at which character.
//
//   query   = [ or ] ;
//   or      = and { "OR" and } ;
//   and     = unary { [ "AND" ] unary } ;
//   unary   = ( "NOT" | "-" ) unary | primary ;
//   primary = "(" or ")" | field | phrase | word ;
import { ARTIFACT_FIELDS, type Bound, type QueryNode } from './ast.js';
import { QuerySyntaxError } from './errors.js';
import { checkRegex } from './regex.js';
import { hasWildcard, isNumber, looksLikeCidr, normalizeGlob, timeMillis } from './values.js';

export { QuerySyntaxError } from './errors.js';
export { asciiLower, tokenize } from './values.js';

/** Longest query text (searches are held to 2,000 characters by the API; rule patterns, imported Sigma lists included, may use all of this). */
export const MAX_QUERY_LENGTH = 16_000;
/** Terms (leaves) in one query. */
export const MAX_TERMS = 512;
/** Nesting of parentheses and NOT. */
export const MAX_DEPTH = 16;

// A field name, then ":" or a comparison operator.
const FIELD_START = /([A-Za-z@][A-Za-z0-9_.@-]*)(>=|<=|>|<|:)/y;
const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'TO']);

function isSpace(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

/** Characters that end a word: whitespace, parentheses and quotes. */
function endsWord(c: string | undefined): boolean {
  return c === undefined || isSpace(c) || c === '(' || c === ')' || c === '"';
}

/** Removes the backslashes of escaped characters ("\*" is a literal star). */
function unescape(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

class Parser {
  private pos = 0;
  private terms = 0;
  private depth = 0;

  constructor(private readonly input: string) {}

  parse(): QueryNode {
    this.skipSpace();
    if (this.pos >= this.input.length) return { kind: 'all' };
    const node = this.or(null);
    this.skipSpace();
    if (this.pos < this.input.length) {
      throw this.error(this.input[this.pos] === ')' ? 'unexpected )' : `unexpected "${this.input[this.pos]}"`);
    }
    return node;
  }

  private error(reason: string, at = this.pos): QuerySyntaxError {
    return new QuerySyntaxError(reason, at + 1);
  }

  private skipSpace(): void {
    while (isSpace(this.input[this.pos])) this.pos++;
  }

  /** The keyword at the cursor, if the next word is exactly one. */
  private keyword(): string | null {
    let end = this.pos;
    while (!endsWord(this.input[end])) end++;
    const word = this.input.slice(this.pos, end);
    return KEYWORDS.has(word) ? word : null;
  }

  private atEnd(): boolean {
    this.skipSpace();
    return this.pos >= this.input.length || this.input[this.pos] === ')';
  }

  /** `field` is set inside field:( ... ), where the leaves are values of that field. */
  private or(field: string | null): QueryNode {
    const children = [this.and(field)];
    for (;;) {
      this.skipSpace();
      if (this.keyword() !== 'OR') break;
      const at = this.pos;
      this.pos += 2;
      if (this.atEnd() || this.keyword() === 'OR' || this.keyword() === 'AND') throw this.error('OR needs a term on both sides', at);
      children.push(this.and(field));
    }
    return children.length === 1 ? children[0]! : { kind: 'or', children };
  }

  private and(field: string | null): QueryNode {
    const children = [this.unary(field)];
    for (;;) {
      if (this.atEnd()) break;
      const keyword = this.keyword();
      if (keyword === 'OR') break;
      if (keyword === 'AND') {
        const at = this.pos;
        this.pos += 3;
        if (this.atEnd() || this.keyword() === 'OR' || this.keyword() === 'AND') throw this.error('AND needs a term on both sides', at);
      }
      children.push(this.unary(field));
    }
    return children.length === 1 ? children[0]! : { kind: 'and', children };
  }

  private nested<T>(parse: () => T): T {
    if (++this.depth > MAX_DEPTH) throw this.error(`query nests deeper than ${MAX_DEPTH} levels`);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  private unary(field: string | null): QueryNode {
    this.skipSpace();
    const at = this.pos;
    const keyword = this.keyword();
    if (keyword === 'AND' || keyword === 'OR' || keyword === 'TO') throw this.error(`${keyword} needs a term before it`);
    let negated = false;
    if (keyword === 'NOT') {
      this.pos += 3;
      negated = true;
    } else if (this.input[this.pos] === '-' && !isSpace(this.input[this.pos + 1]) && this.input[this.pos + 1] !== undefined && this.input[this.pos + 1] !== ')') {
      this.pos += 1;
      negated = true;
    }
    if (negated) {
      if (this.atEnd()) throw this.error('NOT must be followed by a term', at);
      return this.nested(() => ({ kind: 'not', child: this.unary(field) }));
    }
    return this.primary(field);
  }

  private primary(field: string | null): QueryNode {
    this.skipSpace();
    const c = this.input[this.pos];
    if (c === '(') {
      const open = this.pos++;
      return this.nested(() => {
        if (this.atEnd()) throw this.error(this.pos >= this.input.length ? 'expected a term and )' : 'empty parentheses', open);
        const inner = this.or(field);
        this.skipSpace();
        if (this.input[this.pos] !== ')') throw this.error(`expected ) to close the ( at character ${open + 1}`);
        this.pos++;
        return inner;
      });
    }
    if (c === ')') throw this.error('unexpected )');
    this.countTerm();
    if (c === '"') {
      const value = this.quoted();
      return field === null ? { kind: 'text', value, phrase: true } : fieldValue(field, value, true, this.pos);
    }
    if (field === null) {
      FIELD_START.lastIndex = this.pos;
      const f = FIELD_START.exec(this.input);
      if (f && this.fieldFollows(f)) return this.fieldExpression(f[1]!, f[2]!);
    }
    const start = this.pos;
    const word = this.word();
    if (field !== null) return fieldValue(field, word, false, start + 1);
    if (this.input[this.pos] === '"') throw this.error('unexpected quote; put a space before it');
    return hasWildcard(word) ? { kind: 'text_glob', pattern: normalizeGlob(word) } : { kind: 'text', value: unescape(word), phrase: false };
  }

  private countTerm(): void {
    if (++this.terms > MAX_TERMS) throw this.error(`query has more than ${MAX_TERMS} terms`);
  }

  /** Whether what follows "name:" makes a field expression; "http://x", "10:30" and "fe80::1" stay text. */
  private fieldFollows(f: RegExpExecArray): boolean {
    const after = this.input[this.pos + f[0].length];
    if (f[2] !== ':') return after !== undefined && !isSpace(after);
    if (after === ':' ) return false;
    if (after === '/') return this.regexEnd(this.pos + f[0].length) !== null;
    return true;
  }

  /** A word: up to whitespace, a parenthesis or a quote; backslash escapes the next character. */
  private word(): string {
    const start = this.pos;
    while (!endsWord(this.input[this.pos])) this.pos += this.input[this.pos] === '\\' && this.pos + 1 < this.input.length ? 2 : 1;
    return this.input.slice(start, this.pos);
  }

  private quoted(): string {
    const open = this.pos;
    let value = '';
    for (let i = open + 1; i < this.input.length; i++) {
      const c = this.input[i]!;
      if (c === '\\' && i + 1 < this.input.length) value += this.input[++i];
      else if (c === '"') {
        this.pos = i + 1;
        if (!endsWord(this.input[this.pos]) && this.input[this.pos] !== '"') throw this.error('expected a space after the quote');
        return value;
      } else value += c;
    }
    throw this.error('unterminated quote', open);
  }

  /** Index after the closing slash of /regex/ starting at `at`, when the regex ends a word; null otherwise. */
  private regexEnd(at: number): number | null {
    if (this.input[at + 1] === '/') return null;
    for (let i = at + 1; i < this.input.length; i++) {
      if (this.input[i] === '\\') i++;
      else if (this.input[i] === '/') return endsWord(this.input[i + 1]) ? i + 1 : null;
    }
    return null;
  }

  private fieldExpression(field: string, operator: string): QueryNode {
    const fieldAt = this.pos;
    this.pos += field.length + operator.length;
    if (operator !== ':') {
      const start = this.pos;
      const value = unescape(this.word());
      if (!value) throw this.error(`${field}${operator} needs a number or time`, start);
      const bound = { value, inclusive: operator.length === 2 };
      return rangeNode(field, operator.startsWith('>') ? bound : undefined, operator.startsWith('<') ? bound : undefined, fieldAt + 1);
    }
    const c = this.input[this.pos];
    if (c === undefined || isSpace(c) || c === ')') throw this.error(`field ${field} needs a value, e.g. ${field}:value`, fieldAt);
    if (c === '(') {
      this.terms--; // the values inside count instead
      const open = this.pos++;
      return this.nested(() => {
        if (this.atEnd()) throw this.error(`expected values of ${field} and )`, open);
        const inner = this.or(field);
        this.skipSpace();
        if (this.input[this.pos] !== ')') throw this.error(`expected ) to close the ( at character ${open + 1}`);
        this.pos++;
        return inner;
      });
    }
    if (c === '[' || c === '{') return this.range(field);
    if (c === '/') {
      const end = this.regexEnd(this.pos)!;
      const pattern = this.input.slice(this.pos + 1, end - 1).replace(/\\\//g, '/');
      checkRegex(pattern, this.pos + 2);
      this.pos = end;
      return { kind: 'regex', field, pattern };
    }
    if (c === '"') return fieldValue(field, this.quoted(), true, this.pos);
    const start = this.pos;
    return fieldValue(field, this.word(), false, start + 1);
  }

  private range(field: string): QueryNode {
    const open = this.pos;
    const lowerInclusive = this.input[this.pos++] === '[';
    this.skipSpace();
    const lower = this.rangeWord();
    this.skipSpace();
    if (this.keyword() !== 'TO') throw this.error('expected TO between the bounds of a range');
    this.pos += 2;
    this.skipSpace();
    const upper = this.rangeWord();
    this.skipSpace();
    const close = this.input[this.pos];
    if (close !== ']' && close !== '}') throw this.error(`expected ] or } to close the range at character ${open + 1}`);
    this.pos++;
    const bound = (value: string, inclusive: boolean): Bound | undefined => (value === '*' ? undefined : { value, inclusive });
    return rangeNode(field, bound(lower, lowerInclusive), bound(upper, close === ']'), open + 1);
  }

  private rangeWord(): string {
    const start = this.pos;
    while (this.pos < this.input.length && !isSpace(this.input[this.pos]) && this.input[this.pos] !== ']' && this.input[this.pos] !== '}') this.pos++;
    if (this.pos === start) throw this.error('expected a bound (a number, a time or *)');
    return this.input.slice(start, this.pos);
  }
}

/** The test a value of `field` stands for: exists (*), CIDR, glob, or equality. */
function fieldValue(field: string, raw: string, quoted: boolean, at: number): QueryNode {
  if (quoted) return { kind: 'eq', field, value: raw };
  if (raw === '*') return { kind: 'exists', field };
  if (looksLikeCidr(raw)) {
    if ((ARTIFACT_FIELDS as readonly string[]).includes(field)) throw new QuerySyntaxError(`${field} is not an address field`, at);
    return { kind: 'cidr', field, cidr: raw };
  }
  if (hasWildcard(raw)) return { kind: 'glob', field, pattern: normalizeGlob(raw) };
  return { kind: 'eq', field, value: unescape(raw) };
}

/** A comparison or range: numbers if every bound is one, times if every bound is an ISO 8601 time. */
function rangeNode(field: string, lower: Bound | undefined, upper: Bound | undefined, at: number): QueryNode {
  if ((ARTIFACT_FIELDS as readonly string[]).includes(field)) throw new QuerySyntaxError(`${field} cannot be compared as a number or time`, at);
  const bounds = [lower, upper].filter((b): b is Bound => b !== undefined);
  if (bounds.length === 0) return { kind: 'exists', field };
  if (bounds.every((b) => isNumber(b.value))) return { kind: 'range', field, type: 'number', lower, upper };
  if (bounds.every((b) => !Number.isNaN(timeMillis(b.value)))) return { kind: 'range', field, type: 'time', lower, upper };
  throw new QuerySyntaxError(`the bounds of ${field} must be numbers (500, -1.5) or ISO 8601 times (2026-01-02T03:04:05Z)`, at);
}

export function parseQuery(input: string): QueryNode {
  if (input.length > MAX_QUERY_LENGTH) throw new QuerySyntaxError(`query is longer than ${MAX_QUERY_LENGTH} characters`, 0);
  return new Parser(input).parse();
}
