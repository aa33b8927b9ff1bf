import { describe, expect, it } from 'vitest';
import { compileMatcher, PreparedTarget, type MatchTarget } from './match.js';
import { parseQuery } from './parse.js';

const line: MatchTarget = {
  id: '01930000-0000-7000-8000-000000000001',
  source: 'auth',
  raw: 'Nov 22 06:01:02 web sshd[4242]: Failed password for invalid user admin from 203.0.113.9 port 50022 ssh2',
  fields: { 'source.ip': '203.0.113.9', 'user.name': 'Admin', 'event.outcome': 'failure', 'dns.resolved_ip': ['192.0.2.1', '192.0.2.2'], 'source.port': 50022 },
};

function matches(query: string, target: MatchTarget = line): boolean {
  return compileMatcher(parseQuery(query))(new PreparedTarget(target));
}

describe('matching a query against an event', () => {
  it('matches words ignoring case, all of them', () => {
    expect(matches('failed PASSWORD')).toBe(true);
    expect(matches('failed accepted')).toBe(false);
    expect(matches('fail')).toBe(false); // words, not prefixes, as the full-text index
  });

  it('matches phrases as adjacent words and words with separators as written', () => {
    expect(matches('"invalid user admin"')).toBe(true);
    expect(matches('"user invalid"')).toBe(false);
    expect(matches('sshd[4242]')).toBe(true);
    expect(matches('203.0.113')).toBe(true);
    expect(matches('203.0.113.99')).toBe(false);
  });

  it('matches fields by value, ignoring ASCII case, any value of an array, numbers as text', () => {
    expect(matches('source.ip:203.0.113.9 AND event.outcome:failure')).toBe(true);
    expect(matches('user.name:admin')).toBe(true);
    expect(matches('dns.resolved_ip:192.0.2.2')).toBe(true);
    expect(matches('source.port:50022')).toBe(true);
    expect(matches('host.name:web')).toBe(false);
    expect(matches('source:auth')).toBe(true);
    expect(matches('source:AUTH')).toBe(false);
  });

  it('excludes with NOT and matches everything with an empty query', () => {
    expect(matches('failed NOT accepted')).toBe(true);
    expect(matches('-event.outcome:failure')).toBe(false);
    expect(matches('')).toBe(true);
  });
});
