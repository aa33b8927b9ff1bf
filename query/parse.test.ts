import { describe, expect, it } from 'vitest';
import { SqlParams } from '../clickhouse/sql.js';
import { parseQuery, QuerySyntaxError, tokenize } from './parse.js';
import { textCondition } from './to-sql.js';

describe('query parser', () => {
  it('reads words, phrases, fields, AND and NOT', () => {
    expect(parseQuery('Failed password AND "for root" source.ip:10.0.0.1 NOT user.name:"svc backup" -sshd').clauses).toEqual([
      { kind: 'text', value: 'Failed', phrase: false, negated: false },
      { kind: 'text', value: 'password', phrase: false, negated: false },
      { kind: 'text', value: 'for root', phrase: true, negated: false },
      { kind: 'field', field: 'source.ip', value: '10.0.0.1', negated: false },
      { kind: 'field', field: 'user.name', value: 'svc backup', negated: true },
      { kind: 'text', value: 'sshd', phrase: false, negated: true },
    ]);
  });

  it('keeps times, IPv6 addresses and URLs as text', () => {
    expect(parseQuery('06:01:02 fe80::1 http://example.com/a').clauses.map((c) => c.kind)).toEqual(['text', 'text', 'text']);
  });

  it('unescapes quotes inside phrases', () => {
    expect(parseQuery('"say \\"hi\\""').clauses[0]).toMatchObject({ value: 'say "hi"', phrase: true });
  });

  it.each([
    ['"open', /unterminated quote/],
    ['a OR b', /OR is not supported/],
    ['NOT', /NOT must be followed/],
    ['field:', /needs a value/],
    ['x"y"', /unexpected quote/],
    ['a'.repeat(2001), /longer than 2000/],
    [Array.from({ length: 33 }, (_, i) => `t${i}`).join(' '), /more than 32 terms/],
  ])('refuses %s', (input, message) => {
    expect(() => parseQuery(input)).toThrow(QuerySyntaxError);
    expect(() => parseQuery(input)).toThrow(message);
  });

  it('tokenizes like the store: ASCII letters and digits, non-ASCII kept in words', () => {
    expect(tokenize('sshd[4242]: user_name héllo 10.0.0.1')).toEqual(['sshd', '4242', 'user', 'name', 'héllo', '10', '0', '0', '1']);
  });

  it('uses the index for words and adds an exact check for phrases and separators', () => {
    const params = new SqlParams();
    expect(textCondition('raw', 'Password', false, params)).toBe('hasAllTokens(raw, {p0:Array(String)})');
    expect(params.values.p0).toEqual(['password']);
    expect(textCondition('raw', '10.0.0.1', false, params)).toBe('hasAllTokens(raw, {p1:Array(String)}) AND positionCaseInsensitiveUTF8(raw, {p2:String}) > 0');
    expect(textCondition('raw', '!!', false, params)).toBe('positionCaseInsensitiveUTF8(raw, {p3:String}) > 0');
  });
});
