// Re-parsing benchmark: a job (POST /v1/reprocess) over the search
// benchmark's data set (bench/search-data.ts, 1M stored artifacts by
// default), through the real API and reprocess stage on the embedded store:
// artifacts re-parsed a second, and the latency of the search benchmark's
// queries before, during and after the job.
//
//   node --import tsx bench/reprocess.ts [--size 1000000] [--slice 10000]
//
// The rows arrived over the last 30 days, as their timestamps say (a
// partition a day). The stored events hold source.ip spread over 10.0.0.0/8 where the lines
// say otherwise, so a first job replaces every event (the most a job
// writes); a second finds nothing to change (a job over history that
// today's parsers read as before). Each pair runs once with searches back to
// back meanwhile, once alone, on data generated afresh. While a job runs,
// the events table's row count is read every half second: it is never above
// the artifacts holding an event (it shrinks where an event's line no longer
// parses, the generated lines having tokens appended, which breaks the JSON
// samples, and grows by the events added for lines that had none).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../api/app.js';
import { openRuntime, startStages } from '../cli/runtime.js';
import { provideEmbeddedSecrets } from '../cli/embedded-secrets.js';
import { loadConfig } from '../config/env.js';
import { createLogger } from '../lib/logger.js';
import { BENCH_SECRET, benchToken, cpuGrowth, loadSamples, machineLine, percentile, threadCpuSeconds } from './lib.js';
import { DAYS, FIRST_DAY, generate, ORG, prepareTemplates, QUERIES, settle, timeSearch } from './search-data.js';

const { values: args } = parseArgs({ options: { size: { type: 'string', default: '1000000' }, slice: { type: 'string', default: '10000' } } });
const SIZE = Number(args.size);
/** Searches timed at rest, before and after the jobs. */
const AT_REST = 130;

const { lines: samples, dir } = loadSamples();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-reprocess-'));
const { config } = await provideEmbeddedSecrets(
  loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_JWT_SECRET: BENCH_SECRET, CAIRN_LOG_LEVEL: 'warn', NODE_ENV: 'production', CAIRN_REPROCESS_SLICE: args.slice }),
);
const runtime = await openRuntime(config, createLogger('warn'));
const { store } = runtime;
const stages = await startStages(runtime, ['reprocess']);
const server = http.createServer(createApp(runtime).callback());
// The job's progress is read every half second, but a read may wait seconds behind the job's statements: a
// connection kept 5 s (the default) would be closed by the server as the client reuses it.
server.keepAliveTimeout = 120_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const token = benchToken(ORG);

async function count(query: string): Promise<number> {
  const [row] = await (await store.query({ query, format: 'JSONEachRow' })).json<{ n: string }>();
  return Number(row?.n ?? 0);
}

/** One search of a random kind, over a random day or everything. */
async function oneSearch(): Promise<number> {
  const kind = QUERIES[Math.floor(Math.random() * QUERIES.length)]!;
  return (await timeSearch(url, token, kind.query(), Math.random() < 0.5)).ms;
}

function latencies(times: number[]): string {
  return `p50 ${percentile(times, 50).toFixed(0)} ms  p95 ${percentile(times, 95).toFixed(0)} ms  max ${Math.max(...times).toFixed(0)} ms  (${times.length} searches)`;
}

async function searchesAtRest(): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < AT_REST; i++) times.push(await oneSearch());
  return times;
}

interface JobView {
  id: string;
  status: string;
  progress: { artifacts_done: number; slices_planned: number };
  counts: Record<string, number>;
}

/**
 * Runs a job over the whole data set, watching the events rows, and with
 * `searching` searching one after another meanwhile (one client, back to back).
 */
