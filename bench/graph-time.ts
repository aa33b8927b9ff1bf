// The graph through time: GET /v1/graph/neighbourhood and /v1/graph/changes
// through the API, p50/p95, on a synthetic graph of 1,000,000 edges (and
// 100,000 of another organization) written in the real schema through the
// store client: edge sightings (two per edge, distinct artifacts) into
// edge_sightings, which the materialized view folds into edges, and the
// nodes with the first and last sightings of their edges.
//
// Node degrees are skewed (an edge's ends drawn as N·u², so a few nodes have
// thousands of edges and most a handful); edges appear steadily over 90 days
// before now and are seen again at a random later time up to now. The nodes queried are
// ends of random edges, so busy nodes come up as often as analysts meet them.
//
//   node --import tsx bench/graph-time.ts [--edges 1000000] [--runs 50] [--keep <dir>]
//
// --keep <dir> keeps the data dir there (and reuses it when it holds the graph).
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createApp } from '../api/app.js';
import { openRuntime } from '../cli/runtime.js';
import { provideEmbeddedSecrets } from '../cli/embedded-secrets.js';
import { loadConfig } from '../config/env.js';
import { EDGE_TYPES } from '../topics/index.js';
import { createLogger } from '../lib/logger.js';
import { BENCH_SECRET, benchToken, machineLine, percentile } from './lib.js';
import { settle } from './search-data.js';

const { values: args } = parseArgs({
  options: { edges: { type: 'string', default: '1000000' }, runs: { type: 'string', default: '50' }, keep: { type: 'string' } },
});
const EDGES = Number(args.edges);
const RUNS = Number(args.runs);
const ORG = 'bench';
const OTHER_ORG = 'bench-other';
const DAY_MS = 86_400_000;
const NOW = Date.now();
const FIRST = NOW - 90 * DAY_MS;

const dataDir = args.keep ? path.resolve(args.keep) : fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-graph-'));
fs.mkdirSync(dataDir, { recursive: true });
const { config } = await provideEmbeddedSecrets(loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_JWT_SECRET: BENCH_SECRET, CAIRN_LOG_LEVEL: 'warn', NODE_ENV: 'production' }));
const runtime = await openRuntime(config, createLogger('warn'));
const { store } = runtime;

async function scalar(query: string): Promise<number> {
  const [row] = await (await store.query({ query, format: 'JSONEachRow' })).json<{ n: string }>();
  return Number(row?.n ?? 0);
}

/**
 * Two sightings a generated edge, rows [from, from + count) of 2·edges:
 * columns edge, src_k and dst_k (node numbers, never the same), artifact and seen.
 */
function sightings(org: string, edges: number, nodes: number, from: number, count: number): string {
  const span = 90 * DAY_MS;
  // Offsets from FIRST in ms: the first sighting spread evenly (and within a day), the second anywhere from it to now.
  const firstOffset = `intDiv(edge * ${span - DAY_MS}, ${edges}) + cityHash64(edge, 3) % ${DAY_MS}`;
  return `SELECT edge, src_k, dst_k, reinterpretAsUUID(MD5(concat('${org}-artifact', toString(n)))) AS artifact,
                 toDateTime64(${FIRST / 1000}, 3, 'UTC') + toIntervalMillisecond(if(n < ${edges}, fo, fo + cityHash64(edge, 4) % (${span} - fo + 1))) AS seen
          FROM (SELECT number AS n, n % ${edges} AS edge,
                       toUInt64(${nodes} * pow((cityHash64(edge, 1) % 1000000) / 1000000, 2)) AS src_k,
                       toUInt64(${nodes} * pow((cityHash64(edge, 2) % 1000000) / 1000000, 2)) AS drawn_k,
                       if(drawn_k = src_k, (drawn_k + 1) % ${nodes}, drawn_k) AS dst_k,
                       ${firstOffset} AS fo
                FROM numbers(${from}, ${count}))`;
}

/** A name-based (version 5 shaped) UUID of a text, as node and edge ids are: the API takes only RFC 9562 UUIDs. */
function uuidOf(text: string): string {
  const h = `lower(hex(MD5(${text})))`;
  return `toUUID(concat(substring(${h}, 1, 8), '-', substring(${h}, 9, 4), '-5', substring(${h}, 14, 3), '-a', substring(${h}, 18, 3), '-', substring(${h}, 21, 12)))`;
}
const nodeId = (org: string, k: string) => uuidOf(`concat('${org}-node', toString(${k}))`);
const nodeType = (k: string) => `['IP', 'IP', 'IP', 'IP', 'IP', 'IP', 'host', 'user', 'user', 'domain'][1 + ${k} % 10]`;
const nodeValue = (k: string) =>
  `multiIf(${k} % 10 < 6, concat('10.', toString(intDiv(${k}, 65536) % 256), '.', toString(intDiv(${k}, 256) % 256), '.', toString(${k} % 256)),
           ${k} % 10 = 6, concat('host-', toString(${k})), ${k} % 10 = 9, concat('d', toString(${k}), '.example.com'), concat('user', toString(${k})))`;

