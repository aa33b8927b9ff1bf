// Web access and error logs on lines written in each server's format.
import { describe, expect, it } from 'vitest';
import { parseRaw } from '../registry.js';
import type { ParseContext } from '../types.js';
import { webAccess } from './web-access.js';
import { webError } from './web-error.js';

const ctx: ParseContext = { source: 'web', receivedAt: Date.UTC(2026, 10, 23) };

describe('access logs', () => {
  it('reads the combined format into ECS http, url and user agent fields', () => {
    expect(webAccess.parse('203.0.113.20 - alice [10/Oct/2026:13:55:36 -0700] "GET /admin/index.php?x=1&y=2 HTTP/1.1" 401 512 "https://example.org/" "Mozilla/5.0 (X11) \\"quoted\\""', ctx)).toEqual({
      'source.ip': '203.0.113.20',
      'user.name': 'alice',
      '@timestamp': '2026-10-10T20:55:36.000Z',
      'http.request.method': 'GET',
      'url.original': '/admin/index.php?x=1&y=2',
      'url.path': '/admin/index.php',
      'url.query': 'x=1&y=2',
      'http.version': '1.1',
      'http.response.status_code': 401,
      'http.response.body.bytes': 512,
      'http.request.referrer': 'https://example.org/',
      'user_agent.original': 'Mozilla/5.0 (X11) "quoted"',
      'event.kind': 'event',
      'event.category': ['web'],
      'event.type': ['access', 'error'],
      'event.action': 'http-request',
      'event.outcome': 'failure',
      message: '203.0.113.20 - alice [10/Oct/2026:13:55:36 -0700] "GET /admin/index.php?x=1&y=2 HTTP/1.1" 401 512 "https://example.org/" "Mozilla/5.0 (X11) \\"quoted\\""',
    });
  });

  it('reads the common format, IPv6 clients, a virtual host first, dashes and an X-Forwarded-For list', () => {
    expect(webAccess.parse('2001:db8::7 - - [10/Oct/2026:13:55:36 +0000] "HEAD / HTTP/1.0" 200 -', ctx)).toMatchObject({ 'source.ip': '2001:db8::7', 'event.outcome': 'success' });
    expect(webAccess.parse('www.example.org:443 203.0.113.21 - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/2.0" 304 0 "-" "curl/8"', ctx)).toMatchObject({ 'source.ip': '203.0.113.21', 'url.domain': 'www.example.org' });
    expect(webAccess.parse('10.0.0.2 - - [10/Oct/2026:13:55:36 +0000] "GET /x HTTP/1.1" 404 10 "-" "bot" "203.0.113.22, 10.0.0.1"', ctx)).toMatchObject({ 'source.ip': '10.0.0.2', 'network.forwarded_ip': '203.0.113.22', 'event.outcome': 'failure' });
  });

  it('reads the server before the client (address or virtual host, with ports) and a client list, the original client first', () => {
    expect(webAccess.parse('198.51.100.80:8443 203.0.113.25:50122 - - [10/Oct/2026:13:55:36 +0000] "GET /a?b=1 HTTP/1.1" 200 5 "-" "curl/8"', ctx)).toMatchObject({
      'destination.ip': '198.51.100.80',
      'destination.port': 8443,
      'source.ip': '203.0.113.25',
      'source.port': 50122,
      'url.path': '/a',
      'url.query': 'b=1',
    });
    expect(webAccess.parse('shop.example.org 203.0.113.26, 10.1.0.4, 127.0.0.1 - carol [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 5', ctx)).toMatchObject({
      'destination.domain': 'shop.example.org',
      'url.domain': 'shop.example.org',
      'source.ip': '203.0.113.26',
      'user.name': 'carol',
    });
    expect(webAccess.parse('shop.example.org:80 "2001:db8::26, 10.1.0.4" 10.1.0.9 - - [10/Oct/2026:13:55:36 +0000] "GET / HTTP/1.1" 200 5', ctx)).toMatchObject({ 'source.ip': '2001:db8::26', 'destination.port': 80 });
    // A client that is no address (a Unix socket, "localhost") leaves the source out, the request is still read.
    const unix = webAccess.parse('shop.example.org:80 unix: - - [10/Oct/2026:13:55:36 +0000] "GET /health HTTP/1.1" 200 2', ctx)!;
    expect(unix).toMatchObject({ 'url.original': '/health', 'http.response.status_code': 200 });
    expect(unix['source.ip']).toBeUndefined();
  });

  it('reads the first line of an input a shipper glued lines onto', () => {
    expect(webAccess.parse('203.0.113.27 - - [10/Oct/2026:13:55:36 +0000] "GET /one HTTP/1.1" 200 5\n203.0.113.28 - - [10/Oct/2026:13:55:37 +0000] "GET /two HTTP/1.1" 404 5', ctx)).toMatchObject({ 'source.ip': '203.0.113.27', 'url.original': '/one' });
  });

  it('keeps a request line that is not HTTP as url.original (scans, TLS to a plain port)', () => {
    expect(webAccess.parse('203.0.113.23 - - [10/Oct/2026:13:55:36 +0000] "\\x16\\x03\\x01" 400 0 "-" "-"', ctx)).toMatchObject({ 'url.original': '\\x16\\x03\\x01', 'http.response.status_code': 400, 'event.outcome': 'failure' });
  });

  it('reads an access line behind a syslog header', () => {
    expect(parseRaw('Nov 22 06:01:02 web1 nginx: 203.0.113.24 - - [22/Nov/2026:06:01:02 +0000] "POST /wp-login.php HTTP/1.1" 403 0 "-" "x"', { ...ctx, source: 'syslog' }).fields).toMatchObject({ 'host.hostname': 'web1', 'source.ip': '203.0.113.24', 'event.outcome': 'failure' });
  });

  it('answers null, never throws, for lines that only look similar or are hostile', () => {
    for (const line of ['not a log [x] "y"', `203.0.113.1 - - [10/Oct/2026:13:55:36 +0000] "GET ${'a'.repeat(100_000)}`, `${'1 '.repeat(50_000)}[`, '\u0000\u0001 [ ] "']) {
      expect(() => webAccess.parse(line, ctx)).not.toThrow();
    }
  });
});

