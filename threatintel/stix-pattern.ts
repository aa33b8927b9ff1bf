// STIX 2.1 patterns cairn matches at ingest: equality comparisons of one
// observable value, alone or joined by OR (inside one observation
// expression or between several), e.g.
//   [ipv4-addr:value = '203.0.113.9']
//   [file:hashes.'SHA-256' = 'ab...' OR file:hashes.MD5 = 'cd...']
//   [domain-name:value = 'evil.example'] OR [url:value = 'http://evil.example/x']
// Anything else (AND, other operators, FOLLOWEDBY, qualifiers, other object
// paths) is kept in the library as a pattern that is not matched at ingest,
// with the reason, never silently dropped.
import { canonicalValue, type IndicatorValue, type ValueType } from './indicator.js';
import { lookupTable } from '../lib/lookup-table.js';

/** Object paths cairn reads, to the indicator type of their value. */
const PATHS = lookupTable<ValueType>({
  'ipv4-addr:value': 'ipv4-addr',
  'ipv6-addr:value': 'ipv6-addr',
  'domain-name:value': 'domain',
  'url:value': 'url',
  'email-addr:value': 'email',
  "file:hashes.'md5'": 'md5',
  'file:hashes.md5': 'md5',
  "file:hashes.'sha-1'": 'sha1',
  'file:hashes.sha1': 'sha1',
  "file:hashes.'sha1'": 'sha1',
  "file:hashes.'sha-256'": 'sha256',
  'file:hashes.sha256': 'sha256',
  "file:hashes.'sha256'": 'sha256',
});

export type PatternReading = { matchable: true; values: IndicatorValue[] } | { matchable: false; reason: string };

type Token = { kind: 'open' | 'close' | 'or' | 'eq' } | { kind: 'path'; text: string } | { kind: 'string'; text: string } | { kind: 'other'; text: string };

/** Splits a pattern into the few tokens the simple form uses; anything else becomes an `other` token. */
function tokenize(pattern: string): Token[] | string {
  const tokens: Token[] = [];
  let i = 0;
  while (i < pattern.length) {
    const c = pattern[i]!;
    if (/\s/.test(c)) {
      i++;
    } else if (c === '[' || c === ']') {
      tokens.push({ kind: c === '[' ? 'open' : 'close' });
      i++;
    } else if (c === '=') {
      tokens.push({ kind: 'eq' });
      i++;
    } else if (c === "'") {
      let text = '';
      i++;
      for (;;) {
        if (i >= pattern.length) return 'a string is not closed';
        const d = pattern[i]!;
        if (d === '\\') {
          text += pattern[i + 1] ?? '';
          i += 2;
        } else if (d === "'") {
          i++;
          break;
        } else {
          text += d;
          i++;
        }
      }
      tokens.push({ kind: 'string', text });
    } else {
      // A word: an object path (with quoted hash names inside), a keyword or an operator.
      const match = /^(?:[A-Za-z0-9_.:-]|'[^']*')+|^\S/.exec(pattern.slice(i))!;
      const word = match[0];
      i += word.length;
      if (word === 'OR') tokens.push({ kind: 'or' });
      else if (word.includes(':')) tokens.push({ kind: 'path', text: word });
      else tokens.push({ kind: 'other', text: word });
    }
  }
  return tokens;
}

/** Reads a STIX pattern: the values it names when it is an OR of simple equality comparisons, or why it is not. */
export function readStixPattern(pattern: string): PatternReading {
  const tokens = tokenize(pattern);
  if (typeof tokens === 'string') return { matchable: false, reason: `not matched at ingest: ${tokens}` };
  const values: IndicatorValue[] = [];
  let depth = 0;
  let expectComparison = true;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.kind === 'open') {
      if (depth !== 0 || !expectComparison) return { matchable: false, reason: 'not matched at ingest: nested or unjoined observation expressions' };
      depth = 1;
    } else if (token.kind === 'close') {
      if (depth !== 1 || expectComparison) return { matchable: false, reason: 'not matched at ingest: an observation expression is incomplete' };
      depth = 0;
    } else if (token.kind === 'or') {
      if (expectComparison) return { matchable: false, reason: 'not matched at ingest: OR without a comparison before it' };
      expectComparison = true;
    } else if (token.kind === 'path' && depth === 1 && expectComparison) {
      const [eq, value] = [tokens[i + 1], tokens[i + 2]];
      if (eq?.kind !== 'eq' || value?.kind !== 'string') return { matchable: false, reason: `not matched at ingest: only = comparisons with a string are matched (${token.text})` };
      const type = PATHS[token.text.toLowerCase()];
      if (!type) return { matchable: false, reason: `not matched at ingest: the object path ${token.text} is not one cairn reads` };
      const read = canonicalValue(type, value.text);
      if (!read) return { matchable: false, reason: `not matched at ingest: '${value.text.slice(0, 100)}' is not a valid ${type}` };
      values.push(read);
      expectComparison = false;
      i += 2;
    } else {
      const what = token.kind === 'other' || token.kind === 'path' ? token.text : token.kind;
      return { matchable: false, reason: `not matched at ingest: only OR-joined equality comparisons are matched, not "${what}"` };
    }
  }
  if (depth !== 0 || expectComparison || values.length === 0) return { matchable: false, reason: 'not matched at ingest: the pattern is incomplete' };
  return { matchable: true, values };
}