async function timedJob(label: string, searching: boolean): Promise<void> {
  const rowsBefore = await count(`SELECT count() AS n FROM events WHERE org_id = '${ORG}'`);
  const cpuBefore = threadCpuSeconds(process.pid);
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/reprocess`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ start: new Date(FIRST_DAY).toISOString(), end: new Date(FIRST_DAY + DAYS * 86_400_000).toISOString() }),
  });
  if (res.status !== 202) throw new Error(`POST /v1/reprocess answered ${res.status}: ${await res.text()}`);
  const { id } = ((await res.json()) as { data: JobView }).data;
  let job: JobView | null = null;
  const times: number[] = [];
  const rowCounts = new Set<number>();
  let looks = 0;
  const finished = () => job !== null && ['succeeded', 'failed', 'cancelled'].includes(job.status);
  await Promise.all([
    (async () => {
      while (!finished()) {
        await new Promise((r) => setTimeout(r, 500));
        job = ((await (await fetch(`${url}/api/v1/reprocess/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { data: JobView }).data;
        rowCounts.add(await count(`SELECT count() AS n FROM events WHERE org_id = '${ORG}'`));
        looks++;
      }
    })(),
    (async () => {
      while (searching && !finished()) times.push(await oneSearch());
    })(),
  ]);
  const seconds = (performance.now() - started) / 1000;
  const done = job! as JobView;
  console.log(`\n${label}: ${done.status} in ${seconds.toFixed(1)} s, ${Math.round(done.progress.artifacts_done / seconds).toLocaleString('en')} artifacts/s (${done.progress.slices_planned} slices)`);
  console.log(`  counts: ${JSON.stringify(done.counts)}`);
  console.log(`  events rows: ${rowsBefore} before; during the job ${[...rowCounts].join(', ')} (read ${looks} times)`);
  if (searching) console.log(`  search during the job: ${latencies(times)}`);
  console.log(`  CPU: ${cpuGrowth(cpuBefore, threadCpuSeconds(process.pid)).join(', ')}`);
}

/** Waits for the patch folding the job started (events mutations), returning the seconds waited. */
async function patchesFolded(): Promise<number> {
  const started = Date.now();
  while ((await count(`SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND table = 'events' AND NOT is_done`)) > 0) {
    await new Promise((r) => setTimeout(r, 500));
  }
  return (Date.now() - started) / 1000;
}

/** APPLY PATCHES statements the jobs have run so far. */
function folds(): Promise<number> {
  return count(`SELECT count() AS n FROM system.mutations WHERE database = currentDatabase() AND table = 'events' AND command LIKE 'APPLY PATCHES%'`);
}

/** The data set as generated: every stored event with its source.ip spread, unlike what its line says. */
async function freshData(): Promise<void> {
  await store.command({ query: 'TRUNCATE TABLE artifacts' });
  await store.command({ query: 'TRUNCATE TABLE events' });
  const t0 = Date.now();
  await generate(store, samples.length, 0, SIZE, 'spread');
  console.log(`\n${SIZE.toLocaleString('en')} artifacts and their events generated in ${((Date.now() - t0) / 1000).toFixed(1)} s; merges before timing ${(await settle(store)).toFixed(1)} s`);
}

console.log(`re-parsing benchmark: ${SIZE.toLocaleString('en')} stored artifacts, slices of ${Number(args.slice).toLocaleString('en')}, ${config.pipeline.workers} worker thread(s), samples from ${dir}`);
console.log(machineLine());
await prepareTemplates(store, samples);
await freshData();
console.log(`search at rest: ${latencies(await searchesAtRest())}`);
await timedJob('a job replacing every event, searching meanwhile', true);
console.log(`  patches folded ${(await patchesFolded()).toFixed(1)} s after the job ended (${await folds()} folds so far); merges then ${(await settle(store)).toFixed(1)} s`);
console.log(`  search after it: ${latencies(await searchesAtRest())}`);
await timedJob('again: nothing to change, searching meanwhile', true);

await freshData();
await timedJob('a job replacing every event, alone', false);
console.log(`  patches folded ${(await patchesFolded()).toFixed(1)} s after the job ended (${await folds()} folds so far); merges then ${(await settle(store)).toFixed(1)} s`);
await timedJob('again: nothing to change, alone', false);

await Promise.all(stages.map((s) => s.stop()));
server.close();
await runtime.close();
fs.rmSync(dataDir, { recursive: true, force: true });
