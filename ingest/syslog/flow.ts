// Flow control shared by the listeners: a per-sender rate limit, a watch on
// the pipeline's lag (CAIRN_INGEST_MAX_LAG), and, for a connection, when to
// stop reading it. A stream that stops being read fills the kernel's buffers
// and then the sender's own queue: that is the backpressure TCP, TLS and RELP
// give. UDP cannot push back; what it cannot take is dropped and counted.
import type { Socket } from 'node:net';
import type { IngestLag } from '../../pipeline/ingest-lag.js';
import { syslogMetrics } from './metrics.js';

/** How often the lag is read; a connection stopped for lag looks again this often. */
const LAG_POLL_MS = 250;
/** Senders not heard from for this long are forgotten by the rate limiter. */
const IDLE_SENDER_MS = 60_000;

/** Messages per second per sender address, with a burst of one second's worth. */
export class SenderRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly perSecond: number) {
    this.sweeper = setInterval(() => {
      const cutoff = Date.now() - IDLE_SENDER_MS;
      for (const [sender, bucket] of this.buckets) if (bucket.at < cutoff) this.buckets.delete(sender);
    }, IDLE_SENDER_MS);
    this.sweeper.unref();
  }

  /** Takes `n` messages from the sender's allowance; answers how long the sender must wait for it (0: it may send now). */
  take(sender: string, n: number, now = Date.now()): number {
    const bucket = this.buckets.get(sender) ?? { tokens: this.perSecond, at: now };
    bucket.tokens = Math.min(this.perSecond, bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000) - n;
    bucket.at = now;
    this.buckets.set(sender, bucket);
    return bucket.tokens >= 0 ? 0 : Math.ceil((-bucket.tokens * 1000) / this.perSecond);
  }

  /** Takes one message if the allowance has it (UDP: a message past it is dropped). */
  tryTake(sender: string, now = Date.now()): boolean {
    const bucket = this.buckets.get(sender);
    if (bucket && bucket.tokens + ((now - bucket.at) * this.perSecond) / 1000 < 1) return false;
    this.take(sender, 1, now);
    return true;
  }

  close(): void {
    clearInterval(this.sweeper);
  }
}

/** Whether the pipeline is past CAIRN_INGEST_MAX_LAG, read in the background so every message can ask without waiting. */
export class LagWatch {
  behind = false;
  private readonly timer: NodeJS.Timeout;

  constructor(lag: IngestLag) {
    const read = () =>
      void lag.overLimit(0).then(
        (over) => (this.behind = over !== null),
        () => {},
      );
    read();
    this.timer = setInterval(read, LAG_POLL_MS);
    this.timer.unref();
  }

  close(): void {
    clearInterval(this.timer);
  }
}

/** The most messages of one connection read but not yet on the bus; past it the connection waits. */
export const CONNECTION_WINDOW = 10_000;

/**
 * When a connection reads: it stops while its sender is over the rate limit,
 * while the pipeline is behind, or while too many of its messages wait for
 * the bus, and reads again once none of these holds.
 */
export class ConnectionFlow {
  inFlight = 0;
  private holding = false;
  private wake: (() => void) | null = null;

  constructor(
    private readonly socket: Socket,
    private readonly listener: string,
    private readonly lag: LagWatch,
  ) {}

  /** Called once the bus took `n` of this connection's messages (or refused them). */
  settled(n: number): void {
    this.inFlight -= n;
    if (this.wake && this.inFlight <= CONNECTION_WINDOW / 2) this.wake();
  }

  /** After a chunk was read: stop reading for as long as needed. `rateWaitMs` from SenderRateLimit.take. */
  afterRead(rateWaitMs: number): void {
    if (this.holding) return;
    const reason = rateWaitMs > 0 ? 'rate_limit' : this.lag.behind ? 'lag' : this.inFlight > CONNECTION_WINDOW ? 'window' : null;
    if (!reason) return;
    this.holding = true;
    syslogMetrics.pauses.inc({ listener: this.listener, reason });
    this.socket.pause();
    void this.hold(rateWaitMs).finally(() => {
      this.holding = false;
      if (!this.socket.destroyed) this.socket.resume();
    });
  }

  private async hold(rateWaitMs: number): Promise<void> {
    if (rateWaitMs > 0) await sleep(rateWaitMs);
    while (!this.socket.destroyed && (this.lag.behind || this.inFlight > CONNECTION_WINDOW / 2)) {
      await new Promise<void>((resolve) => {
        this.wake = resolve;
        setTimeout(resolve, LAG_POLL_MS);
      });
      this.wake = null;
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
