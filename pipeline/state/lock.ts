// A lock in hot state: it holds across every process that shares the state
// (Redis in distributed mode; the embedded process's journal), which a mutex
// in memory would not. Held under a random token with a lease, so a process
// that dies holding it frees it when the lease ends.
import { sleep } from '../../lib/backoff.js';
import { newId } from '../../lib/ids.js';
import type { HotState } from './types.js';

export class LockBusy extends Error {
  constructor(readonly key: string) {
    super(`lock ${key} is held by another request`);
    this.name = 'LockBusy';
  }
}

export interface LockOptions {
  /** How long the lock lasts if the holder never frees it: longer than `work` can run. */
  leaseMs: number;
  /** How long to wait for a holder to finish before giving up with LockBusy. */
  waitMs: number;
}

const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 250;

/** Runs `work` holding `key`; waits (polling) while another holds it. */
export async function withLock<T>(state: HotState, key: string, options: LockOptions, work: () => Promise<T>): Promise<T> {
  const token = newId();
  const deadline = Date.now() + options.waitMs;
  for (let pause = FIRST_POLL_MS; !(await state.setIfAbsent(key, token, options.leaseMs)); pause = Math.min(pause * 2, MAX_POLL_MS)) {
    if (Date.now() >= deadline) throw new LockBusy(key);
    await sleep(pause);
  }
  try {
    return await work();
  } finally {
    // Only our own: past its lease the key may be another holder's. (Read then delete is not atomic; the lease is set long enough that it has not ended here.)
    if ((await state.get(key)) === token) await state.delete(key);
  }
}
