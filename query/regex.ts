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

export const MAX_REGEX_LENGTH = 1024;
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

const isLower = (c: string) => c >= 'a' && c <= 'z';
const isUpper = (c: string) => c >= 'A' && c <= 'Z';
const otherCase = (c: string) => (isLower(c) ? c.toUpperCase() : isUpper(c) ? c.toLowerCase() : null);

/** The ASCII letters of the other case that the range lo-hi covers, as class items ("A-F" for "a-f"). */
function rangeCounterparts(lo: string, hi: string): string {
  let items = '';
  for (const [first, last] of [['a', 'z'], ['A', 'Z']] as const) {
    const from = lo > first ? lo : first;
    const to = hi < last ? hi : last;
    if (from <= to) items += `${otherCase(from)}-${otherCase(to)}`;
  }
  return items;
}

/**
 * The same pattern with ASCII case ignored, spelled with classes ("ab" becomes
 * "[aA][bB]", "[a-f]" becomes "[a-fA-F]"), so no engine flag is needed: RE2's
 * (?i) and JavaScript's i fold non-ASCII letters differently. For a pattern
 * checkRegex accepts.
 */
export function ignoreAsciiCase(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      out += pattern.slice(i, i + 2);
      i++;
    } else if (c === '[') {
      let j = i + 1;
      let items = '[';
      if (pattern[j] === '^') items += pattern[j++];
      let extra = '';
      for (; pattern[j] !== ']'; j++) {
        const item = pattern[j] === '\\' ? pattern.slice(j, ++j + 1) : pattern[j]!;
        if (pattern[j + 1] === '-' && pattern[j + 2] !== undefined && pattern[j + 2] !== ']' && item.length === 1) {
          const hi = pattern[j + 2] === '\\' ? pattern[j + 3]! : pattern[j + 2]!;
          items += pattern.slice(j, pattern[j + 2] === '\\' ? j + 4 : j + 3);
          extra += rangeCounterparts(item, hi);
          j += pattern[j + 2] === '\\' ? 3 : 2;
          continue;
        }
        items += item;
        if (item.length === 1) extra += otherCase(item) ?? '';
      }
      out += `${items}${extra}]`;
      i = j;
    } else {
      const other = otherCase(c);
      out += other ? `[${c}${other}]` : c;
    }
  }
  return out;
}
