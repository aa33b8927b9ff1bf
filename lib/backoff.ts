// Waiting helpers for retries: abortable sleep and exponential backoff with jitter.

/** Resolves after `ms`, or early (without throwing) when the signal aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done);
  });
}

export interface BackoffOptions {
  initialMs: number;
  maxMs: number;
}

export const DEFAULT_BACKOFF: BackoffOptions = { initialMs: 100, maxMs: 10_000 };

/** Delay before retry number `attempt` (1-based): between half and all of min(max, initial * 2^(attempt-1)). */
export function backoffDelay(attempt: number, options: BackoffOptions = DEFAULT_BACKOFF): number {
  const ceiling = Math.min(options.maxMs, options.initialMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
