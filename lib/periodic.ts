// A task run on a timer in the background: first after a pause, then at a
// fixed interval, without keeping the process alive. A failed run is
// reported and the schedule goes on.

export interface PeriodicOptions {
  firstAfterMs: number;
  everyMs: number;
  onError: (err: unknown) => void;
}

/** Starts the schedule; returns its stop function. */
export function runPeriodically(task: () => Promise<unknown>, { firstAfterMs, everyMs, onError }: PeriodicOptions): () => void {
  const run = () => void task().catch(onError);
  const first = setTimeout(run, firstAfterMs);
  const timer = setInterval(run, everyMs);
  first.unref();
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}
