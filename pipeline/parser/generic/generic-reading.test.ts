// The generic reading, alone and through parseRaw: where it finds the peer,
// what its verbs and vocabulary say, and the text it must never take an
// address from (hostile lines, several per rule).
import { describe, expect, it } from 'vitest';
import { ParseFailure } from '../failure.js';
import { parseRaw } from '../registry.js';
import type { EventFields } from '../types.js';
import { readGeneric } from './generic-reading.js';

const RECEIVED = Date.UTC(2026, 10, 23, 12);

function read(message: string): EventFields {
  const fields: EventFields = {};
  readGeneric(message, fields);
  return fields;
}

function parse(line: string, source = 'syslog'): EventFields {
  return parseRaw(line, { source, receivedAt: RECEIVED }).fields;
}

describe('generic reading: the peer', () => {
  it.each([
    ['login failed for bob from 198.51.100.1', '198.51.100.1'],
    ['authentication failure; logname= uid=0 rhost=198.51.100.2 user=x', '198.51.100.2'],
    ['auth failed, user=<x>, method=PLAIN, rip=198.51.100.3, lip=192.0.2.1', '198.51.100.3'],
    ['denied src=198.51.100.4 dst=192.0.2.1 proto=tcp', '198.51.100.4'],
    ['connection refused: client 198.51.100.5 not in allow list', '198.51.100.5'],
    ['connect from 198.51.100.6 refused', '198.51.100.6'],
    ['session rejected for remote host 198.51.100.7', '198.51.100.7'],
    ['Connection closed by 198.51.100.8', '198.51.100.8'],
    ['rejected H=(helo) [198.51.100.9]:4242 I=[192.0.2.1]:25', '198.51.100.9'],
    ['query refused for 198.51.100.10#53000', '198.51.100.10'],
    ['auth failure, closing 198.51.100.11 port 50022', '198.51.100.11'],
    ['warning: mail.example.net[198.51.100.12]: login failed', '198.51.100.12'],
    ['login failed from host.example.net (198.51.100.13)', '198.51.100.13'],
    ['bad password from ::ffff:198.51.100.14', '198.51.100.14'],
    ['login failed from 2001:db8::15', '2001:db8::15'],
  ])('%s', (message, ip) => {
    expect(read(message)['source.ip']).toBe(ip);
  });

  it('takes a host name in the peer position as source.domain, only a name with a dot', () => {
    expect(read('login failed from client.example.net')).toMatchObject({ 'source.domain': 'client.example.net' });
    expect(read('login failed from localhost')['source.domain']).toBeUndefined();
    expect(read('started by systemd-tmpfiles-clean.service')['source.domain']).toBeUndefined();
  });

  it('takes the last peer where logs append it after the client text', () => {
    expect(read('login failed from 203.0.113.1 relayed from 198.51.100.20')['source.ip']).toBe('198.51.100.20');
  });

  it('takes no local address: listening on, bound to', () => {
    expect(read('listening on 192.0.2.1 port 22')['source.ip']).toBeUndefined();
    expect(read('bind to 192.0.2.1 port 8080 failed')['source.ip']).toBeUndefined();
  });
});

