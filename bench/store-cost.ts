// The embedded engine's CPU for what one artifact writes, by table: the
// sample mix analysed as the pipeline does (parse, enrich, encode), then its
// rows inserted chunk by chunk with merges stopped, then each table's parts
// merged into one. Process CPU (every thread, user and system) around each
// step; nothing else runs in the process meanwhile.
//
//   node --import tsx bench/store-cost.ts [--chunk 5000] [--chunks 40]
//   --chunk: artifacts per insert (the analysis stage writes a chunk of 5,000 as one insert per table).
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openStore } from '../clickhouse/client.js';
import { insertEncoded, type EncodedRows } from '../clickhouse/encoded-rows.js';
import { migrate } from '../clickhouse/migrate.js';
import { encodeArtifacts, type Artifact } from '../clickhouse/tables/artifacts.js';
import { analyse } from '../pipeline/analysis/analyse.js';
import { packMessages } from '../pipeline/analysis/packed-messages.js';
import type { DeliveredMessage } from '../pipeline/bus/index.js';
import { loadSamples, machineLine } from './lib.js';

const { values: args } = parseArgs({ options: { chunk: { type: 'string', default: '5000' }, chunks: { type: 'string', default: '40' } } });
const CHUNK = Number(args.chunk);
const CHUNKS = Number(args.chunks);
const ARTIFACTS = CHUNK * CHUNKS;

/** Milliseconds of CPU this process has used, all threads. */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The rows the store and analysis stages would write for the samples, by table, a chunk per insert. */
async function encodedChunks(): Promise<Map<string, EncodedRows[]>> {
  const { lines } = loadSamples();
  const byTable = new Map<string, EncodedRows[]>();
  for (let c = 0, n = 0; c < CHUNKS; c++) {
    const now = new Date().toISOString();
    const artifacts: Artifact[] = [];
    const messages: DeliveredMessage[] = [];
    for (let i = 0; i < CHUNK; i++, n++) {
      const line = lines[n % lines.length]!;
      const artifact = { id: randomUUID(), org_id: 'default', source: line.source, raw: line.raw, timestamp: now, metadata: {}, created_at: now };
      artifacts.push(artifact);
      messages.push({ topic: 'artifacts.raw', partition: 0, offset: String(n), key: null, value: Buffer.from(JSON.stringify(artifact)), headers: {}, timestamp: Date.now() });
    }
    const result = await analyse({ messages: packMessages(messages), defaultOrgId: 'default', timezone: 'UTC', rules: { generation: 0, rules: [] } });
    if (result === 'stale') throw new Error('no matcher was named, so the analysis cannot be stale');
    for (const rows of [encodeArtifacts(artifacts), ...result.inserts]) {
      if (!byTable.has(rows.table)) byTable.set(rows.table, []);
      byTable.get(rows.table)!.push(rows);
    }
  }
  return byTable;
}

const byTable = await encodedChunks();
console.log(`store cost benchmark: ${ARTIFACTS} sample artifacts, ${CHUNKS} inserts of ${CHUNK} a table`);
console.log(machineLine());
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-store-cost-'));
const store = await openStore({ clickhouse: { user: 'default', password: '', database: 'cairn' }, dataDir });
try {
  await migrate(store);
  await store.command({ query: 'SYSTEM STOP MERGES' });
  for (const [table, chunks] of byTable) {
    const [cpu, wall] = [cpuMs(), Date.now()];
    for (const rows of chunks) await insertEncoded(store, rows);
    const rows = chunks.reduce((n, c) => n + c.rows, 0);
    console.log(`insert ${table}: ${rows} rows, ${(((cpuMs() - cpu) * 1000) / ARTIFACTS).toFixed(2)} µs of CPU an artifact, ${Date.now() - wall} ms`);
  }
  const tables = await (
    await store.query({ query: `SELECT name FROM system.tables WHERE database = currentDatabase() AND engine LIKE '%MergeTree' AND total_rows > 0 AND name != 'schema_migrations'`, format: 'JSONEachRow' })
  ).json<{ name: string }>();
  for (const { name } of tables) {
    // One table's merges at a time, so that the CPU is that table's.
    await store.command({ query: `SYSTEM START MERGES ${name}` });
    const [cpu, wall] = [cpuMs(), Date.now()];
    await store.command({ query: `OPTIMIZE TABLE ${name} FINAL` });
    console.log(`merge ${name}, all parts into one: ${(((cpuMs() - cpu) * 1000) / ARTIFACTS).toFixed(2)} µs of CPU an artifact, ${Date.now() - wall} ms`);
  }
} finally {
  await store.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
