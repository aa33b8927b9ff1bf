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
// Rows are the sample logs (CAIRN_SAMPLES_DIR) repeated, each with a host
// token (1 in 5,000 rows) and a unique sequence token appended, their
// timestamps spread over 30 days. Each has its parsed event (the sample's
// fields as the parser gives them), with source.ip spread (hashed, not by
// time) over 10.0.0.0/8, so a /16 holds 1 row in 256.
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
import { parseRaw } from '../pipeline/parser/registry.js';
import { BENCH_SECRET, benchToken, loadSamples, machineLine, percentile } from './lib.js';

const { values: args } = parseArgs({
  options: { sizes: { type: 'string', default: '1000000,10000000' }, runs: { type: 'string', default: '40' }, only: { type: 'string' }, keep: { type: 'string' } },
});
const SIZES = args.sizes.split(',').map(Number);
const RUNS = Number(args.runs);
const ORG = 'bench';
const DAYS = 30;
const FIRST_DAY = Date.parse('2026-10-23T00:00:00Z');

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

/** The sample's parsed fields as the events table holds them (arrays of strings); none when it does not parse. */
function parsedFields(source: string, raw: string): { parser: string; fields: Record<string, string[]> } {
  try {
    const { parser, fields } = parseRaw(raw, { source, receivedAt: FIRST_DAY });
    return { parser, fields: Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, (Array.isArray(v) ? v : [v]).map(String)])) };
  } catch {
    return { parser: '', fields: {} };
  }
}

await store.command({ query: 'DROP TABLE IF EXISTS bench_templates' });
await store.command({ query: 'CREATE TABLE bench_templates (i UInt32, source String, raw String, parser String, fields Map(String, Array(String))) ENGINE = Memory' });
await store.insert({ table: 'bench_templates', format: 'JSONEachRow', values: samples.map((s, i) => ({ i, source: s.source, raw: s.raw, ...parsedFields(s.source, s.raw) })) });

/** Appends rows [from, to) generated in SQL, a million at a time. */
async function generate(from: number, to: number): Promise<void> {
  const spreadMs = DAYS * 86_400_000;
  for (let start = from; start < to; start += 1_000_000) {
    const count = Math.min(1_000_000, to - start);
    // The id derives from the row number, so artifacts and events of one row share it without a join.
    const id = `reinterpretAsUUID(reverse(unhex(lpad(hex(n.number + ${2 ** 40}), 32, '0'))))`;
    const timestamp = `toDateTime64(${FIRST_DAY / 1000}, 3, 'UTC') + toIntervalMillisecond(intDiv(n.number * ${spreadMs}, ${to}))`;
    const rows = `FROM numbers(${start}, ${count}) AS n INNER JOIN bench_templates AS t ON t.i = n.number % ${samples.length}`;
    await store.command({
      query: `INSERT INTO artifacts (id, org_id, source, raw, timestamp, metadata, created_at)
              SELECT ${id}, '${ORG}', t.source,
                     concat(t.raw, ' host=h', toString(n.number % 5000), ' seq=s', toString(n.number)),
                     ${timestamp}, '{}', now64(3)
              ${rows}`,
    });
    await store.command({
      query: `INSERT INTO events (artifact_id, org_id, source, timestamp, parser, fields, created_at)
              SELECT ${id}, '${ORG}', t.source, ${timestamp}, t.parser,
                     mapUpdate(t.fields, map('source.ip', [concat('10.', toString(cityHash64(n.number) % 256), '.', toString(cityHash64(n.number, 1) % 256), '.', toString(n.number % 256))])),
                     now64(3)
              ${rows} WHERE t.parser != ''`,
    });
  }
}

interface QueryKind {
  name: string;
  query: () => string;
}

const QUERIES: QueryKind[] = [
  { name: 'two common words', query: () => 'Failed password' },
  { name: 'rare token (1 in 5,000)', query: () => `h${Math.floor(Math.random() * 5000)}` },
  { name: 'phrase', query: () => '"Accepted publickey"' },
  { name: 'unique token', query: () => `s${Math.floor(Math.random() * 1_000_000)}` },
  { name: 'address with separators', query: () => '192.168.86.85' },
  { name: 'OR of two rare tokens', query: () => `h${Math.floor(Math.random() * 5000)} OR h${Math.floor(Math.random() * 5000)}` },
  { name: 'field OR', query: () => `source.ip:10.${Math.floor(Math.random() * 256)}.1.2 OR source.ip:10.${Math.floor(Math.random() * 256)}.3.4` },
  { name: 'field wildcard', query: () => 'user.name:adm*' },
  { name: 'text wildcard', query: () => 'authenticat*' },
  { name: 'CIDR /16', query: () => `source.ip:10.${Math.floor(Math.random() * 256)}.0.0/16` },
  { name: 'numeric range', query: () => 'source.port:[1000 TO 2000]' },
  { name: 'comparison and word', query: () => 'source.port>=1024 AND Accepted' },
  { name: 'field not promoted', query: () => `dns.question.type:AAAA OR log.level:${['error', 'warn'][Math.floor(Math.random() * 2)]}` },
];

async function timeSearch(query: string, range: boolean): Promise<{ ms: number; total: number }> {
  const day = Math.floor(Math.random() * (DAYS - 1));
  const params = new URLSearchParams({ query, limit: '50' });
  if (range) {
    params.set('start', new Date(FIRST_DAY + day * 86_400_000).toISOString());
    params.set('end', new Date(FIRST_DAY + (day + 1) * 86_400_000).toISOString());
  }
  const started = performance.now();
  const res = await fetch(`${url}/api/v1/artifacts?${params}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { data: { total: number } };
  if (res.status !== 200) throw new Error(`search answered ${res.status}: ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, total: body.data.total };
}

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

/**
 * Waits for the merges the generated parts start (at most 10 minutes): they
 * share the two cores, and a store at rest is what this benchmark measures.
 * Returns the seconds waited.
 */
async function settle(): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < 600_000) {
    const [row] = await (await store.query({ query: `SELECT count() AS n FROM system.merges WHERE database = currentDatabase()`, format: 'JSONEachRow' })).json<{ n: string }>();
    if (Number(row?.n ?? 0) === 0) break;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
  return (Date.now() - started) / 1000;
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
  await generate(rows, size);
  rows = size;
  const merging = await settle();
  console.log(`\n${size.toLocaleString('en')} artifacts (generated in ${((Date.now() - started) / 1000).toFixed(1)} s, then ${merging.toFixed(1)} s of background merges before timing)`);
  for (const range of [true, false]) {
    const all: number[] = [];
    for (const kind of kinds) {
      await timeSearch(kind.query(), range); // warm-up
      const times: number[] = [];
      let hits = 0;
      for (let i = 0; i < RUNS; i++) {
        const { ms, total } = await timeSearch(kind.query(), range);
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
