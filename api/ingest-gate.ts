// Backpressure for HTTP ingest: while the pipeline is too far behind
// (pipeline/ingest-lag.ts), ingest answers 429 with Retry-After instead of
// queueing without bound.
import { IngestLag } from '../pipeline/ingest-lag.js';
import { HttpError } from './http-error.js';

export const RETRY_AFTER_SECONDS = 5;

export class IngestGate extends IngestLag {
  /** Throws 429 when the pipeline is too far behind to take `incoming` more messages. */
  async admit(incoming: number): Promise<void> {
    const over = await this.overLimit(incoming);
    if (over) {
      const { lag, group, maxLag } = over;
      throw new HttpError(
        429,
        'too_many_requests',
        `the pipeline is behind (stage "${group}" has ${lag} artifacts to process, the limit is ${maxLag}); retry after ${RETRY_AFTER_SECONDS} s`,
        { lag, stage: group, max_lag: maxLag, retry_after_seconds: RETRY_AFTER_SECONDS },
        { 'Retry-After': String(RETRY_AFTER_SECONDS) },
      );
    }
  }
}
