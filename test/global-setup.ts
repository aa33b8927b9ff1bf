// Starts the real services the tests talk to, once per run, and stops them
import type {} from 'vitest';
// after. Each is found in this order: env URL, Docker, local binary.
import type { TestProject } from 'vitest/node';
import { startKafka } from './services/kafka.js';
import type { RunningService } from './services/process.js';
import { startRedis } from './services/redis.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBrokers: string;
    redisUrl: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started: RunningService[] = [];
  try {
    const t0 = Date.now();
    const [kafka, redis] = await Promise.all([startKafka(), startRedis()]);
    started.push(kafka, redis);
    for (const s of started) console.log(`[services] ${s.name} at ${s.address}: ${s.origin}`);
    console.log(`[services] ready in ${Date.now() - t0} ms`);
    project.provide('kafkaBrokers', kafka.address);
    project.provide('redisUrl', redis.address);
  } catch (err) {
    await Promise.allSettled(started.map((s) => s.stop()));
    throw err;
  }
  return async () => {
    await Promise.allSettled(started.map((s) => s.stop()));
  };
}
