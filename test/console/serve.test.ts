// The console as cairn serves it (issue 40): the page at / and at deep
// links, the security headers, the API's paths left to the API, and the
// initial JavaScript within its budget of 250 KB gzipped, lazily loaded
// chunks (a page's heavy library) served alike and left out of it.
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { CONTENT_SECURITY_POLICY } from '../../console/serve.js';
import { buildConsole } from '../../console/build.js';

const INITIAL_JS_BUDGET_GZIP_BYTES = 250 * 1024;

describe('the console, served by the API', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(async () => api?.close());

  it('answers the app at / and at deep links, with the security headers', async () => {
    for (const path of ['/', '/search?q=source:auth&range=7d', '/incidents/abc', '/login?next=%2Fincidents']) {
      const res = await fetch(`${api.url}${path}`, { headers: { accept: 'text/html' } });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      const csp = res.headers.get('content-security-policy') ?? '';
      expect(csp).toBe(CONTENT_SECURITY_POLICY);
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).not.toContain('unsafe-inline');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('referrer-policy')).toBe('no-referrer');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('cache-control')).toBe('no-cache');
      const html = await res.text();
      expect(html).toContain('<div id="app">');
      // No inline script: every <script> names a file of this origin.
      for (const tag of html.match(/<script\b[^>]*>[^<]*<\/script>/g) ?? []) expect(tag).toMatch(/^<script type="module" src="\/assets\/main-[A-Z0-9]+\.js"><\/script>$/);
    }
  });

  it('serves the hashed script and style for good, gzipped when asked, and 404s an unknown asset', async () => {
    const html = await (await fetch(`${api.url}/`)).text();
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const style = /href="(\/assets\/[^"]+\.css)"/.exec(html)![1]!;
    const js = await fetch(`${api.url}${script}`, { headers: { 'accept-encoding': 'gzip' } });
    expect(js.status).toBe(200);
    expect(js.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(js.headers.get('cache-control')).toContain('immutable');
    expect(js.headers.get('content-encoding')).toBe('gzip');
    expect(js.headers.get('x-content-type-options')).toBe('nosniff');
    expect((await js.text()).length).toBeGreaterThan(1000);
    const css = await fetch(`${api.url}${style}`);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
    const missing = await fetch(`${api.url}/assets/main-NOPE.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });

  it('serves the chunks a page loads later (the graph explorer\'s cytoscape) as it serves the entry', async () => {
    const built = await buildConsole();
    const html = await (await fetch(`${api.url}/`)).text();
    const entry = /src="(\/assets\/[^"]+\.js)"/.exec(html)![1]!;
    const entryText = await (await fetch(`${api.url}${entry}`)).text();
    // The entry names each lazy chunk in a dynamic import(), relative to /assets/.
    const lazy = [...entryText.matchAll(/import\("\.\/([^"]+\.js)"\)/g)].map((m) => `/assets/${m[1]}`);
    expect(lazy.length).toBeGreaterThan(0);
    for (const chunk of lazy) {
      expect(built.initialScripts).not.toContain(chunk);
      const res = await fetch(`${api.url}${chunk}`);
      expect(res.status, chunk).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^text\/javascript/);
      expect(res.headers.get('cache-control')).toContain('immutable');
      expect(res.headers.get('content-security-policy')).toBe(CONTENT_SECURITY_POLICY);
    }
    const graphChunk = lazy.find((chunk) => built.assets.get(chunk)!.body.includes('__________cytoscape_stylesheet'));
    expect(graphChunk, 'the chunk holding cytoscape').toBeDefined();
  });

  it('leaves the API, TAXII and health paths to their owners', async () => {
    const unknownApi = await api.request('GET', '/api/v1/no-such-thing');
    expect(unknownApi.status).toBe(404);
    expect(unknownApi.body.error?.code).toBe('not_found');
    const unauthenticated = await api.request('GET', '/api/v1/incidents');
    expect(unauthenticated.status).toBe(401);
    expect((await fetch(`${api.url}/healthz`)).headers.get('content-type')).toMatch(/json/);
    expect((await fetch(`${api.url}/taxii2/`)).headers.get('content-type')).not.toMatch(/text\/html/);
    // Writes are never the console's: a POST to a page path is the API's JSON 404.
    const post = await fetch(`${api.url}/search`, { method: 'POST' });
    expect(post.status).toBe(404);
    expect(post.headers.get('content-type')).toMatch(/json/);
  });
});

describe('the console build', () => {
  it('keeps the initial JavaScript under 250 KB gzipped', async () => {
    const built = await buildConsole();
    console.log(`[console] initial JavaScript ${built.initialJsGzipBytes} bytes gzipped, built in ${built.buildMs} ms`);
    expect(built.initialJsGzipBytes).toBeGreaterThan(0);
    expect(built.initialJsGzipBytes).toBeLessThan(INITIAL_JS_BUDGET_GZIP_BYTES);
    // Only the entry and what it imports statically count: cytoscape (about 145 KB gzipped) loads with the graph explorer.
    const allJs = [...built.assets.values()].filter((f) => f.urlPath.endsWith('.js'));
    expect(allJs.length).toBeGreaterThan(built.initialScripts.length);
    expect(built.initialScripts[0]).toMatch(/^\/assets\/main-[A-Z0-9]+\.js$/);
    const lazyGzip = allJs.filter((f) => !built.initialScripts.includes(f.urlPath)).reduce((sum, f) => sum + gzipSync(f.body).length, 0);
    expect(lazyGzip).toBeGreaterThan(100 * 1024);
  });
});
