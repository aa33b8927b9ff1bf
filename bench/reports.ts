// Report latency: GET /v1/reports/* over 30 days through the API, p50/p95,
// on the search benchmark's data set (10M artifacts with their events: run
// `bench/search.ts --keep <dir>` first) plus 100,000 incidents, 300,000
// leads (their first artifacts real ones), statuses and status changes that
// this script adds once.
//
//   node --import tsx bench/reports.ts --data <dir> [--incidents 100000] [--runs 10]
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../api/app.js';
import { openRuntime } from '../cli/runtime.js';
import { loadConfig } from '../config/env.js';
import { provideEmbeddedSecrets } from '../cli/embedded-secrets.js';
import { createLogger } from '../lib/logger.js';
import { BENCH_SECRET, benchToken, machineLine, percentile } from './lib.js';

const { values: args } = parseArgs({ options: { data: { type: 'string' }, incidents: { type: 'string', default: '100000' }, runs: { type: 'string', default: '10' } } });
if (!args.data) throw new Error('--data <dir>: the data dir of `bench/search.ts --keep <dir>`');
const INCIDENTS = Number(args.incidents);
const RUNS = Number(args.runs);
const ORG = 'bench';
const START = '2026-10-23T00:00:00.000Z';
const END = '2026-11-22T00:00:00.000Z';

// The master key of the data dir, made there on first use as `cairn start` does.
const { config } = await provideEmbeddedSecrets(loadConfig({ CAIRN_DATA_DIR: path.resolve(args.data), CAIRN_JWT_SECRET: BENCH_SECRET, CAIRN_LOG_LEVEL: 'warn', NODE_ENV: 'production', CAIRN_FRAMEWORK_SCOPES: '1=10.1.0.0/16;2=10.2.0.0/16' }));
const runtime = await openRuntime(config, createLogger('warn'));
const { store } = runtime;

async function count(query: string): Promise<number> {
  return Number(((await (await store.query({ query, format: 'JSONEachRow' })).json()) as { n: string }[])[0]!.n);
}

