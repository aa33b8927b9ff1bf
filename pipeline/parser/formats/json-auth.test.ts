// The JSON auth-event parser: which objects it takes, and the ECS fields it gives them.
import { describe, expect, it } from 'vitest';
import type { EventFields, ParseContext } from '../types.js';
import { jsonAuth } from './json-auth.js';

const CTX: ParseContext = { source: 'auth', receivedAt: Date.UTC(2024, 5, 1) };

function parse(value: unknown, ctx: Partial<ParseContext> = {}): EventFields | null {
  return jsonAuth.parse(typeof value === 'string' ? value : JSON.stringify(value), { ...CTX, ...ctx });
}

describe('json-auth', () => {
  it('maps a hand-rolled login record to ECS authentication fields', () => {
    expect(
      parse({ timestamp: '2024-03-01T10:00:00Z', user: 'alice', src_ip: '10.0.0.5', src_port: '5555', result: 'FAILURE', action: 'login', hostname: 'web1', app: 'portal' }),
    ).toEqual({
      '@timestamp': '2024-03-01T10:00:00.000Z',
      'event.kind': 'event',
      'event.category': ['authentication'],
      'event.type': ['info'],
      'event.action': 'login',
      'event.outcome': 'failure',
      'user.name': 'alice',
      'source.ip': '10.0.0.5',
      'source.port': 5555,
      'host.hostname': 'web1',
      app: 'portal',
    });
  });

  it('keeps the fields and categories of an event that already speaks ECS', () => {
    const fields = parse({
      '@timestamp': '2024-03-01T10:00:00.123Z',
      event: { kind: 'event', category: ['authentication', 'session'], type: ['start'], outcome: 'success', action: 'user_login' },
      user: { name: 'bob' },
      source: { ip: '::ffff:10.0.0.7', port: 22 },
      host: { hostname: 'h1' },
    });
    expect(fields).toMatchObject({
      'event.category': ['authentication', 'session'],
      'event.type': ['start'],
      'event.outcome': 'success',
      'event.action': 'user_login',
      'user.name': 'bob',
      'source.ip': '10.0.0.7',
      'source.port': 22,
      'host.hostname': 'h1',
    });
  });

  it.each([
    [{ success: false }, 'failure'],
    [{ success: true }, 'success'],
    [{ status: 'denied' }, 'failure'],
    [{ outcome: 'Succeeded' }, 'success'],
    [{ authenticated: 0 }, 'failure'],
    [{ event: 'login_failed' }, 'failure'],
  ])('reads the outcome of %j', (outcome, expected) => {
    expect(parse({ username: 'carol', ...outcome })?.['event.outcome']).toBe(expected);
  });

  it('reads epoch seconds, epoch milliseconds and zoneless times in ctx.timezone', () => {
    expect(parse({ ts: 1709287200.5, username: 'c', success: true })?.['@timestamp']).toBe('2024-03-01T10:00:00.500Z');
    expect(parse({ time: 1709287200500, username: 'c', success: true })?.['@timestamp']).toBe('2024-03-01T10:00:00.500Z');
    expect(parse({ time: '2024-03-01 10:00:00', login: 'd', event: 'signin' }, { timezone: '+02:00' })?.['@timestamp']).toBe('2024-03-01T08:00:00.000Z');
  });

  it('canonicalizes IPv6 sources and keeps a non-address as source.address', () => {
    expect(parse({ username: 'e', ip: '2001:DB8:0::1', result: 'ok' })?.['source.ip']).toBe('2001:db8::1');
    expect(parse({ username: 'e', client_ip: 'gw.example.org', result: 'ok' })).toMatchObject({ 'source.address': 'gw.example.org' });
  });

  it('takes an auth action without a user, such as a failed sign-in of an unknown account', () => {
    expect(parse({ event: 'sign-in', src_ip: '192.0.2.1', status: 'failed' })).toMatchObject({ 'event.action': 'sign-in', 'event.outcome': 'failure', 'source.ip': '192.0.2.1' });
  });

  it('returns null for JSON that is not an auth event, so the generic reader takes it', () => {
    expect(parse({ query: 'example.com', answers: ['192.0.2.1'] })).toBeNull();
    expect(parse({ user: 'eve', msg: 'opened the settings page' })).toBeNull();
    expect(parse({ event_type: 'flow', src_ip: '192.0.2.1', action: 'allowed' })).toBeNull();
    expect(parse([{ user: 'a', success: true }])).toBeNull();
    expect(parse('Jun  1 10:00:00 h sshd[1]: Failed password for root from 192.0.2.1 port 1 ssh2')).toBeNull();
  });

  it('throws on an auth event that is not valid JSON or has no readable time', () => {
    expect(() => parse('{"user":"eve","result":"fail"')).toThrow(/not valid JSON/);
    expect(() => parse({ user: 'eve', result: 'ok', time: 'yesterday' })).toThrow(/"yesterday" is not a date/);
  });

  it('detects JSON objects with an auth-ish key only', () => {
    expect(jsonAuth.detect('{"username":"a","success":true}')).toBe(true);
    expect(jsonAuth.detect(' {"event.outcome": "failure"}')).toBe(true);
    expect(jsonAuth.detect('{"query":"example.com"}')).toBe(false);
    expect(jsonAuth.detect('user=alice result=ok')).toBe(false);
  });
});
