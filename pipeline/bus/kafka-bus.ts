// The distributed bus: Kafka through kafkajs. The only module that imports kafkajs.
import { Kafka, logLevel as KafkaLogLevel, Partitioners, type Admin, type Consumer, type LogEntry, type Producer } from 'kafkajs';
import type { Logger } from '../../lib/logger.js';
import type { Bus, DeliveredMessage, OutgoingMessage, SubscribeOptions, Subscription, TopicSpec } from './types.js';

export interface KafkaBusOptions {
  brokers: string[];
  clientId: string;
  /** Partitions of topics this bus creates; existing topics keep theirs. */
  partitions: number;
  logger: Logger;
  /** Prefixes every topic and consumer group, so deployments can share a cluster. */
  topicPrefix?: string;
  /** How long the broker waits before handing a silent member's partitions to others. */
  sessionTimeoutMs?: number;
}

/** Rough bytes per message, to turn a batch size into a fetch size the broker understands. */
const ESTIMATED_MESSAGE_BYTES = 512;

/** Bytes of message values per produce call. */
const MAX_SEND_BYTES = 768 * 1024;

function chunksByBytes(messages: OutgoingMessage[], maxBytes: number): OutgoingMessage[][] {
  const chunks: OutgoingMessage[][] = [];
  let current: OutgoingMessage[] = [];
  let bytes = 0;
  for (const m of messages) {
    const size = m.value.length + (m.key?.length ?? 0) + 64;
    if (current.length > 0 && bytes + size > maxBytes) {
      chunks.push(current);
      current = [];
      bytes = 0;
    }
    current.push(m);
    bytes += size;
  }
  if (current.length > 0) chunks.push(current);
  return chunks;
}

function kafkaLogger(logger: Logger) {
  return () =>
    ({ level, label, log }: LogEntry) => {
      const { message, ...extra } = log;
      const child = { ...extra, kafka: label };
      if (level === KafkaLogLevel.ERROR) logger.error(child, message);
      else if (level === KafkaLogLevel.WARN) logger.warn(child, message);
      else logger.debug(child, message);
    };
}

export class KafkaBus implements Bus {
  readonly kind = 'kafka' as const;
  private readonly kafka: Kafka;
  private readonly admin: Admin;
  private readonly producer: Producer;
  private connecting: Promise<void> | null = null;
  private readonly subscriptions = new Set<KafkaSubscription>();

  private readonly prefix: string;

  constructor(private readonly options: KafkaBusOptions) {
    this.prefix = options.topicPrefix ?? '';
    this.kafka = new Kafka({
      clientId: options.clientId,
      brokers: options.brokers,
      logLevel: KafkaLogLevel.WARN,
      logCreator: kafkaLogger(options.logger),
      retry: { retries: 8, initialRetryTime: 200, maxRetryTime: 10_000 },
    });
    this.admin = this.kafka.admin();
    this.producer = this.kafka.producer({
      createPartitioner: Partitioners.DefaultPartitioner,
      allowAutoTopicCreation: false,
      idempotent: true,
      maxInFlightRequests: 5,
    });
  }

  private connect(): Promise<void> {
    this.connecting ??= Promise.all([this.admin.connect(), this.producer.connect()]).then(() => undefined);
    return this.connecting;
  }

  async ensureTopics(specs: TopicSpec[]): Promise<void> {
    await this.connect();
    const existing = new Set(await this.admin.listTopics());
    const missing = specs.map((s) => this.prefix + s.name).filter((name) => !existing.has(name));
    if (missing.length === 0) return;
    await this.admin.createTopics({
      waitForLeaders: true,
      topics: missing.map((topic) => ({ topic, numPartitions: this.options.partitions })),
    });
  }

  async send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.connect();
    // One record batch per partition must stay under the broker's
    // message.max.bytes (1 MiB by default), so large sends go in chunks, in order.
    for (const chunk of chunksByBytes(messages, MAX_SEND_BYTES)) {
      await this.producer.send({
        topic: this.prefix + topic,
        acks: -1,
        messages: chunk.map((m) => ({ key: m.key, value: m.value, headers: m.headers })),
      });
    }
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const consumer = this.kafka.consumer({
      groupId: this.prefix + options.group,
      allowAutoTopicCreation: false,
      sessionTimeout: this.options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: Math.min(3000, Math.floor((this.options.sessionTimeoutMs ?? 30_000) / 3)),
      maxWaitTimeInMs: options.maxWaitMs,
      minBytes: Math.min(options.maxBatchSize * ESTIMATED_MESSAGE_BYTES, 1024 * 1024),
      maxBytesPerPartition: Math.max(1024 * 1024, options.maxBatchSize * ESTIMATED_MESSAGE_BYTES * 2),
    });
    const subscription = new KafkaSubscription(consumer, options, this.prefix, () => this.subscriptions.delete(subscription));
    this.subscriptions.add(subscription);
    await subscription.start();
    return subscription;
  }

  async lag(group: string, topic: string): Promise<number> {
    await this.connect();
    const [ends, committed] = await Promise.all([
      this.admin.fetchTopicOffsets(this.prefix + topic),
      this.admin.fetchOffsets({ groupId: this.prefix + group, topics: [this.prefix + topic] }),
    ]);
    const committedByPartition = new Map<number, bigint>();
    for (const p of committed[0]?.partitions ?? []) committedByPartition.set(p.partition, BigInt(p.offset));
    let lag = 0n;
    for (const p of ends) {
      const low = BigInt(p.low);
      const position = committedByPartition.get(p.partition) ?? -1n;
      lag += BigInt(p.high) - (position < low ? low : position);
    }
    return Number(lag);
  }

  async close(): Promise<void> {
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    if (this.connecting) {
      await this.connecting.catch(() => {});
      await Promise.allSettled([this.producer.disconnect(), this.admin.disconnect()]);
    }
  }
}

class KafkaSubscription implements Subscription {
  private readonly stopping = new AbortController();

  constructor(
    private readonly consumer: Consumer,
    private readonly options: SubscribeOptions,
    private readonly prefix: string,
    private readonly onStop: () => void,
  ) {}

  async start(): Promise<void> {
    const { topic, maxBatchSize, handler } = this.options;
    await this.consumer.connect();
    await this.consumer.subscribe({ topics: [this.prefix + topic], fromBeginning: true });
    await this.consumer.run({
      autoCommit: false,
      eachBatchAutoResolve: false,
      eachBatch: async ({ batch, resolveOffset, heartbeat, isRunning, isStale }) => {
        const signal = this.stopping.signal;
        const messages: DeliveredMessage[] = batch.messages.map((m) => ({
          topic,
          partition: batch.partition,
          offset: m.offset,
          key: m.key ? m.key.toString('utf8') : null,
          value: m.value ?? Buffer.alloc(0),
          headers: Object.fromEntries(Object.entries(m.headers ?? {}).map(([k, v]) => [k, Buffer.isBuffer(v) ? v.toString('utf8') : String(v ?? '')])),
          timestamp: Number(m.timestamp),
        }));
        for (let i = 0; i < messages.length; i += maxBatchSize) {
          if (signal.aborted || !isRunning() || isStale()) return; // rest stays uncommitted
          const chunk = messages.slice(i, i + maxBatchSize);
          await handler(chunk, { signal, heartbeat });
          if (signal.aborted || isStale()) return;
          const last = chunk[chunk.length - 1]!.offset;
          resolveOffset(last);
          await this.consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(BigInt(last) + 1n) }]);
          await heartbeat();
        }
      },
    });
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.consumer.disconnect();
    this.onStop();
  }
}