describe('error logs', () => {
  it('reads Apache 2.4 lines: module, level, pid, client with port, AH code; authentication failures', () => {
    expect(webError.parse('[Sat Jul 20 21:37:32.266605 2026] [auth_basic:error] [pid 17512:tid 140123] [client 203.0.113.30:51386] AH01618: user mallory not found: /private/', ctx)).toMatchObject({
      '@timestamp': '2026-07-20T21:37:32.266Z',
      'log.logger': 'auth_basic',
      'log.level': 'error',
      'process.pid': 17512,
      'error.code': 'AH01618',
      'source.ip': '203.0.113.30',
      'source.port': 51386,
      'user.name': 'mallory',
      'event.outcome': 'failure',
      'event.action': 'authentication-failed',
    });
  });

  it('reads Apache 2.2 lines, bracketed IPv6 clients and the last of repeated clients', () => {
    expect(webError.parse('[Wed Jul 17 22:18:52 2026] [error] [client 203.0.113.31] user bob: authentication failure for "/private": Password Mismatch', ctx)).toMatchObject({ 'source.ip': '203.0.113.31', 'user.name': 'bob', 'event.outcome': 'failure' });
    expect(webError.parse('[Sat Jul 20 22:11:44.1 2026] [authz_core:error] [pid 1] [client [2001:db8::9]:51548] AH01630: client denied by server configuration: /srv/x', ctx)).toMatchObject({ 'source.ip': '2001:db8::9', 'source.port': 51548, 'event.action': 'access-denied' });
    expect(webError.parse('[Sat Sep 28 09:18:06 2026] [error] [client 203.0.113.32:5] [client 203.0.113.33] ModSecurity: Access denied with code 403 (phase 2).', ctx)).toMatchObject({ 'source.ip': '203.0.113.33', 'event.outcome': 'failure' });
  });

  it('judges by the start of the message, not by what the client put in a path', () => {
    const f = webError.parse('[Sat Jun 01 02:17:42 2026] [error] [client 203.0.113.34] File does not exist: /srv/[client 198.51.100.9] user root not found', ctx)!;
    expect(f).toMatchObject({ 'source.ip': '203.0.113.34', 'event.action': 'not-found' });
    expect(f['user.name']).toBeUndefined();
  });

  it('leaves notices without an outcome', () => {
    expect(webError.parse('[Sat Jul 20 21:00:00 2026] [mpm_event:notice] [pid 1:tid 2] AH00489: Apache/2.4.57 configured -- resuming normal operations', ctx)!['event.outcome']).toBeUndefined();
  });

  it('reads nginx lines: the last client, the request and host, limits and auth failures', () => {
    expect(webError.parse('2026/04/09 11:53:36 [error] 2865#0: *66647 user "xyz": password mismatch, client: 203.0.113.35, server: www.example.org, request: "GET /admin HTTP/1.1", host: "www.example.org"', ctx)).toMatchObject({
      '@timestamp': '2026-04-09T11:53:36.000Z',
      'source.ip': '203.0.113.35',
      'user.name': 'xyz',
      'http.request.method': 'GET',
      'url.original': '/admin',
      'url.domain': 'www.example.org',
      'event.outcome': 'failure',
    });
    expect(webError.parse('2026/10/29 20:01:02 [error] 256554#0: *99927 limiting requests, excess: 1.852 by zone "one", client: 203.0.113.36, server: example.org, request: "POST / HTTP/1.0", host: "example.org"', ctx)).toMatchObject({ 'source.ip': '203.0.113.36', 'event.action': 'rate-limited' });
    expect(webError.parse('2026/04/03 22:20:40 [error] 1#0: *3 user "x": password mismatch, client: 127.0.0.1, server: t, request: "GET / HTTP/1.1", host: "h"": was not found in "/etc/nginx/.htpasswd", client: 203.0.113.37, server: , request: "GET / HTTP/1.1", host: "h"', ctx)).toMatchObject({ 'source.ip': '203.0.113.37' });
    expect(webError.parse('2026/04/09 11:53:37 [error] 2865#0: *7 open() "/srv/www/robots.txt" failed (2: No such file or directory), client: 203.0.113.39, server: www.example.org, request: "GET /robots.txt?x=1 HTTP/1.1", host: "www.example.org"', ctx)).toMatchObject({ 'url.original': '/robots.txt?x=1', 'url.path': '/robots.txt', 'url.query': 'x=1' });
    // FastCGI's stderr is quoted as it came, over several lines.
    expect(webError.parse('2026/04/09 11:53:38 [error] 2865#0: *8 FastCGI sent in stderr: "PHP message: PHP Warning:  Undefined variable $x in /srv/a.php on line 3\nPHP message: PHP Warning:  Undefined variable $y in /srv/a.php on line 4" while reading response header from upstream, client: 203.0.113.40, server: www.example.org, request: "GET /a.php HTTP/1.1", upstream: "fastcgi://unix:/run/php/fpm.sock:", host: "www.example.org"', ctx)).toMatchObject({ 'source.ip': '203.0.113.40', 'url.path': '/a.php', 'event.category': ['web'] });
    expect(webError.parse('2026/11/25 16:02:45 [error] 1#1: *5 connect() failed (111: Connection refused) while connecting to upstream, client: 203.0.113.38, server: x, request: "GET / HTTP/2.0", upstream: "http://127.0.0.1:8080/"', ctx)!['event.outcome']).toBeUndefined();
  });
});
