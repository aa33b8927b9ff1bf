// Hot state on Redis (ioredis). Keys are namespaced by `prefix`.
import { Redis } from 'ioredis';
import type { HotState } from './types.js';

export class RedisState implements HotState {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'cairn:',
  ) {
    this.redis = new Redis(url, { maxRetriesPerRequest: 3, enableOfflineQueue: true, lazyConnect: false });
  }

  private k(key: string): string {
    return this.prefix + key;
  }

  async get(key: string): Promise<string | null> {
    return this.redis.get(this.k(key));
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    if (ttlMs) await this.redis.set(this.k(key), value, 'PX', ttlMs);
    else await this.redis.set(this.k(key), value);
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    const result = ttlMs ? await this.redis.set(this.k(key), value, 'PX', ttlMs, 'NX') : await this.redis.set(this.k(key), value, 'NX');
    return result === 'OK';
  }

  async delete(key: string): Promise<void> {
    await this.redis.del(this.k(key));
  }

  async increment(key: string, by = 1, ttlMs?: number): Promise<number> {
    const tx = this.redis.multi().incrby(this.k(key), by);
    if (ttlMs) tx.pexpire(this.k(key), ttlMs);
    const results = await tx.exec();
    const [err, value] = results?.[0] ?? [new Error('transaction aborted'), null];
    if (err) throw err;
    return Number(value);
  }

  async windowAdd(key: string, member: string, atMs: number, ttlMs?: number): Promise<void> {
    const tx = this.redis.multi().zadd(this.k(key), atMs, member);
    if (ttlMs) tx.pexpire(this.k(key), ttlMs);
    const results = await tx.exec();
    const failed = results?.find(([err]) => err);
    if (failed) throw failed[0];
  }

  async windowMembers(key: string, fromMs: number, toMs: number): Promise<string[]> {
    return this.redis.zrangebyscore(this.k(key), fromMs, toMs);
  }

  async windowTrim(key: string, beforeMs: number): Promise<void> {
    await this.redis.zremrangebyscore(this.k(key), '-inf', `(${beforeMs}`);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
