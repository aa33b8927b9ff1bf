// The console's search page with 1M stored artifacts (issue 40: first
// results under 1.5 s), measured in Debian's Chromium: the page opened at a
// search's URL (a full load: the app, the token renewed from the session
// cookie, the search, its histogram and field sidebar asked at once), timed
// from navigation to the first page of results in the table (the page's
// `cairn:results-shown` mark) and to its first contentful paint, p50 and max
// over --runs per query, beside the API's own time for the same search.
// The data set is the search benchmark's (bench/search-data.ts): the sample
// logs repeated over 30 days, each with its parsed event.
//
//   node --import tsx bench/console-search.ts [--size 1000000] [--runs 10] [--keep <dir>]
//
// --keep stores the data in <dir> and leaves it there; a later run with the
// same --keep (or bench/search.ts's) reuses it.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { chromium } from 'playwright-core';
import { createApp } from '../api/app.js';
import { provideEmbeddedSecrets } from '../cli/embedded-secrets.js';
import { openRuntime } from '../cli/runtime.js';
import { loadConfig } from '../config/env.js';
import { BUILTIN_ROLES } from '../identity/roles.js';
import { createLogger } from '../lib/logger.js';
import { BENCH_SECRET, benchToken, loadSamples, machineLine, percentile } from './lib.js';
import { generate, ORG, prepareTemplates, settle } from './search-data.js';

const { values: args } = parseArgs({ options: { size: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '10' }, keep: { type: 'string' } } });
const SIZE = Number(args.size);
const RUNS = Number(args.runs);
const CHROMIUM = process.env.CAIRN_CHROMIUM ?? '/usr/bin/chromium';

/** Searches as an analyst opens them: the whole set, words, a rare token, field tests; over all time (the data set's 30 days are in the past). */
const SEARCHES = [
  { name: 'everything', q: '' },
  { name: 'two common words', q: 'Failed password' },
  { name: 'rare token (1 in 5,000)', q: 'h1234' },
  { name: 'field value', q: 'user.name:root' },
  { name: 'field CIDR', q: 'source.ip:10.1.0.0/16' },
];

const { lines: samples, dir } = loadSamples();
const dataDir = args.keep ? path.resolve(args.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-console-'));
fs.mkdirSync(dataDir, { recursive: true });
const { config } = await provideEmbeddedSecrets(loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_JWT_SECRET: BENCH_SECRET, CAIRN_ORG_ID: ORG, CAIRN_LOG_LEVEL: 'warn', NODE_ENV: 'production' }));
const runtime = await openRuntime(config, createLogger('warn'));
const { store } = runtime;
const server = http.createServer(createApp(runtime).callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const token = benchToken(ORG);

console.log(`console search benchmark: ${SIZE.toLocaleString('en')} artifacts, ${RUNS} page loads per search, ${samples.length} sample lines from ${dir}`);
console.log(machineLine());
const stored = Number(((await (await store.query({ query: `SELECT count() AS n FROM artifacts WHERE org_id = '${ORG}'`, format: 'JSONEachRow' })).json<{ n: string }>())[0]?.n ?? 0));
if (stored < SIZE) {
  const started = Date.now();
  await prepareTemplates(store, samples);
  await generate(store, samples.length, stored, SIZE);
  const merging = await settle(store);
  console.log(`generated ${(SIZE - stored).toLocaleString('en')} artifacts in ${((Date.now() - started) / 1000).toFixed(1)} s, then ${merging.toFixed(1)} s of background merges before timing`);
}

// An analyst to log in as (the console's own login: session cookie, token in memory).
const analyst = { email: `bench-${Date.now()}@example.com`, password: 'bench password long enough' };
const created = await fetch(`${url}/api/v1/users`, {
  method: 'POST',
  headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
  body: JSON.stringify({ ...analyst, name: 'Bench Analyst', role_id: BUILTIN_ROLES.analyst.id }),
});
if (created.status !== 201) throw new Error(`creating the analyst answered ${created.status}: ${await created.text()}`);

const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
const context = await browser.newContext({ baseURL: url, viewport: { width: 1366, height: 860 } });
const page = await context.newPage();
await page.goto('/login');
await page.getByLabel('Email').fill(analyst.email);
await page.getByLabel('Password').fill(analyst.password);
await page.getByRole('button', { name: 'Log in' }).click();
await page.getByRole('heading', { name: 'Search' }).waitFor();

/** One full load of the search page at this query: ms from navigation to the results in the table, and to the first contentful paint. */
async function openSearch(q: string): Promise<{ firstResults: number; fcp: number; total: string }> {
  await page.goto(`/search?${new URLSearchParams({ q, range: 'all' })}`);
  await page.waitForFunction(() => performance.getEntriesByName('cairn:results-shown').length > 0, undefined, { timeout: 60_000 });
  const marks = await page.evaluate(() => ({
    firstResults: performance.getEntriesByName('cairn:results-shown')[0]!.startTime,
    fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
  }));
  const total = (await page.getByRole('status').filter({ hasText: /artifacts?$/ }).first().textContent()) ?? '';
  return { ...marks, total };
}

async function apiSearch(q: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/artifacts?${new URLSearchParams({ query: q, limit: '50' })}`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`search answered ${res.status}`);
  return performance.now() - started;
}

const everyLoad: number[] = [];
for (const search of SEARCHES) {
  const cold = await openSearch(search.q);
  const loads: number[] = [];
  const paints: number[] = [];
  const apiTimes: number[] = [];
  let total = cold.total;
  for (let i = 0; i < RUNS; i++) {
    const run = await openSearch(search.q);
    loads.push(run.firstResults);
    paints.push(run.fcp);
    total = run.total;
    apiTimes.push(await apiSearch(search.q));
  }
  everyLoad.push(...loads);
  console.log(
    `  ${search.name.padEnd(24)} first results p50 ${percentile(loads, 50).toFixed(0)} ms  max ${Math.max(...loads).toFixed(0)} ms  (first load ${cold.firstResults.toFixed(0)} ms)  FCP p50 ${percentile(paints, 50).toFixed(0)} ms  API alone p50 ${percentile(apiTimes, 50).toFixed(0)} ms  [${total}]`,
  );
}
console.log(`  ALL                      first results p50 ${percentile(everyLoad, 50).toFixed(0)} ms  p95 ${percentile(everyLoad, 95).toFixed(0)} ms  max ${Math.max(...everyLoad).toFixed(0)} ms`);

await browser.close();
server.close();
await runtime.close();
if (!args.keep) fs.rmSync(dataDir, { recursive: true, force: true });
