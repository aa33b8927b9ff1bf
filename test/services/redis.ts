// A Redis server for tests: CAIRN_TEST_REDIS_URL if set, else a container if
// Docker runs, else the local `redis-server` binary (Debian package redis-server).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { dockerAvailable } from './docker.js';
import { commandExists, freePort, spawnLogged, stopProcess, waitFor, type RunningService } from './process.js';

async function redisAnswers(url: string): Promise<void> {
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {}); // a refused probe is expected while the server starts
  try {
    await client.connect();
    await client.ping();
  } finally {
    client.disconnect();
  }
}

export async function startRedis(): Promise<RunningService> {
  const fromEnv = process.env.CAIRN_TEST_REDIS_URL;
  if (fromEnv) {
    await waitFor('Redis from CAIRN_TEST_REDIS_URL', () => redisAnswers(fromEnv), 15_000);
    return { name: 'redis', address: fromEnv, origin: 'CAIRN_TEST_REDIS_URL', stop: async () => {} };
  }
  if (await dockerAvailable()) {
    const { RedisContainer } = await import('@testcontainers/redis');
    const container = await new RedisContainer('redis:7.4-alpine').start();
    return { name: 'redis', address: container.getConnectionUrl(), origin: 'Docker (testcontainers, redis:7.4-alpine)', stop: async () => void (await container.stop()) };
  }
  if (!commandExists('redis-server')) throw new Error('Redis tests need Docker or redis-server (apt-get install redis-server), or CAIRN_TEST_REDIS_URL');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-redis-'));
  const port = await freePort();
  const logFile = path.join(dir, 'redis.log');
  const child = spawnLogged('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', dir], logFile);
  const url = `redis://127.0.0.1:${port}`;
  await waitFor('redis-server', () => redisAnswers(url), 15_000, child, logFile);
  return {
    name: 'redis',
    address: url,
    origin: `local redis-server (pid ${child.pid})`,
    async stop() {
      await stopProcess(child);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
