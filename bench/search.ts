// Search benchmark: latency of GET /v1/artifacts for each kind of query
// (words, phrases, OR, wildcards, CIDR, ranges) with and without a time
// range, at 1M and 10M artifacts, through the real API over HTTP on the
// embedded store.
//
//   node --import tsx bench/search.ts [--sizes 1000000,10000000] [--runs 40] [--only <kind words>[,<kind words>...]] [--keep <dir>]
//
// --keep stores the data in <dir> and leaves it there; a later run with the
// same --keep reuses what is stored instead of generating it again.
//
// The rows (bench/search-data.ts) are the sample logs (CAIRN_SAMPLES_DIR)
// repeated, with their parsed events.
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../api/app.js';
import { openRuntime } from '../cli/runtime.js';
import { loadConfig } from '../config/env.js';
import { provideEmbeddedSecrets } from '../cli/embedded-secrets.js';
import { createLogger } from '../lib/logger.js';
import { BENCH_SECRET, benchToken, loadSamples, machineLine, percentile } from './lib.js';
import { DAYS, FIRST_DAY, generate, ORG, prepareTemplates, QUERIES, settle, timeSearch } from './search-data.js';

const { values: args } = parseArgs({
  options: { sizes: { type: 'string', default: '1000000,10000000' }, runs: { type: 'string', default: '40' }, only: { type: 'string' }, keep: { type: 'string' } },
});
const SIZES = args.sizes.split(',').map(Number);
const RUNS = Number(args.runs);

const { lines: samples, dir } = loadSamples();
const dataDir = args.keep ? path.resolve(args.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-search-'));
fs.mkdirSync(dataDir, { recursive: true });
// The master key of the data dir, made there on first use as `cairn start` does.
const { config } = await provideEmbeddedSecrets(loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_JWT_SECRET: BENCH_SECRET, CAIRN_LOG_LEVEL: 'warn', NODE_ENV: 'production' }));
const runtime = await openRuntime(config, createLogger('warn'));
const { store } = runtime;
const server = http.createServer(createApp(runtime).callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const token = benchToken(ORG);
await prepareTemplates(store, samples);

interface Trial {
  name: string;
  conditions: Record<string, unknown>;
  /** The same answer counted straight in SQL, apart from the API's code: [events, leads]. */
  direct: string;
}

const MATCHED_FAILED = `artifact_id IN (SELECT id FROM artifacts WHERE org_id = '${ORG}' AND positionCaseInsensitive(raw, 'failed password') > 0)`;
const TRIALS: Trial[] = [
  {
    name: 'phrase, every event a lead',
    conditions: { pattern: '"failed password"' },
    direct: `SELECT count() AS events, count() AS leads FROM events WHERE org_id = '${ORG}' AND ${MATCHED_FAILED}`,
  },
  {
    name: 'phrase, 5 per user.name per hour',
    conditions: { pattern: '"failed password"', threshold: 5, window: '1h', group_by: 'user.name' },
    direct: `SELECT sum(c) AS events, countIf(c >= 5) AS leads FROM (
               SELECT fields['user.name'][1] AS g, intDiv(toUnixTimestamp64Milli(timestamp), 3600000) AS w, count() AS c
               FROM events WHERE org_id = '${ORG}' AND ${MATCHED_FAILED} AND notEmpty(fields['user.name']) GROUP BY g, w)`,
  },
  {
    name: 'fields, 3 users per source.ip per day',
    conditions: { pattern: 'event.category:authentication AND source.ip:10.0.0.0/9', threshold: 3, window: '1d', group_by: 'source.ip', count_distinct: 'user.name' },
    direct: `SELECT sum(c) AS events, countIf(k >= 3) AS leads FROM (
               SELECT fields['source.ip'][1] AS g, intDiv(toUnixTimestamp64Milli(timestamp), 86400000) AS w, count() AS c, uniqExactArray(fields['user.name']) AS k
               FROM events WHERE org_id = '${ORG}' AND has(fields['event.category'], 'authentication')
                 AND arrayExists(v -> toIPv4OrNull(v) BETWEEN toIPv4('10.0.0.0') AND toIPv4('10.127.255.255'), fields['source.ip'])
               GROUP BY g, w)`,
  },
];

/** POST /v1/lead-rules/test over the whole data set: latency, and its counts against a direct count. */
async function benchTrials(): Promise<void> {
  const range = { start: new Date(FIRST_DAY).toISOString(), end: new Date(FIRST_DAY + DAYS * 86_400_000).toISOString() };
  for (const trial of TRIALS) {
    const times: number[] = [];
    let answer = { events: 0, leads: 0 };
    for (let i = 0; i < 6; i++) {
      const started = performance.now();
      const res = await fetch(`${url}/api/v1/lead-rules/test`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ conditions: trial.conditions, ...range }),
      });
      const body = (await res.json()) as { data: { events: number; leads: number } };
      if (res.status !== 200) throw new Error(`rule test answered ${res.status}: ${JSON.stringify(body)}`);
      if (i > 0) times.push(performance.now() - started); // the first is a warm-up
      answer = body.data;
    }
    const [direct] = await (await store.query({ query: trial.direct, format: 'JSONEachRow' })).json<{ events: string; leads: string }>();
    const agree = Number(direct!.events) === answer.events && Number(direct!.leads) === answer.leads;
    console.log(
      `  rule test  ${trial.name.padEnd(38)} p50 ${percentile(times, 50).toFixed(0)} ms  max ${Math.max(...times).toFixed(0)} ms  events ${answer.events} leads ${answer.leads}  direct ${direct!.events}/${direct!.leads} ${agree ? 'agree' : 'DIFFER'}`,
    );
  }
}

console.log(`search benchmark: ${RUNS} runs per query kind and size, ${samples.length} sample lines from ${dir}`);
console.log(machineLine());
const stored = async () => Number(((await (await store.query({ query: `SELECT count() AS n FROM artifacts WHERE org_id = '${ORG}'`, format: 'JSONEachRow' })).json<{ n: string }>())[0]?.n ?? 0));
let rows = await stored();
const only = args.only?.split(",");
const kinds = only ? QUERIES.filter((k) => only.some((words) => k.name.includes(words))) : QUERIES;
for (const size of SIZES) {
  const started = Date.now();
  if (rows > size) continue;
  await generate(store, samples.length, rows, size);
  rows = size;
  const merging = await settle(store);
  console.log(`\n${size.toLocaleString('en')} artifacts (generated in ${((Date.now() - started) / 1000).toFixed(1)} s, then ${merging.toFixed(1)} s of background merges before timing)`);
  for (const range of [true, false]) {
    const all: number[] = [];
    for (const kind of kinds) {
      await timeSearch(url, token, kind.query(), range); // warm-up
      const times: number[] = [];
      let hits = 0;
      for (let i = 0; i < RUNS; i++) {
        const { ms, total } = await timeSearch(url, token, kind.query(), range);
        times.push(ms);
        hits += total;
      }
      all.push(...times);
      console.log(`  ${range ? '1-day range' : 'no range   '}  ${kind.name.padEnd(26)} p50 ${percentile(times, 50).toFixed(1)} ms  p95 ${percentile(times, 95).toFixed(1)} ms  (avg ${Math.round(hits / RUNS)} hits)`);
    }
    console.log(`  ${range ? '1-day range' : 'no range   '}  ALL                        p50 ${percentile(all, 50).toFixed(1)} ms  p95 ${percentile(all, 95).toFixed(1)} ms`);
  }
  await benchTrials();
}

server.close();
await runtime.close();
if (!args.keep) fs.rmSync(dataDir, { recursive: true, force: true });