console.log(machineLine());
console.log(`artifacts: ${await count(`SELECT count() AS n FROM artifacts WHERE org_id = '${ORG}'`)}`);
if ((await count(`SELECT count() AS n FROM incidents WHERE org_id = '${ORG}'`)) < INCIDENTS) {
  const started = performance.now();
  // Incidents over the 30 days, 2 IP nodes each (1,000 addresses), severity and status spread.
  await store.command({ query: `INSERT INTO nodes (org_id, id, type, value, first_seen, last_seen)
    SELECT '${ORG}', reinterpretAsUUID(MD5(concat('bench-node', toString(number)))), 'IP',
           concat('10.', toString(1 + number % 3), '.', toString(intDiv(number, 250) % 250), '.', toString(number % 250)),
           toDateTime64('${START.replace('T', ' ').replace('Z', '')}', 3), toDateTime64('${END.replace('T', ' ').replace('Z', '')}', 3)
    FROM numbers(1000)` });
  await store.command({ query: `INSERT INTO incidents (org_id, id, title, severity, artifact_count, node_count, node_ids, observation_ids, first_seen, last_seen, created_at, updated_at, version)
    SELECT '${ORG}', reinterpretAsUUID(MD5(concat('bench-incident', toString(number)))), concat('bench incident ', toString(number)),
           ['low', 'medium', 'high', 'critical'][1 + number % 4], 3, 2,
           [reinterpretAsUUID(MD5(concat('bench-node', toString(number % 1000)))), reinterpretAsUUID(MD5(concat('bench-node', toString((number * 7) % 1000))))],
           [], created - toIntervalSecond(60 + number % 3600), created, created, created, 1
    FROM (SELECT number, toDateTime64('${START.replace('T', ' ').replace('Z', '')}', 3) + toIntervalSecond(intDiv(number * 30 * 86400, ${INCIDENTS})) AS created FROM numbers(${INCIDENTS}))` });
  await store.command({ query: `INSERT INTO incident_status (org_id, incident_id, status, changed_by, changed_at, version)
    SELECT '${ORG}', reinterpretAsUUID(MD5(concat('bench-incident', toString(number)))), 2 + number % 4, 'bench', now64(3), 1 FROM numbers(${INCIDENTS}) WHERE number % 5 != 0` });
  await store.command({ query: `INSERT INTO incident_status_changes (org_id, incident_id, from_status, to_status, changed_by, changed_at)
    SELECT '${ORG}', reinterpretAsUUID(MD5(concat('bench-incident', toString(number)))), 1, 2 + number % 4, 'bench',
           toDateTime64('${START.replace('T', ' ').replace('Z', '')}', 3) + toIntervalSecond(intDiv(number * 30 * 86400, ${INCIDENTS}) + 3600)
    FROM numbers(${INCIDENTS}) WHERE number % 5 != 0` });
  await store.command({ query: `INSERT INTO incident_leads (org_id, lead_id, incident_id, rule_name, observation_id, severity, node_ids, artifact_ids, first_seen, last_seen, version)
    SELECT '${ORG}', reinterpretAsUUID(MD5(concat('bench-lead', toString(number)))),
           reinterpretAsUUID(MD5(concat('bench-incident', toString(intDiv(number, 3))))), 'bench', 
           reinterpretAsUUID(MD5(concat('bench-observation', toString(number)))), 'medium', [], [], now64(3), now64(3), 1
    FROM numbers(${INCIDENTS * 3})` });
  await store.command({ query: 'OPTIMIZE TABLE incidents FINAL' });
  console.log(`added ${INCIDENTS} incidents, ${INCIDENTS * 3} leads in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
// Leads (written again when an older run wrote them without their source, migration 020).
if ((await count(`SELECT count() AS n FROM leads WHERE org_id = '${ORG}' AND source != ''`)) < INCIDENTS * 3) {
  await store.command({ query: `ALTER TABLE leads DELETE WHERE org_id = '${ORG}' SETTINGS mutations_sync = 1` });
  // Three leads per incident from 20 rules, each naming a real artifact as its first.
  await store.command({ query: `INSERT INTO leads (org_id, id, rule_id, rule_name, observation_id, type, severity, group_by, group_value, window_start, event_count, node_ids, artifact_ids, source, first_seen, last_seen, created_at, version)
    SELECT '${ORG}', reinterpretAsUUID(MD5(concat('bench-lead', toString(n)))),
           reinterpretAsUUID(MD5(concat('bench-rule', toString(n % 20)))), concat('bench rule ', toString(n % 20)),
           reinterpretAsUUID(MD5(concat('bench-observation', toString(n)))), 'auth', 'medium', '', '', NULL, 1, [], [a.id], a.source,
           a.timestamp, a.timestamp, a.timestamp, toUInt64(toUnixTimestamp64Micro(toDateTime64('${START.replace('T', ' ').replace('Z', '')}', 6) + toIntervalSecond(intDiv(n * 30 * 86400, ${INCIDENTS * 3}))))
    FROM (SELECT rowNumberInAllBlocks() AS n, id, source, timestamp FROM artifacts WHERE org_id = '${ORG}' LIMIT ${INCIDENTS * 3}) AS a` });
}
// Rows stored before migration 019 compute raw_bytes from raw when read; a deployment's merges write it over time, the benchmark now.
if ((await count(`SELECT count() AS n FROM system.mutations WHERE table = 'artifacts' AND position(command, 'raw_bytes') > 0`)) === 0) {
  const started = performance.now();
  await store.command({ query: 'ALTER TABLE artifacts MATERIALIZE COLUMN raw_bytes SETTINGS mutations_sync = 1' });
  console.log(`raw_bytes written for the stored artifacts in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}
console.log(`incidents: ${await count(`SELECT count() AS n FROM incidents FINAL WHERE org_id = '${ORG}'`)}, leads: ${await count(`SELECT count() AS n FROM leads FINAL WHERE org_id = '${ORG}'`)}`);

const server = http.createServer(createApp(runtime).callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const token = benchToken(ORG);
const range = `start=${START}&end=${END}`;
try {
  for (const [name, query] of [
    ['executive', `/api/v1/reports/executive?${range}`],
    ['compliance (framework 1)', `/api/v1/reports/compliance?${range}&framework_id=1`],
    ['compliance (all 8)', `/api/v1/reports/compliance?${range}`],
    ['tool-effectiveness', `/api/v1/reports/tool-effectiveness?${range}`],
    ['cost-savings', `/api/v1/reports/cost-savings?${range}`],
    ['executive as CSV', `/api/v1/reports/executive?${range}&format=csv`],
  ] as const) {
    const times: number[] = [];
    for (let i = 0; i <= RUNS; i++) {
      const started = performance.now();
      const res = await fetch(`${url}${query}`, { headers: { authorization: `Bearer ${token}` } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`${query}: ${res.status} ${body.slice(0, 300)}`);
      if (i > 0) times.push(performance.now() - started); // the first run warms the caches
    }
    console.log(`${name.padEnd(28)} p50 ${percentile(times, 50).toFixed(0)} ms   p95 ${percentile(times, 95).toFixed(0)} ms`);
  }
} finally {
  server.close();
  await runtime.close();
}
