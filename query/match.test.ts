import { describe, expect, it } from 'vitest';
import { compileMatcher, PreparedTarget, SharedParts, type MatchTarget } from './match.js';
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

describe('what the matcher does to be fast means the same', () => {
  const web: MatchTarget = {
    id: '01930000-0000-7000-8000-000000000002',
    source: 'web',
    raw: 'GET /wp-login.php',
    fields: { 'url.original': '/WP-Login.php?x=1', 'user_agent.original': 'Mozilla/5.0 Nikto/2.5', 'source.ip': ['10.1.2.3', '2001:db8::7'], 'destination.port': 8443, 'event.category': ['web', 'network'] },
  };

  it('an OR of globs on one field is any of them, anchored where the glob has no star', () => {
    expect(matches('url.original:(*login.php* OR nothing*)', web)).toBe(true);
    expect(matches('url.original:(/wp-login* OR *never*)', web)).toBe(true);
    expect(matches('url.original:(*x=1 OR *x=2)', web)).toBe(true);
    expect(matches('url.original:(wp-login* OR *login.php)', web)).toBe(false); // neither the start nor the end
    expect(matches('url.original:(/wp*php?x=1 OR a*b)', web)).toBe(true);
    expect(matches('user_agent.original:(*sqlmap* OR *nikto*)', web)).toBe(true);
    expect(matches('user_agent.original:(*sqlmap* OR *wpscan*)', web)).toBe(false);
  });

  it('an OR of values or networks on one field is any of them, for any value of the field', () => {
    expect(matches('destination.port:(22 OR 8443)', web)).toBe(true);
    expect(matches('destination.port:(22 OR 443)', web)).toBe(false);
    expect(matches('event.category:(NETWORK OR iam)', web)).toBe(true);
    expect(matches('source.ip:(192.168.0.0/16 OR 10.0.0.0/8)', web)).toBe(true);
    expect(matches('source.ip:(192.168.0.0/16 OR 2001:db8::/32)', web)).toBe(true);
    expect(matches('source.ip:(192.168.0.0/16 OR fc00::/7)', web)).toBe(false);
    expect(matches('source.ip:(192.168.0.0/16 OR ::ffff:10.0.0.0/104)', web)).toBe(true); // an IPv4 value in its mapped IPv6 network
  });

  it('parts shared between queries give each query its own answer', () => {
    const queries = ['event.category:web AND NOT user_agent.original:*curl*', 'event.category:web AND NOT user_agent.original:*curl* AND destination.port:22', 'NOT user_agent.original:*curl*'];
    const shared = new SharedParts(queries.map((q) => parseQuery(q)));
    const alone = queries.map((q) => compileMatcher(parseQuery(q)));
    const together = queries.map((q) => compileMatcher(parseQuery(q), shared));
    for (const target of [web, line]) {
      const prepared = new PreparedTarget(target);
      expect(together.map((m) => m(prepared))).toEqual(alone.map((m) => m(new PreparedTarget(target))));
    }
    expect(alone.map((m) => m(new PreparedTarget(web)))).toEqual([true, false, true]);
  });
});