/** Lines whose only address a client wrote (a user name, a path, a query string, a quoted value, an e-mail address), or wrote beside the real peer. */
const HOSTILE: [string, string | undefined][] = [
    // user names
    ['Invalid user 1.2.3.4 from 198.51.100.30', '198.51.100.30'],
    ['login failed for user 1.2.3.4', undefined],
    ['authentication failure; user=1.2.3.4', undefined],
    ['login failed; username: 10.0.0.9 from 198.51.100.31', '198.51.100.31'],
    ['authenticate as 10.0.0.8 failed', undefined],
    ['Failed password for 10.0.0.7 from 198.51.100.32 port 4000', '198.51.100.32'],
    ['auth failed, user=<from 10.0.0.6>, rip=198.51.100.33', '198.51.100.33'],
    // paths and URLs
    ['GET /from/1.2.3.4 denied', undefined],
    ['denied GET /client/1.2.3.4/x HTTP/1.1', undefined],
    ['request https://example.com/from/1.2.3.4 rejected', undefined],
    ['blocked http://1.2.3.4/login from 198.51.100.34', '198.51.100.34'],
    // query strings
    ['denied request index.php?from=1.2.3.4', undefined],
    ['rejected /login?src=1.2.3.4&x=1 from 198.51.100.35', '198.51.100.35'],
    ['blocked q?client=1.2.3.4', undefined],
    // quoted values
    ['login failed for "x from 1.2.3.4"', undefined],
    ["login failed, reason 'from 1.2.3.4' from 198.51.100.36", '198.51.100.36'],
    ['rejected helo "1.2.3.4" client 198.51.100.37', '198.51.100.37'],
    // e-mail addresses
    ['rejected sender 1.2.3.4@example.com', undefined],
    ['denied mail from 1.2.3.4@example.com', undefined],
    ['reject: from=<x@[1.2.3.4]> client 198.51.100.38', '198.51.100.38'],
];

describe('generic reading: text a client controls is never the peer', () => {
  it.each(HOSTILE)('%s', (message, ip) => {
    expect(read(message)['source.ip']).toBe(ip);
  });

  it.each(HOSTILE)('through parseRaw, behind a program no decoder knows: %s', (message, ip) => {
    let fields: EventFields = {};
    try {
      fields = parse(`Jan 15 10:20:30 host myapp[12]: ${message}`);
    } catch (err) {
      if (!(err instanceof ParseFailure)) throw err;
    }
    expect(fields['source.ip']).toBe(ip);
  });

  it('stays bounded on a 100 KB hostile line', () => {
    const hostile = `login failed from ${'1.2.3.'.repeat(20_000)}x "${'from '.repeat(5000)}`;
    const start = performance.now();
    read(hostile);
    parse(`Jan  1 00:00:00 h app[1]: ${hostile}`);
    expect(performance.now() - start).toBeLessThan(1000);
  });
});

describe('generic reading: verdict and category', () => {
  it.each([
    ['login failed for bob from 198.51.100.40', ['authentication'], ['info'], 'failure'],
    ['access denied for 198.51.100.41', undefined, ['denied'], 'failure'],
    ['connection refused from 198.51.100.42', ['network'], ['denied'], 'failure'],
    ['packet dropped from 198.51.100.43', ['network'], ['denied'], 'failure'],
    ['password accepted for alice from 198.51.100.44', ['authentication'], ['allowed'], 'success'],
    ['new connection from 198.51.100.45', ['network'], ['start'], 'success'],
    ['connection closed by 198.51.100.46', ['network'], ['end'], undefined],
    ['session opened for alice', ['session'], ['start'], 'success'],
    ['session closed for alice', ['session'], ['end'], undefined],
    ['new user added: name=carol, UID=1001', ['iam'], ['user', 'creation'], undefined],
    ['group deleted: staff', ['iam'], ['group', 'deletion'], undefined],
    ['configuration reloaded', ['configuration'], ['change'], undefined],
    ['service stopped', ['process'], ['end'], undefined],
    ['system reboot requested', ['host'], ['info'], undefined],
    ['virus found in attachment: Eicar-Test', ['malware'], ['info'], undefined],
    ['port scan detected from 198.51.100.47', ['intrusion_detection'], ['info'], undefined],
    ['file report.pdf uploaded', ['file'], ['info'], undefined],
    ['dns query for example.com', ['network'], ['info'], undefined],
  ])('%s', (message, category, type, outcome) => {
    const fields = read(message);
    expect(fields['event.category']).toEqual(category);
    expect(fields['event.type']).toEqual(type);
    expect(fields['event.outcome']).toBe(outcome);
    expect(fields['cairn.decoder']).toBe('generic');
  });

  it('invents nothing for a line that says nothing', () => {
    const fields: EventFields = {};
    expect(readGeneric('the quick brown fox', fields)).toBe(false);
    expect(fields).toEqual({});
  });

  it('reads a verb in a user name or a URL as no verdict', () => {
    expect(read('user=failed logged out')['event.outcome']).toBeUndefined();
    expect(read('GET /login-denied 200')['event.outcome']).toBeUndefined();
  });
});

