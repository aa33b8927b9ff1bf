import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutboundClient, OutboundError, outboundPolicy } from './client.js';

let server: http.Server;
let port = 0;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.url === '/hello') return void res.end('hello');
    if (req.url === '/same-host') return void res.writeHead(302, { location: '/hello' }).end();
    if (req.url === '/other-host') return void res.writeHead(302, { location: `http://localhost:${port}/hello` }).end();
    if (req.url === '/big') return void res.end(Buffer.alloc(2 * 1024 * 1024, 'x'));
    // /slow: never answers
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

async function failure(promise: Promise<unknown>): Promise<OutboundError> {
  const err = await promise.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(OutboundError);
  return err as OutboundError;
}

describe('OutboundClient', () => {
  it('refuses loopback, private and cloud metadata addresses by default', async () => {
    const client = new OutboundClient(outboundPolicy([]));
    for (const url of [`http://127.0.0.1:${port}/hello`, `http://localhost:${port}/hello`, 'http://169.254.169.254/latest/meta-data/', 'http://10.1.2.3/', 'http://[::1]/']) {
      const err = await failure(client.request({ url, timeoutMs: 3000 }));
      expect(err.code, url).toBe('blocked_address');
      expect(err.message).toMatch(/CAIRN_OUTBOUND_ALLOW/);
    }
  });

  it('reaches an address or host the allow list names, and nothing else private', async () => {
    const byCidr = new OutboundClient(outboundPolicy(['127.0.0.0/8']));
    expect((await byCidr.request({ url: `http://127.0.0.1:${port}/hello` })).text()).toBe('hello');
    expect((await failure(byCidr.request({ url: 'http://10.1.2.3/', timeoutMs: 3000 }))).code).toBe('blocked_address');
    const byHost = new OutboundClient(outboundPolicy(['localhost']));
    expect((await byHost.request({ url: `http://localhost:${port}/hello` })).status).toBe(200);
  });

  it('follows redirects on the same host only', async () => {
    const client = new OutboundClient(outboundPolicy(['127.0.0.1', 'localhost']));
    const same = await client.request({ url: `http://127.0.0.1:${port}/same-host` });
    expect(same.text()).toBe('hello');
    expect(same.url).toBe(`http://127.0.0.1:${port}/hello`);
    expect((await failure(client.request({ url: `http://127.0.0.1:${port}/other-host` }))).code).toBe('redirect_refused');
  });

  it('caps the response size and the time a request may take', async () => {
    const client = new OutboundClient(outboundPolicy(['127.0.0.1']));
    expect((await failure(client.request({ url: `http://127.0.0.1:${port}/big`, maxBytes: 1024 * 1024 }))).code).toBe('too_large');
    const started = Date.now();
    expect((await failure(client.request({ url: `http://127.0.0.1:${port}/slow`, timeoutMs: 300 }))).code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  it('takes only http and https URLs without credentials', async () => {
    const client = new OutboundClient(outboundPolicy([]));
    for (const url of ['file:///etc/passwd', 'gopher://x/', 'not a url', 'http://user:pass@example.com/']) {
      expect((await failure(client.request({ url }))).code, url).toBe('invalid_url');
    }
  });
});
