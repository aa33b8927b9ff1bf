// Reporting latency: one report-sized aggregate (artifacts and bytes per
// source and day over 30 days, 1M artifacts) through the ClickHouse HTTP
// interface (api/clickhouse-http, with the official client) against the same
// query as `cairn sql` sends it to a running cairn (POST /v1/sql), both on
// one `cairn start` over the embedded store. Also the whole `cairn sql`
// command (a process, Node's start included), for scale.
//
//   node --import tsx bench/clickhouse-http.ts [--artifacts 1000000] [--runs 30]
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createClient } from '@clickhouse/client';
import { provideEmbeddedSecrets } from '../cli/embedded-secrets.js';
import { openRuntime } from '../cli/runtime.js';
import { loadConfig } from '../config/env.js';
import { freePort } from '../test/services/process.js';
import { createLogger } from '../lib/logger.js';
import { BENCH_MASTER_KEY, BENCH_SECRET, benchToken, machineLine, percentile, REPO } from './lib.js';

const { values: args } = parseArgs({ options: { artifacts: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '30' } } });
const ARTIFACTS = Number(args.artifacts);
const RUNS = Number(args.runs);
const ORG = 'default';
const DAYS = 30;
const FIRST_DAY = Date.parse('2026-10-23T00:00:00Z');
const SOURCES = ['auth', 'suricata', 'firewall', 'nginx', 'zeek', 'windows', 'dns', 'syslog'];
const EMAIL = 'reporter@example.com';
const PASSWORD = 'bench password long enough';

const QUERY = `SELECT source, toDate(timestamp) AS day, count() AS artifacts, sum(length(raw)) AS bytes
FROM v_artifacts
WHERE org_id = '${ORG}' AND timestamp >= toDateTime64(${FIRST_DAY / 1000}, 3, 'UTC')
GROUP BY source, day
ORDER BY day, source`;

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-ch-http-'));
const env = {
  CAIRN_DATA_DIR: dataDir,
  CAIRN_JWT_SECRET: BENCH_SECRET,
  CAIRN_MASTER_KEY: BENCH_MASTER_KEY,
  CAIRN_LOG_LEVEL: 'warn',
  NODE_ENV: 'production',
  CAIRN_DEFAULT_RULES: 'off',
  CAIRN_ADMIN_EMAIL: EMAIL,
  CAIRN_ADMIN_PASSWORD: PASSWORD,
};

// The data set, written while no cairn runs.
{
  const { config } = await provideEmbeddedSecrets(loadConfig(env));
  const runtime = await openRuntime(config, createLogger('warn'));
  const started = performance.now();
  const spreadMs = DAYS * 86_400_000;
  for (let start = 0; start < ARTIFACTS; start += 1_000_000) {
    const count = Math.min(1_000_000, ARTIFACTS - start);
    await runtime.store.command({
      query: `INSERT INTO artifacts (id, org_id, source, raw, timestamp, metadata, created_at)
              SELECT reinterpretAsUUID(reverse(unhex(lpad(hex(number + ${2 ** 40}), 32, '0')))), '${ORG}',
                     [${SOURCES.map((s) => `'${s}'`).join(', ')}][number % ${SOURCES.length} + 1],
                     concat('Nov 27 10:00:00 host', toString(number % 500), ' sshd[', toString(number % 65000), ']: Failed password for user', toString(number % 97), ' from 10.0.', toString(number % 256), '.', toString(number % 199), ' port ', toString(1024 + number % 60000)),
                     toDateTime64(${FIRST_DAY / 1000}, 3, 'UTC') + toIntervalMillisecond(intDiv(number * ${spreadMs}, ${ARTIFACTS})), '{}', now64(3)
              FROM numbers(${start}, ${count})`,
    });
  }
  console.log(`${ARTIFACTS.toLocaleString('en')} artifacts written in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  await runtime.close();
}

const port = await freePort();
const reportingPort = await freePort();
const child = spawn(process.execPath, [path.join(REPO, 'bin', 'cairn.mjs'), 'start'], {
  env: { ...process.env, ...env, PORT: String(port), CAIRN_CLICKHOUSE_HTTP_PORT: String(reportingPort) },
  stdio: ['ignore', 'ignore', 'inherit'],
});
const url = `http://127.0.0.1:${port}`;
for (let i = 0; ; i++) {
  if (child.exitCode !== null) throw new Error('cairn exited during start');
  if (await fetch(`${url}/healthz`).then((r) => r.ok).catch(() => false)) break;
  if (i > 900) throw new Error('cairn did not start in 90 s');
  await new Promise((r) => setTimeout(r, 100));
}

const token = benchToken(ORG);
const client = createClient({ url: `http://127.0.0.1:${reportingPort}`, username: EMAIL, password: PASSWORD, database: 'cairn' });

async function throughInterface(): Promise<number> {
  const rows = await (await client.query({ query: QUERY, format: 'JSONEachRow' })).json();
  return rows.length;
}

async function throughApi(): Promise<number> {
  const res = await fetch(`${url}/api/v1/sql`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY, limit: 1000 }) });
  const body = (await res.json()) as { data: { rows: unknown[] } };
  if (res.status !== 200) throw new Error(`POST /v1/sql answered ${res.status}: ${JSON.stringify(body)}`);
  return body.data.rows.length;
}

async function timed(run: () => Promise<number>): Promise<{ ms: number; rows: number }> {
  const started = performance.now();
  const rows = await run();
  return { ms: performance.now() - started, rows };
}

try {
  const expectedRows = await throughApi();
  if ((await throughInterface()) !== expectedRows) throw new Error('the two paths answered different row counts');
  for (let i = 0; i < 3; i++) {
    // Warm-up: caches of the engine and of the password check.
    await throughInterface();
    await throughApi();
  }
  const interfaceMs: number[] = [];
  const apiMs: number[] = [];
  // Interleaved, so that both see the same state of the machine.
  for (let i = 0; i < RUNS; i++) {
    interfaceMs.push((await timed(throughInterface)).ms);
    apiMs.push((await timed(throughApi)).ms);
  }
  const commandMs: number[] = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, [path.join(REPO, 'bin', 'cairn.mjs'), 'sql', QUERY, '--format', 'csv'], { env: { ...process.env, ...env, PORT: String(port) }, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`cairn sql failed: ${result.stderr}`);
    commandMs.push(performance.now() - started);
  }
  const line = (name: string, values: number[]) => `${name.padEnd(44)} p50 ${percentile(values, 50).toFixed(0).padStart(5)} ms   p95 ${percentile(values, 95).toFixed(0).padStart(5)} ms`;
  console.log(machineLine());
  console.log(`query: ${expectedRows} rows (sources x days) over ${ARTIFACTS.toLocaleString('en')} artifacts, ${RUNS} runs each, interleaved`);
  console.log(line('ClickHouse HTTP interface (@clickhouse/client)', interfaceMs));
  console.log(line('POST /v1/sql (what cairn sql sends)', apiMs));
  console.log(line('cairn sql command, whole process (5 runs)', commandMs));
  console.log(`interface / cairn sql's request at p50: ${(percentile(interfaceMs, 50) / percentile(apiMs, 50)).toFixed(2)}`);
} finally {
  await client.close();
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
  fs.rmSync(dataDir, { recursive: true, force: true });
}