describe('generic reading through parseRaw', () => {
  it('reads a syslog line of an unknown program', () => {
    expect(parse('Jun 21 16:47:46 box demo-app[1370]: firewall rule 12 matched, packet dropped, src=203.0.113.50')).toMatchObject({
      'source.ip': '203.0.113.50',
      'event.category': ['network'],
      'event.type': ['denied'],
      'event.outcome': 'failure',
      'cairn.decoder': 'generic',
      'process.name': 'demo-app',
    });
  });

  it('gives a known program the peer and category but not a verdict its own readers passed on', () => {
    const fields = parse('Jun 21 16:47:46 box sshd[1370]: Bogus password check from 203.0.113.51 failed');
    expect(fields).toMatchObject({ 'source.ip': '203.0.113.51', 'event.category': ['authentication'], 'cairn.decoder': 'generic' });
    expect(fields['event.outcome']).toBeUndefined();
  });

  it('keeps a syslog line that says nothing without a category', () => {
    const fields = parse('Jun 21 16:47:46 box demo-app[1370]: the quick brown fox');
    expect(fields['event.category']).toBeUndefined();
    expect(fields['cairn.decoder']).toBeUndefined();
  });

  it('reads a header-less line as the last resort, with its own time stamp', () => {
    const line = '[2026-03-02 10:11:12] appd[42]: session opened for remote host 203.0.113.52';
    expect(parseRaw(line, { source: 'myapp', receivedAt: RECEIVED }).parser).toBe('generic');
    expect(parse(line, 'myapp')).toMatchObject({
      '@timestamp': '2026-03-02T10:11:12.000Z',
      'process.name': 'appd',
      'process.pid': 42,
      'source.ip': '203.0.113.52',
      'event.category': ['session'],
      'event.outcome': 'success',
      'cairn.decoder': 'generic',
    });
  });

  it('still refuses a header-less line nothing recognises', () => {
    expect(() => parse('the quick brown fox', 'myapp')).toThrow(ParseFailure);
  });

  it('reads a key=value line no vendor claims: both ends and the action', () => {
    expect(parse('ts=2026-03-02T10:11:12Z SRC=203.0.113.53 DST=192.0.2.10 SPT=40000 DPT=22 PROTO=TCP action=drop', 'appliance')).toMatchObject({
      'source.ip': '203.0.113.53',
      'destination.ip': '192.0.2.10',
      'source.port': 40000,
      'destination.port': 22,
      'network.transport': 'tcp',
      'event.category': ['network'],
      'event.type': ['denied'],
      'event.outcome': 'failure',
      'cairn.decoder': 'generic',
    });
    expect(parse('src=203.0.113.54 dst=192.0.2.11 dport=443 action=allow', 'appliance')).toMatchObject({ 'event.type': ['allowed'], 'event.outcome': 'success', 'destination.port': 443 });
  });

  it('maps an address key only when its value is an address', () => {
    const fields = parse('source=apache client=web-1 msg=hello', 'appliance');
    expect(fields['source.ip']).toBeUndefined();
    expect(fields.source).toBe('apache');
  });

  it('reads key=value pairs of a syslog message', () => {
    expect(parse('Jun 21 16:47:46 fw1 filterd[9]: action=deny src=203.0.113.55 dst=192.0.2.12 dpt=3389 proto=tcp')).toMatchObject({
      'source.ip': '203.0.113.55',
      'destination.ip': '192.0.2.12',
      'destination.port': 3389,
      'event.type': ['denied'],
      'event.outcome': 'failure',
    });
  });
});
