// Deterministic ids: the same parts give the same UUIDv5, so replays and
// parallel workers name the same thing the same way.
import { randomFillSync } from 'node:crypto';
import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

/** cairn's UUIDv5 namespace (random, fixed forever). */
export const CAIRN_NAMESPACE = '6f0d3c1e-8a52-4b7e-9c1d-2f4a7e9b5c30';

export function stableId(...parts: string[]): string {
  return uuidv5(parts.join('\u0000'), CAIRN_NAMESPACE);
}

/** Random bytes fetched in bulk: one system call per 1,024 ids instead of one per id (it showed at ingest rates). */
const pool = Buffer.alloc(16 * 1024);
let poolOffset = pool.length;

/** A new UUIDv7: time-ordered, so ids sort by creation. */
export function newId(): string {
  if (poolOffset + 16 > pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const random = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  return uuidv7({ random });
}
