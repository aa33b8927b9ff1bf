// Worker threads for the analysis step (analyse.ts): decoding, parsing,
// GeoIP and graph extraction of a batch run there, so the main thread keeps
// to the store stage, the ClickHouse writes, the rules and the API. With
// zero workers the step runs on the calling thread (the same code).
import { Piscina } from 'piscina';
import { analyse, type AnalysisResult, type AnalysisTask } from './analyse.js';

type Outcome = AnalysisResult | 'stale';

export interface AnalysisPool {
  run(task: AnalysisTask): Promise<Outcome>;
  close(): Promise<void>;
}

export function createAnalysisPool(workers: number): AnalysisPool {
  if (workers === 0) return { run: analyse, close: async () => {} };
  const pool = new Piscina<AnalysisTask, Outcome>({
    filename: new URL('./worker.mjs', import.meta.url).href,
    minThreads: workers,
    maxThreads: workers,
    idleTimeout: Number.POSITIVE_INFINITY,
    // A worker analyses one chunk at a time (the work is synchronous); the pool queues the rest.
    concurrentTasksPerWorker: 1,
  });
  return {
    run: (task) => pool.run(task),
    close: () => pool.destroy(),
  };
}
