// Messages from every syslog listener go onto the bus in batches: one bus
// send carries up to MAX_BATCH artifacts (a send per message would cost a
// round trip, an fsync or a Kafka request, each). One send is in flight at a
// time and the next batch fills while it is (group commit): under load the
// batches grow by themselves, when idle a message waits BATCH_WAIT_MS at most. A message's promise
// resolves once the bus holds its batch, which is when RELP acknowledges
// it; garbage goes to artifacts.raw.dlq with its reason the same way.
import type { Bus, OutgoingMessage } from '../../pipeline/bus/index.js';
import { DLQ_HEADERS, publish } from '../../pipeline/bus/consume.js';
import { artifactsRaw, type RawArtifact } from '../../topics/index.js';

/** The most messages one bus send carries. */
const MAX_BATCH = 2000;
/** How long a first message waits for others to share its send. */
const BATCH_WAIT_MS = 5;

interface Pending {
  artifacts: RawArtifact[];
  deadLetters: OutgoingMessage[];
  done: Promise<void>;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export class SyslogPublisher {
  private pending: Pending | null = null;
  private timer: NodeJS.Timeout | null = null;
  private sending: Promise<void> | null = null;

  constructor(private readonly bus: Bus) {}

  /** Resolves once the bus holds the artifact. */
  publish(artifact: RawArtifact): Promise<void> {
    const batch = this.batch();
    batch.artifacts.push(artifact);
    this.flushIfFull(batch);
    return batch.done;
  }

  /** Resolves once the dead-letter topic holds the message, with why it is not an artifact. */
  deadLetter(bytes: Buffer, reason: string, listener: string, sender: string): Promise<void> {
    const batch = this.batch();
    batch.deadLetters.push({
      key: null,
      value: bytes,
      headers: {
        [DLQ_HEADERS.reason]: reason,
        [DLQ_HEADERS.stage]: `syslog/${listener}`,
        [DLQ_HEADERS.source]: sender,
        [DLQ_HEADERS.time]: new Date().toISOString(),
      },
    });
    this.flushIfFull(batch);
    return batch.done;
  }

  private batch(): Pending {
    if (this.pending) return this.pending;
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const done = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A batch nobody awaits (UDP counts its outcome in a handler) must not be an unhandled rejection.
    done.catch(() => {});
    this.pending = { artifacts: [], deadLetters: [], done, resolve, reject };
    this.timer = setTimeout(() => this.flush(), BATCH_WAIT_MS);
    return this.pending;
  }

  private flushIfFull(batch: Pending): void {
    if (batch.artifacts.length + batch.deadLetters.length >= MAX_BATCH) this.flush();
  }

  /** Sends the waiting batch now, or as soon as the send in flight has finished. */
  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.sending || !this.pending) return;
    const batch = this.pending;
    this.pending = null;
    this.sending = (async () => {
      if (batch.artifacts.length) await publish(this.bus, artifactsRaw, batch.artifacts);
      if (batch.deadLetters.length) await this.bus.send(artifactsRaw.dlq, batch.deadLetters);
    })()
      .then(batch.resolve, batch.reject)
      .finally(() => {
        this.sending = null;
        // What arrived meanwhile goes at once: it has waited for this send already.
        if (this.pending) this.flush();
      });
  }

  /** Sends what is waiting and resolves once every send has finished (at shutdown, before the bus closes). */
  async drain(): Promise<void> {
    this.flush();
    while (this.sending) {
      await this.sending;
      this.flush();
    }
  }
}
