// Worker threads for the analysis step (analyse.ts): decoding, parsing,
// GeoIP and graph extraction of a batch run there, so the main thread keeps
// to the store stage, the ClickHouse writes, the rules and the API. With
// zero workers the step runs on the calling thread (the same code).
import { Piscina } from 'piscina';
import { analyse, type AnalysisResult, type AnalysisTask } from './analyse.js';

type Outcome = AnalysisResult | 'stale';

/**
 * The young generation of each worker's heap. Node 20 gives every isolate 48
 * MiB; Node 24 sizes it from the machine's memory (a 128 MiB new space on 24
 * GiB). On Node 24 as fast as accepted, the default let peak RSS reach
 * 1,656-1,805 MiB, 48 kept it at 1,455-1,549 with the same throughput: a
 * worker's slices die young either way (analyse.ts). 96 on Node 20 gained
 * nothing, 32 on Node 24 saved nothing (bench/README.md, eighth pass).
 */
const WORKER_YOUNG_GENERATION_MB = 48;

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
    resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
  });
  return {
    run: (task) => pool.run(task),
    close: () => pool.destroy(),
  };
}
