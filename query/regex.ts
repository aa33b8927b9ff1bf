// Regular expressions in queries (field:/.../): only what ClickHouse (RE2)
// and JavaScript run the same way. A whitelist: literals, . (any character,
// newlines too), classes [...] with ranges and negation, \d \D \w \W \b \B
// \t \n \r and escaped metacharacters, \s and \S (as [\t\n\f\r ]), groups
// (...) and (?:...), alternation, ^ $, and the quantifiers * + ? {n} {n,}
// {n,m} (lazy forms too) up to 1000. No backreferences, lookaround, named
// groups, inline flags, Unicode classes or code escapes: RE2 lacks some, and
// JavaScript reads others differently. The value must match whole, and case
// matters.
import { QuerySyntaxError } from './errors.js';

export const MAX_REGEX_LENGTH = 256;
const MAX_REPEAT = 1000;

const SIMPLE_ESCAPES = new Set(['d', 'D', 'w', 'W', 'b', 'B', 't', 'n', 'r']);
const METACHARACTERS = new Set(['\\', '^', '$', '.', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}', '/']);

/** Throws QuerySyntaxError (positions counted from `offset`, 1-based) unless both engines read the pattern alike. */
export function checkRegex(pattern: string, offset: number): void {
  const fail = (reason: string, at: number): never => {
    throw new QuerySyntaxError(reason, offset + at);
  };
  if (pattern.length === 0) fail('empty regular expression', 0);
  if (pattern.length > MAX_REGEX_LENGTH) fail(`regular expression is longer than ${MAX_REGEX_LENGTH} characters`, 0);
  let depth = 0;
  let canRepeat = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      const e = pattern[i + 1];
      if (e === undefined) fail('regular expression ends with a lone backslash', i);
      if (!SIMPLE_ESCAPES.has(e!) && !METACHARACTERS.has(e!) && e !== 's' && e !== 'S') fail(`\\${e} is not allowed in a regular expression (only \\d \\D \\w \\W \\s \\S \\b \\B \\t \\n \\r and escaped metacharacters)`, i);
      canRepeat = e !== 'b' && e !== 'B';
      i++;
    } else if (c === '[') {
      i = checkClass(pattern, i, fail);
      canRepeat = true;
    } else if (c === '(') {
      if (pattern[i + 1] === '?') {
        if (pattern[i + 2] !== ':') fail('only (...) and (?:...) groups are allowed: no lookaround, named groups or flags', i);
        i += 2;
      }
      depth++;
      canRepeat = false;
    } else if (c === ')') {
      if (--depth < 0) fail('unbalanced ) in regular expression', i);
      canRepeat = true;
    } else if (c === '*' || c === '+' || c === '?' || c === '{') {
      if (!canRepeat) fail(`nothing to repeat before ${c}`, i);
      if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
        if (!m) fail('{ must be a repetition such as {2}, {2,} or {2,5}; write \\{ for the character', i);
        const [min, max] = [Number(m![1]), m![3] ? Number(m![3]) : Number(m![1])];
        if (min > MAX_REPEAT || max > MAX_REPEAT || max < min) fail(`repetition counts must be at most ${MAX_REPEAT}, the second not below the first`, i);
        i += m![0].length - 1;
      }
      if (pattern[i + 1] === '?') i++; // lazy
      canRepeat = false;
    } else if (c === '}' || c === ']') {
      fail(`write \\${c} for the character ${c}`, i);
    } else {
      canRepeat = c !== '|' && c !== '^' && c !== '$';
    }
  }
  if (depth > 0) fail('unclosed ( in regular expression', pattern.length);
}

function checkClass(pattern: string, open: number, fail: (reason: string, at: number) => never): number {
  let i = open + 1;
  if (pattern[i] === '^') i++;
  if (pattern[i] === ']') fail('an empty class [] is not allowed; write \\] for the character', i);
  for (; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === ']') return i;
    if (c === '[') fail('write \\[ inside a class: POSIX classes and nested sets are not allowed', i);
    if (c === '\\') {
      const e = pattern[i + 1];
      if (e === undefined || (!['d', 'D', 'w', 'W', 't', 'n', 'r', '-', '^'].includes(e) && !METACHARACTERS.has(e))) fail(`\\${e ?? ''} is not allowed inside a class`, i);
      i++;
    }
  }
  return fail('unclosed [ in regular expression', open);
}

/** The pattern both engines run: whole value, dot matching newlines, \s spelled out (RE2 and JavaScript disagree on it). */
export function anchoredRegex(pattern: string): string {
  return `^(?:${pattern.replace(/\\\\|\\s|\\S/g, (m) => (m === '\\s' ? '[\\t\\n\\f\\r ]' : m === '\\S' ? '[^\\t\\n\\f\\r ]' : m))})$`;
}
