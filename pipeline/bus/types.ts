// Our own small bus interface. Stages and the API see only this; kafkajs
// stays behind `kafka-bus.ts` and can be swapped without touching them.

export interface OutgoingMessage {
  key: string | null;
  value: Buffer;
  headers?: Record<string, string>;
}

export interface DeliveredMessage {
  topic: string;
  partition: number;
  /** Decimal string, as Kafka reports it; strictly increasing per partition. */
  offset: string;
  key: string | null;
  value: Buffer;
  headers: Record<string, string>;
  /** Milliseconds since the epoch, when the bus accepted the message. */
  timestamp: number;
}

export interface BatchContext {
  /** Aborted when the subscription stops or loses the partition: do not commit, return soon. */
  signal: AbortSignal;
  /** Keeps group membership alive during long batches (no-op in process). */
  heartbeat(): Promise<void>;
}

/**
 * Handles one batch from one partition. The bus commits the batch's offsets
 * only after this resolves; if it throws (or the signal aborts) nothing is
 * committed and the messages are delivered again.
 */
export type RawBatchHandler = (batch: DeliveredMessage[], ctx: BatchContext) => Promise<void>;

export interface SubscribeOptions {
  /** Consumer group: one per stage. Each group sees every message once it has committed. */
  group: string;
  topic: string;
  /** Upper bound on messages handed to one handler call. */
  maxBatchSize: number;
  /** How long to wait for a batch to fill once a first message is there. */
  maxWaitMs: number;
  handler: RawBatchHandler;
}

export interface Subscription {
  /** Stops fetching, aborts the running batch (uncommitted) and leaves the group. */
  stop(): Promise<void>;
}

export interface TopicSpec {
  name: string;
  /** Groups that consume the topic; the in-process log keeps data until all committed past it. */
  consumers: readonly string[];
}

export interface Bus {
  readonly kind: 'kafka' | 'local';
  /** Creates the topics (and nothing else) if missing. Safe to call again. */
  ensureTopics(topics: TopicSpec[]): Promise<void>;
  /** Resolves once the bus has durably accepted every message (acks=all / fsync). */
  send(topic: string, messages: OutgoingMessage[]): Promise<void>;
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Deletes a consumer group that will not consume again (a deleted
   * exporter's): its committed offsets go, and it no longer holds the
   * in-process log's retention back. A group of that name subscribing later
   * starts as a new one. Refused while the group has members (stop its
   * subscriptions first); a group the bus does not know is already forgotten.
   */
  forgetGroup(group: string): Promise<void>;
  /** Messages in `topic` not yet committed by `group`, summed over partitions. */
  lag(group: string, topic: string): Promise<number>;
  close(): Promise<void>;
}
