// How far behind the pipeline is, for ingest's backpressure: while a stage
// reading artifacts.raw is more than `maxLag` messages behind, ingest stops
// taking more (HTTP answers 429, the syslog listeners stop reading). A lag
// reading is used for up to a second; past half of that a caller starts the
// next reading without waiting for it, so steady ingest never waits on the
// bus's offsets (on Kafka two round trips a group, which held one request in
// ten for about 100 ms under load).
import type { Bus } from './bus/index.js';

/** A lag reading older than this is waited for. */
const LAG_CACHE_MS = 1000;
/** A lag reading older than this is renewed in the background. */
const LAG_REFRESH_MS = 500;

export interface LagReading {
  /** The largest lag over the topic's consumer groups. */
  lag: number;
  /** Whose it is. */
  group: string;
  maxLag: number;
}

export class IngestLag {
  private cached: { at: number; lag: number; group: string } | null = null;
  private reading: Promise<{ lag: number; group: string }> | null = null;

  constructor(
    private readonly bus: Bus,
    private readonly topic: string,
    /** The consumer groups reading the topic in the running topology. */
    private readonly groups: readonly string[],
    /** Read on every call: the appliance config may change it while cairn runs. */
    private readonly maxLag: () => number,
  ) {}

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

  /** The reading when taking `incoming` more messages would put the pipeline past the limit; null when there is room. */
  async overLimit(incoming: number): Promise<LagReading | null> {
    const { lag, group } = await this.readLag();
    const maxLag = this.maxLag();
    return lag + incoming > maxLag ? { lag, group, maxLag } : null;
  }
}
