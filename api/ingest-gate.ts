// Backpressure for ingest: while a stage reading artifacts.raw is more than
// `maxLag` messages behind, ingest answers 429 with Retry-After instead of
// queueing without bound. A lag reading is used for up to a second; past
// half of that a request starts the next reading without waiting for it, so
// steady ingest never waits on the bus's offsets (on Kafka two round trips a
// group, which held one request in ten for about 100 ms under load).
import type { Bus } from '../pipeline/bus/index.js';
import { HttpError } from './http-error.js';

export const RETRY_AFTER_SECONDS = 5;
/** A lag reading older than this is waited for. */
const LAG_CACHE_MS = 1000;
/** A lag reading older than this is renewed in the background. */
const LAG_REFRESH_MS = 500;

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
    const age = this.cached ? Date.now() - this.cached.at : Infinity;
    if (this.cached && age < LAG_CACHE_MS) {
      if (age >= LAG_REFRESH_MS) this.reading ??= this.readFromBus();
      return this.cached;
    }
    return (this.reading ??= this.readFromBus());
  }

  private async readFromBus(): Promise<{ lag: number; group: string }> {
    try {
      const lags = await Promise.all(this.groups.map(async (group) => ({ lag: await this.bus.lag(group, this.topic), group })));
      const worst = lags.reduce((a, b) => (b.lag > a.lag ? b : a), { lag: 0, group: '' });
      this.cached = { ...worst, at: Date.now() };
      return worst;
    } catch {
      // A lag reading that fails (a Kafka leader moving, say) must not fail ingest: the last reading stands until one succeeds.
      return this.cached ?? { lag: 0, group: '' };
    } finally {
      this.reading = null;
    }
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
