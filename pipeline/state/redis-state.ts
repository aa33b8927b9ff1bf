// Hot state on Redis (ioredis). Keys are namespaced by `prefix`.
import { Redis } from 'ioredis';
import type { HotState } from './types.js';

/** Redis writes the infinite scores as -inf and +inf. */
function score(ms: number): string {
  if (ms === Infinity) return '+inf';
  if (ms === -Infinity) return '-inf';
  return String(ms);
}

export class RedisState implements HotState {
  private readonly redis: Redis;

  constructor(
    url: string,
    private readonly prefix = 'cairn:',
  ) {
    // Auto-pipelining sends the commands issued in one tick together: a batch's window updates cost one round trip.
    this.redis = new Redis(url, { maxRetriesPerRequest: 3, enableOfflineQueue: true, lazyConnect: false, enableAutoPipelining: true });
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
    return this.redis.zrangebyscore(this.k(key), score(fromMs), score(toMs));
  }

  async windowEntries(key: string, fromMs: number, toMs: number, limit?: number): Promise<{ member: string; at: number }[]> {
    const flat =
      limit === undefined
        ? await this.redis.zrangebyscore(this.k(key), score(fromMs), score(toMs), 'WITHSCORES')
        : await this.redis.zrangebyscore(this.k(key), score(fromMs), score(toMs), 'WITHSCORES', 'LIMIT', 0, limit);
    const entries: { member: string; at: number }[] = [];
    for (let i = 0; i < flat.length; i += 2) entries.push({ member: flat[i]!, at: Number(flat[i + 1]) });
    return entries;
  }

  async windowTime(key: string, member: string): Promise<number | null> {
    const at = await this.redis.zscore(this.k(key), member);
    return at === null ? null : Number(at);
  }

  async windowStats(key: string): Promise<{ count: number; first: number; last: number } | null> {
    const results = await this.redis.multi().zcard(this.k(key)).zrange(this.k(key), '0', '0', 'WITHSCORES').zrange(this.k(key), '-1', '-1', 'WITHSCORES').exec();
    const failed = results?.find(([err]) => err);
    if (!results || failed) throw failed?.[0] ?? new Error('transaction aborted');
    const count = Number(results[0]![1]);
    if (count === 0) return null;
    const first = results[1]![1] as string[];
    const last = results[2]![1] as string[];
    return { count, first: Number(first[1]), last: Number(last[1]) };
  }

  async windowTrim(key: string, beforeMs: number): Promise<void> {
    await this.redis.zremrangebyscore(this.k(key), '-inf', `(${beforeMs}`);
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }
}
