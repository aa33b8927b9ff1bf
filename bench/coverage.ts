// Parser coverage latency: GET /v1/parser/coverage through the API, p50/p95,
// over the search benchmark's data set (run `bench/search.ts --keep <dir>`
// first: its artifacts spread over 30 days, with their events), for a range
// of one day and one of the whole 30 days (all its artifacts, or the newest
// 1,000,000 when it holds more).
//
//   node --import tsx bench/coverage.ts --data <dir> [--runs 10]
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../api/app.js';
import { openRuntime } from '../cli/runtime.js';
import { loadConfig } from '../config/env.js';
import { provideEmbeddedSecrets } from '../cli/embedded-secrets.js';
import { createLogger } from '../lib/logger.js';
import type { CoverageReport } from '../reports/coverage.js';
import { BENCH_SECRET, benchToken, machineLine, percentile } from './lib.js';

const { values: args } = parseArgs({ options: { data: { type: 'string' }, runs: { type: 'string', default: '10' } } });
if (!args.data) throw new Error('--data <dir>: the data dir of `bench/search.ts --keep <dir>`');
const RUNS = Number(args.runs);
const ORG = 'bench';
const FIRST_DAY = Date.parse('2026-10-23T00:00:00Z');
const DAY_MS = 86_400_000;

// The master key of the data dir, made there on first use as `cairn start` does.
const { config } = await provideEmbeddedSecrets(loadConfig({ CAIRN_DATA_DIR: path.resolve(args.data), CAIRN_JWT_SECRET: BENCH_SECRET, CAIRN_LOG_LEVEL: 'warn', NODE_ENV: 'production' }));
const runtime = await openRuntime(config, createLogger('warn'));
const server = http.createServer(createApp(runtime).callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const token = benchToken(ORG);

async function timeReport(start: number, end: number): Promise<{ ms: number; report: CoverageReport }> {
  const params = new URLSearchParams({ start: new Date(start).toISOString(), end: new Date(end).toISOString() });
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/parser/coverage?${params}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { data: CoverageReport };
  if (res.status !== 200) throw new Error(`coverage answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, report: body.data };
}

console.log(machineLine());
const ranges = [
  { name: 'one day', length: DAY_MS },
  { name: '30 days', length: 30 * DAY_MS },
];
for (const range of ranges) {
  const times: number[] = [];
  let last: CoverageReport | undefined;
  for (let i = 0; i <= RUNS; i++) {
    // A different day each run for the one-day range, so no run reads only what the last one cached.
    const start = FIRST_DAY + (range.length < 30 * DAY_MS ? (i % 29) * DAY_MS : 0);
    const { ms, report } = await timeReport(start, start + range.length);
    if (i > 0) times.push(ms); // the first is a warm-up
    last = report;
  }
  const t = last!.totals;
  console.log(
    `  ${range.name.padEnd(8)} p50 ${percentile(times, 50).toFixed(0)} ms  p95 ${percentile(times, 95).toFixed(0)} ms  ` +
      `(${last!.scanned.artifacts} lines${last!.scanned.truncated ? ', truncated' : ''}; ${t.failures} failures, ${t.categorised} categorised, ${t.address_lines} with an address, ${last!.sources.length} sources, ${last!.sources.reduce((n, s) => n + s.tags.length, 0)} tags)`,
  );
}
server.close();
await runtime.close();
