// Worker threads for re-parsing (reparse.ts), started when a job's slices
// arrive and ended when none has come for a while: between jobs the stage
// holds no threads. With zero workers the work runs on the calling thread.
import { Piscina } from 'piscina';
import { reparse, type ReparseResult, type ReparseTask } from './reparse.js';

/** How long an idle worker thread is kept for the next slice. */
const IDLE_MS = 60_000;

export interface ReparsePool {
  run(task: ReparseTask): Promise<ReparseResult>;
  close(): Promise<void>;
}

export function createReparsePool(workers: number): ReparsePool {
  if (workers === 0) return { run: async (task) => reparse(task), close: async () => {} };
  const pool = new Piscina<ReparseTask, ReparseResult>({
    filename: new URL('./worker.mjs', import.meta.url).href,
    minThreads: 0,
    maxThreads: workers,
    idleTimeout: IDLE_MS,
    concurrentTasksPerWorker: 1,
  });
  return {
    run: (task) => pool.run(task),
    close: () => pool.destroy(),
  };
}
