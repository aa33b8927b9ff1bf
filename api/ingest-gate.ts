// Backpressure for ingest: while a stage reading artifacts.raw is more than
// `maxLag` messages behind, ingest answers 429 with Retry-After instead of
// queueing without bound. Lag is read from the bus at most once a second.
import type { Bus } from '../pipeline/bus/index.js';
import { HttpError } from './http-error.js';

export const RETRY_AFTER_SECONDS = 5;
const LAG_CACHE_MS = 1000;

export class IngestGate {
  private cached: { at: number; lag: number; group: string } | null = null;
  private reading: Promise<{ lag: number; group: string }> | null = null;

  constructor(
    private readonly bus: Bus,
    private readonly topic: string,
    /** The consumer groups reading the topic in the running topology. */
    private readonly groups: readonly string[],
    /** Read on every request: the appliance config may change it while cairn runs. */
    private readonly maxLag: () => number,
  ) {}

  /** The largest lag over the topic's consumer groups, and whose it is. */
  private async readLag(): Promise<{ lag: number; group: string }> {
    if (this.cached && Date.now() - this.cached.at < LAG_CACHE_MS) return this.cached;
    this.reading ??= (async () => {
      try {
        let worst = { lag: 0, group: '' };
        for (const group of this.groups) {
          const lag = await this.bus.lag(group, this.topic);
          if (lag > worst.lag) worst = { lag, group };
        }
        this.cached = { ...worst, at: Date.now() };
        return worst;
      } catch {
        // A lag reading that fails (a Kafka leader moving, say) must not fail ingest: the last reading stands until one succeeds.
        return this.cached ?? { lag: 0, group: '' };
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }

  /** Throws 429 when the pipeline is too far behind to take `incoming` more messages. */
  async admit(incoming: number): Promise<void> {
    const { lag, group } = await this.readLag();
    const maxLag = this.maxLag();
    if (lag + incoming > maxLag) {
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
