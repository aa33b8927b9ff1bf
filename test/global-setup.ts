// Starts the real services the tests talk to, once per run, and stops them
// after. Each is found in this order: env URL, Docker, local binary.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type {} from 'vitest';
import type { TestProject } from 'vitest/node';
import { startKafka } from './services/kafka.js';
import type { RunningService } from './services/process.js';
import { startRedis } from './services/redis.js';
import { startSchemaRegistry } from './services/schema-registry.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    redisUrl: string;
    schemaRegistryUrl: string;
  }
}

/**
 * Temporary files of the run (data dirs of test APIs, buses, stores) go
 * under one directory, removed at the end: a test that restarts cairn on its
 * data dir needs it after closing it, so each cannot remove its own.
 */
function runTempDir(): () => void {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-test-run-'));
  // The test processes are forked after global set-up and inherit it; os.tmpdir() reads it.
  process.env.TMPDIR = dir;
  return () => fs.rmSync(dir, { recursive: true, force: true });
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const removeTemp = runTempDir();
  const started: RunningService[] = [];
  if (process.env.CAIRN_TEST_SERVICES === 'none') {
    // For quick runs of pure unit tests (parsers, query language) while developing.
    console.log('[services] CAIRN_TEST_SERVICES=none: no Kafka, Redis or schema registry; tests that need them fail');
    return async () => removeTemp();
  }
  try {
    const t0 = Date.now();
    const results = await Promise.allSettled([startKafka(), startRedis(), startSchemaRegistry()]);
    for (const r of results) if (r.status === 'fulfilled') started.push(r.value);
    const failed = results.find((r) => r.status === 'rejected');
    if (failed) throw failed.reason;
    const [kafka, redis, registry] = started as [RunningService, RunningService, RunningService];
    for (const s of started) console.log(`[services] ${s.name} at ${s.address}: ${s.origin}`);
    console.log(`[services] ready in ${Date.now() - t0} ms`);
    project.provide('kafkaBrokers', kafka.address);
    project.provide('redisUrl', redis.address);
    project.provide('schemaRegistryUrl', registry.address);
  } catch (err) {
    await Promise.allSettled(started.map((s) => s.stop()));
    removeTemp();
    throw err;
  }
  return async () => {
    await Promise.allSettled(started.map((s) => s.stop()));
    removeTemp();
  };
}