async function generate(org: string, edges: number): Promise<void> {
  const nodes = Math.max(100, Math.round(edges / 5));
  for (let from = 0; from < 2 * edges; from += 1_000_000) {
    const rows = sightings(org, edges, nodes, from, Math.min(1_000_000, 2 * edges - from));
    const types = `[${EDGE_TYPES.map((t) => `'${t}'`).join(', ')}]`;
    await store.command({
      query: `INSERT INTO edge_sightings (org_id, id, type, source_id, target_id, artifact_id, seen_at)
              SELECT '${org}', ${uuidOf(`concat('${org}-edge', toString(edge))`)}, ${types}[1 + edge % ${EDGE_TYPES.length}],
                     ${nodeId(org, 'src_k')}, ${nodeId(org, 'dst_k')}, artifact, seen
              FROM (${rows})`,
    });
    await store.command({
      query: `INSERT INTO nodes (org_id, type, value, id, first_seen, last_seen)
              SELECT '${org}', ${nodeType('k')}, ${nodeValue('k')}, ${nodeId(org, 'k')}, min(seen), max(seen)
              FROM (SELECT arrayJoin([src_k, dst_k]) AS k, seen FROM (${rows})) GROUP BY k`,
    });
  }
}

console.log(machineLine());
const loadAverage = () => os.loadavg().map((l) => l.toFixed(1)).join(' ');
if ((await scalar(`SELECT uniqExact(id) AS n FROM edges WHERE org_id = '${ORG}'`)) === 0) {
  const started = performance.now();
  await generate(ORG, EDGES);
  await generate(OTHER_ORG, Math.round(EDGES / 10));
  // Merges start a little after the inserts: wait, then for them to end, so that the store is measured at rest.
  await new Promise((resolve) => setTimeout(resolve, 10_000));
  console.log(`generated in ${((performance.now() - started) / 1000).toFixed(1)} s; merges settled in ${(await settle(store)).toFixed(0)} s`);
}
const edgeCount = await scalar(`SELECT uniqExact(id) AS n FROM edges WHERE org_id = '${ORG}'`);
const nodeCount = await scalar(`SELECT uniqExact(id) AS n FROM nodes WHERE org_id = '${ORG}'`);
const parts = await scalar(`SELECT count() AS n FROM system.parts WHERE database = currentDatabase() AND table = 'edges' AND active`);
console.log(`org ${ORG}: ${edgeCount} edges, ${nodeCount} nodes (another org: ${await scalar(`SELECT uniqExact(id) AS n FROM edges WHERE org_id = '${OTHER_ORG}'`)} edges); edges in ${parts} part(s)`);

// Ends of random edges (a node comes up as often as it has edges), and the busiest node.
const sample = (await (await store.query({ query: `SELECT source_id AS id FROM edges WHERE org_id = '${ORG}' ORDER BY rand() LIMIT ${RUNS + 1}`, format: 'JSONEachRow' })).json<{ id: string }>()).map((r) => r.id);
const [hub] = await (
  await store.query({ query: `SELECT node AS id, count() AS n FROM edges ARRAY JOIN [source_id, target_id] AS node WHERE org_id = '${ORG}' GROUP BY node ORDER BY n DESC LIMIT 1`, format: 'JSONEachRow' })
).json<{ id: string; n: string }>();
console.log(`busiest node: ${hub!.n} edges`);

const server = http.createServer(createApp(runtime).callback());
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
const token = benchToken(ORG);

interface Answer {
  truncated: boolean;
  nodes?: unknown[];
  edges?: unknown[];
  new?: { nodes: unknown[]; edges: unknown[] };
  quiet?: { nodes: unknown[]; edges: unknown[] };
}

/**
 * One request: its latency, and the CPU the process spent meanwhile (server, client and the engine's threads all run
 * here): what the request costs whatever else holds the shared cores, which its latency depends on.
 */
async function timed(pathAndQuery: string): Promise<{ ms: number; cpuMs: number; data: Answer }> {
  const cpu = process.cpuUsage();
  const started = performance.now();
  const res = await fetch(`${url}/api/v1${pathAndQuery}`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { data: Answer };
  if (res.status !== 200) throw new Error(`${pathAndQuery} answered ${res.status}: ${JSON.stringify(body)}`);
  const used = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000, data: body.data };
}

const iso = (ms: number) => new Date(ms).toISOString();
const size = (a: Answer) => (a.edges ? a.edges.length : (a.new?.edges.length ?? 0) + (a.quiet?.edges.length ?? 0));

