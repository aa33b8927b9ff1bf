// Distributed scale-out: the analysis stage (parse, enrich, rules) on Kafka
// with one, then two members of its consumer group, over the same backlog of
// artifacts; artifacts/s for each, the consumer lag while they run, and the
// events stored checked against what the sample lines parse into.
//
//   node --import tsx bench/scale-out.ts [--artifacts 200000] [--partitions 4] [--members 1,2]
//
// Each member count runs in a fresh data directory and topic prefix, in this
// process (the store is embedded: one engine per process, so the members
// share it, as workers of a distributed install share a ClickHouse server).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { openRuntime, startStages, type Runtime } from '../cli/runtime.js';
import { loadConfig } from '../config/env.js';
import { createLogger } from '../lib/logger.js';
import { publish } from '../pipeline/bus/consume.js';
import { parseRaw } from '../pipeline/parser/registry.js';
import { artifactsRaw } from '../topics/index.js';
import { startKafka } from '../test/services/kafka.js';
import { BENCH_SECRET, loadSamples, machineLine } from './lib.js';

const { values: args } = parseArgs({
  options: { artifacts: { type: 'string', default: '200000' }, partitions: { type: 'string', default: '4' }, members: { type: 'string', default: '1,2' } },
});
const N = Number(args.artifacts);
const { lines: samples, dir } = loadSamples();
const parsesAt = samples.map((s) => {
  try {
    parseRaw(s.raw, { source: s.source, receivedAt: Date.now() });
    return true;
  } catch {
    return false;
  }
});
const expectedEvents = Array.from({ length: N }, (_, i) => parsesAt[i % samples.length]).filter(Boolean).length;

async function storedEvents(runtime: Runtime): Promise<number> {
  const [row] = await (await runtime.store.query({ query: `SELECT count() AS n FROM events FINAL WHERE org_id = 'bench'`, format: 'JSONEachRow' })).json<{ n: string }>();
  return Number(row!.n);
}

async function runWith(members: number, brokers: string): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-scale-'));
  const config = loadConfig({
    CAIRN_DATA_DIR: dataDir,
    CAIRN_JWT_SECRET: BENCH_SECRET,
    CAIRN_LOG_LEVEL: 'warn',
    CAIRN_KAFKA_BROKERS: brokers,
    CAIRN_KAFKA_PARTITIONS: args.partitions,
    CAIRN_KAFKA_TOPIC_PREFIX: `scale-${members}-${Date.now()}.`,
    CAIRN_PIPELINE_TOPOLOGY: 'fused',
  });
  const runtime = await openRuntime(config, createLogger('warn'));
  const now = new Date().toISOString();
  for (let i = 0; i < N; i += 5000) {
    const batch = Array.from({ length: Math.min(5000, N - i) }, (_, j) => {
      const line = samples[(i + j) % samples.length]!;
      return { id: crypto.randomUUID(), org_id: 'bench', source: line.source, raw: line.raw, timestamp: now };
    });
    await publish(runtime.bus, artifactsRaw, batch);
  }
  const started = performance.now();
  const subscriptions = await startStages(runtime, Array.from({ length: members }, () => 'analysis'));
  const lags: number[] = [];
  for (;;) {
    const lag = await runtime.bus.lag('analysis', artifactsRaw.name);
    lags.push(lag);
    if (lag === 0) break;
    await new Promise((r) => setTimeout(r, 1000));
  }
  const seconds = (performance.now() - started) / 1000;
  await Promise.all(subscriptions.map((s) => s.stop()));
  const events = await storedEvents(runtime);
  await runtime.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  const sampled = lags.filter((_, i) => i % Math.max(1, Math.floor(lags.length / 8)) === 0);
  console.log(
    `\n${members} member(s): ${N} artifacts analysed in ${seconds.toFixed(1)} s = ${Math.round(N / seconds)}/s` +
      `\n  lag each second (every ${Math.max(1, Math.floor(lags.length / 8))}): ${sampled.join(', ')}` +
      `\n  events stored ${events}, expected ${expectedEvents}: ${events === expectedEvents ? 'equal' : 'DIFFERENT'}`,
  );
}

console.log(`scale-out benchmark: ${N} artifacts on ${args.partitions} partitions, ${samples.length} sample lines from ${dir}`);
console.log(machineLine());
const kafka = await startKafka();
try {
  for (const members of args.members.split(',').map(Number)) await runWith(members, kafka.address);
} finally {
  await kafka.stop();
}
