import { describe, expect, it } from 'vitest';
import { SqlParams } from '../clickhouse/sql.js';
import type { QueryNode } from './ast.js';
import { parseQuery, QuerySyntaxError, tokenize } from './parse.js';
import { textCondition } from './to-sql.js';

const text = (value: string, phrase = false): QueryNode => ({ kind: 'text', value, phrase });
const eq = (field: string, value: string): QueryNode => ({ kind: 'eq', field, value });

describe('query parser', () => {
  it('reads words, phrases, fields, AND and NOT as before (a flat AND)', () => {
    expect(parseQuery('Failed password AND "for root" source.ip:10.0.0.1 NOT user.name:"svc backup" -sshd')).toEqual({
      kind: 'and',
      children: [text('Failed'), text('password'), text('for root', true), eq('source.ip', '10.0.0.1'), { kind: 'not', child: eq('user.name', 'svc backup') }, { kind: 'not', child: text('sshd') }],
    });
  });

  it('keeps times, IPv6 addresses and URLs as text', () => {
    expect(parseQuery('06:01:02 fe80::1 http://example.com/a')).toEqual({ kind: 'and', children: [text('06:01:02'), text('fe80::1'), text('http://example.com/a')] });
  });

  it('binds NOT tighter than AND, and AND tighter than OR', () => {
    expect(parseQuery('a OR NOT b c')).toEqual({ kind: 'or', children: [text('a'), { kind: 'and', children: [{ kind: 'not', child: text('b') }, text('c')] }] });
    expect(parseQuery('a b OR c AND d')).toEqual({ kind: 'or', children: [{ kind: 'and', children: [text('a'), text('b')] }, { kind: 'and', children: [text('c'), text('d')] }] });
    expect(parseQuery('(a OR b) c')).toEqual({ kind: 'and', children: [{ kind: 'or', children: [text('a'), text('b')] }, text('c')] });
    expect(parseQuery('NOT (a OR b)')).toEqual({ kind: 'not', child: { kind: 'or', children: [text('a'), text('b')] } });
    expect(parseQuery('-(-a)')).toEqual({ kind: 'not', child: { kind: 'not', child: text('a') } });
  });

  it('applies a field to a group of values: field:(a OR b), field:(a b) meaning both', () => {
    expect(parseQuery('source.ip:(1.2.3.4 OR 5.6.7.8)')).toEqual({ kind: 'or', children: [eq('source.ip', '1.2.3.4'), eq('source.ip', '5.6.7.8')] });
    expect(parseQuery('tags:(a -"b c")')).toEqual({ kind: 'and', children: [eq('tags', 'a'), { kind: 'not', child: eq('tags', 'b c') }] });
  });

  it('reads wildcards in values and text, exists, CIDR, comparisons, ranges and regular expressions', () => {
    expect(parseQuery('user.name:adm*')).toEqual({ kind: 'glob', field: 'user.name', pattern: 'adm*' });
    expect(parseQuery('user.name:a?m\\*')).toEqual({ kind: 'glob', field: 'user.name', pattern: 'a?m\\*' });
    expect(parseQuery('user.name:a\\*b')).toEqual(eq('user.name', 'a*b'));
    expect(parseQuery('*.php')).toEqual({ kind: 'text_glob', pattern: '*.php' });
    expect(parseQuery('user.name:*')).toEqual({ kind: 'exists', field: 'user.name' });
    expect(parseQuery('source.ip:10.0.0.0/8')).toEqual({ kind: 'cidr', field: 'source.ip', cidr: '10.0.0.0/8' });
    expect(parseQuery('source.ip:2001:db8::/32')).toEqual({ kind: 'cidr', field: 'source.ip', cidr: '2001:db8::/32' });
    expect(parseQuery('http.response.status_code>=500')).toEqual({ kind: 'range', field: 'http.response.status_code', type: 'number', lower: { value: '500', inclusive: true }, upper: undefined });
    expect(parseQuery('bytes<10')).toEqual({ kind: 'range', field: 'bytes', type: 'number', lower: undefined, upper: { value: '10', inclusive: false } });
    expect(parseQuery('port:[1 TO 1024}')).toEqual({ kind: 'range', field: 'port', type: 'number', lower: { value: '1', inclusive: true }, upper: { value: '1024', inclusive: false } });
    expect(parseQuery('@timestamp:[2026-01-01T00:00:00Z TO *]')).toEqual({ kind: 'range', field: '@timestamp', type: 'time', lower: { value: '2026-01-01T00:00:00Z', inclusive: true }, upper: undefined });
    expect(parseQuery('url.path:/\\/admin\\/.*\\.php/')).toEqual({ kind: 'regex', field: 'url.path', pattern: '/admin/.*\\.php' });
  });

  it('unescapes quotes inside phrases and keeps wildcards in quotes literal', () => {
    expect(parseQuery('"say \\"hi\\""')).toEqual(text('say "hi"', true));
    expect(parseQuery('user.name:"a*b"')).toEqual(eq('user.name', 'a*b'));
  });

  it('reads the empty query as everything', () => {
    expect(parseQuery('   ')).toEqual({ kind: 'all' });
  });

  it.each([
    ['"open', 'unterminated quote at character 1'],
    ['a OR', 'OR needs a term on both sides at character 3'],
    ['OR a', 'OR needs a term before it at character 1'],
    ['a AND OR b', 'AND needs a term on both sides at character 3'],
    ['NOT', 'NOT must be followed by a term at character 1'],
    ['(a OR b', 'expected ) to close the ( at character 1 at character 8'],
    ['a)', 'unexpected ) at character 2'],
    ['()', 'empty parentheses at character 1'],
    ['field:', 'field field needs a value, e.g. field:value at character 1'],
    ['x"y"', 'unexpected quote; put a space before it at character 2'],
    ['"a"b', 'expected a space after the quote at character 4'],
    ['port:[1 2]', 'expected TO between the bounds of a range at character 9'],
    ['port:[1 TO 2', 'expected ] or } to close the range at character 6 at character 13'],
    ['port>abc', 'the bounds of port must be numbers (500, -1.5) or ISO 8601 times (2026-01-02T03:04:05Z) at character 1'],
    ['port:[1 TO 2026-01-01T00:00:00Z]', 'the bounds of port must be numbers'],
    ['source:10.0.0.0/8', 'source is not an address field at character 8'],
    ['f:/a(?=b)/', 'only (...) and (?:...) groups are allowed: no lookaround, named groups or flags at character 5'],
    ['f:/(a)\\1/', '\\1 is not allowed in a regular expression'],
    ['f:/a{2000}/', 'repetition counts must be at most 1000'],
    ['a'.repeat(16_001), 'longer than 16000'],
    [Array.from({ length: 513 }, (_, i) => `t${i}`).join(' '), 'more than 512 terms at character'],
    [`${'('.repeat(17)}a${')'.repeat(17)}`, 'nests deeper than 16 levels'],
  ])('refuses %s, saying what and where', (input, message) => {
    expect(() => parseQuery(input)).toThrow(QuerySyntaxError);
    expect(() => parseQuery(input)).toThrow(message);
  });

  it('reports the position as a number too', () => {
    try {
      parseQuery('a AND (b OR c');
      expect.unreachable();
    } catch (err) {
      expect(err).toMatchObject({ position: 14, reason: 'expected ) to close the ( at character 7' });
    }
  });

  it('tokenizes like the store: ASCII letters and digits, non-ASCII kept in words', () => {
    expect(tokenize('sshd[4242]: user_name héllo 10.0.0.1')).toEqual(['sshd', '4242', 'user', 'name', 'héllo', '10', '0', '0', '1']);
  });

  it('uses the index for words and adds an exact check for phrases and separators', () => {
    const params = new SqlParams();
    expect(textCondition('raw', 'Password', false, params)).toBe('hasAllTokens(lower(raw), {p0:Array(String)})');
    expect(params.values.p0).toEqual(['password']);
    expect(textCondition('raw', '10.0.0.1', false, params)).toBe('hasAllTokens(lower(raw), {p1:Array(String)}) AND positionCaseInsensitive(raw, {p2:String}) > 0');
    expect(textCondition('raw', '!!', false, params)).toBe('positionCaseInsensitive(raw, {p3:String}) > 0');
  });
});