interface Scenario {
  route: 'neighbourhood' | 'changes';
  name: string;
  query: (run: number) => string;
}

const past = NOW - 45 * DAY_MS;
const node = (run: number) => sample[run % sample.length]!;
const week = `start=${iso(NOW - 7 * DAY_MS)}&end=${iso(NOW)}`;
const scenarios: Scenario[] = [
  { route: 'neighbourhood', name: 'depth 1, as_of now', query: (run) => `/graph/neighbourhood?node_id=${node(run)}` },
  { route: 'neighbourhood', name: 'depth 1, as_of 45 days ago', query: (run) => `/graph/neighbourhood?node_id=${node(run)}&as_of=${iso(past)}` },
  { route: 'neighbourhood', name: 'depth 2, as_of now', query: (run) => `/graph/neighbourhood?node_id=${node(run)}&depth=2` },
  { route: 'neighbourhood', name: 'depth 2, as_of 45 days ago', query: (run) => `/graph/neighbourhood?node_id=${node(run)}&depth=2&as_of=${iso(past)}` },
  { route: 'neighbourhood', name: 'depth 2, as_of now, limit 2000', query: (run) => `/graph/neighbourhood?node_id=${node(run)}&depth=2&limit=2000` },
  { route: 'neighbourhood', name: 'depth 3, as_of now', query: (run) => `/graph/neighbourhood?node_id=${node(run)}&depth=3` },
  { route: 'neighbourhood', name: 'depth 2, types=IP,communicates_with', query: (run) => `/graph/neighbourhood?node_id=${node(run)}&depth=2&types=IP,communicates_with` },
  { route: 'neighbourhood', name: 'busiest node, depth 1, limit 2000', query: () => `/graph/neighbourhood?node_id=${hub!.id}&limit=2000` },
  { route: 'neighbourhood', name: 'busiest node, depth 2, as_of 45 days ago', query: () => `/graph/neighbourhood?node_id=${hub!.id}&depth=2&as_of=${iso(past)}` },
  { route: 'changes', name: 'around a node, depth 1, last week', query: (run) => `/graph/changes?${week}&node_id=${node(run)}` },
  { route: 'changes', name: 'around a node, depth 2, last week', query: (run) => `/graph/changes?${week}&node_id=${node(run)}&depth=2` },
  { route: 'changes', name: 'around a node, depth 3, last week', query: (run) => `/graph/changes?${week}&node_id=${node(run)}&depth=3` },
  { route: 'changes', name: 'organization-wide, last day', query: () => `/graph/changes?start=${iso(NOW - DAY_MS)}&end=${iso(NOW)}` },
  { route: 'changes', name: 'organization-wide, a week 30 days ago', query: () => `/graph/changes?start=${iso(NOW - 37 * DAY_MS)}&end=${iso(NOW - 30 * DAY_MS)}` },
];

// Round by round, every scenario once a round (the first round a warm-up), so that the load other work puts on the
// shared cores falls on every scenario alike.
const results = scenarios.map(() => ({ times: [] as number[], cpu: [] as number[], sizes: [] as number[], truncated: 0 }));
for (let run = 0; run <= RUNS; run++) {
  for (const [i, scenario] of scenarios.entries()) {
    const { ms, cpuMs, data } = await timed(scenario.query(run));
    if (run === 0) continue;
    results[i]!.times.push(ms);
    results[i]!.cpu.push(cpuMs);
    results[i]!.sizes.push(size(data));
    if (data.truncated) results[i]!.truncated++;
  }
}
console.log(`load average ${loadAverage()} (other work on the machine shares its cores)`);
for (const route of ['neighbourhood', 'changes'] as const) {
  console.log(`GET /v1/graph/${route}, ${RUNS} rounds after a warm-up round, a different node each round:`);
  for (const [i, scenario] of scenarios.entries()) {
    if (scenario.route !== route) continue;
    const { times, cpu, sizes, truncated } = results[i]!;
    console.log(
      `  ${scenario.name.padEnd(46)} p50 ${percentile(times, 50).toFixed(0).padStart(4)} ms  p95 ${percentile(times, 95).toFixed(0).padStart(4)} ms  max ${Math.max(...times).toFixed(0).padStart(4)} ms` +
        `  CPU p50 ${percentile(cpu, 50).toFixed(0).padStart(4)} ms  p95 ${percentile(cpu, 95).toFixed(0).padStart(4)} ms` +
        `  (edges answered: median ${percentile(sizes, 50)}, max ${Math.max(...sizes)}; truncated ${truncated}/${RUNS})`,
    );
  }
}
console.log(`load average ${loadAverage()}`);
server.close();
await runtime.close();
if (!args.keep) fs.rmSync(dataDir, { recursive: true, force: true });
