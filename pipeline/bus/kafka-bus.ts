// The distributed bus: Kafka through kafkajs. The only module that imports kafkajs.
import { randomInt } from 'node:crypto';
import { Kafka, logLevel as KafkaLogLevel, Partitioners, type Admin, type Consumer, type ICustomPartitioner, type LogEntry, type Message, type Producer } from 'kafkajs';
import { sleep } from '../../lib/backoff.js';
import { errorMessage, isTransientError, TransientError } from '../../lib/errors.js';
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

/** How long start-up waits for the partitions of topics it created to get a leader. */
const TOPIC_LEADER_WAIT_MS = 60_000;

/** Bytes of message values per produce call. */
const MAX_SEND_BYTES = 768 * 1024;

/** How often one send goes again from a new producer after a sequence error before it fails. */
const MAX_PRODUCER_RESETS = 3;

/** Errors after which kafkajs's idempotent producer cannot send again (see KafkaBus.sendNow). */
const SEQUENCE_LOST = new Set(['OUT_OF_ORDER_SEQUENCE_NUMBER', 'UNKNOWN_PRODUCER_ID', 'INVALID_PRODUCER_EPOCH']);

/** The DeleteGroups answer for a group the broker does not know. */
const GROUP_ID_NOT_FOUND = 69;

/** True when `err`, or an error it wraps (kafkajs wraps what its retries give up on), is a protocol error of one of `types`. */
function causedBy(err: unknown, types: ReadonlySet<string>): boolean {
  for (let e = err; e instanceof Error; e = e.cause) {
    const type = (e as { type?: unknown }).type;
    if (typeof type === 'string' && types.has(type)) return true;
    if (e.cause === e) break;
  }
  return false;
}

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

/**
 * Round robin for messages without a key, as kafkajs's DefaultPartitioner
 * does, but each message's partition is chosen once. A broker killed in the
 * middle of a produce request may have written some partitions' batches and
 * not the others (one of six, seen in test/kafka-producer-reset.test.ts).
 * kafkajs sends the request again under the same sequence numbers, but
 * partitions its messages again first: round robin then puts other messages
 * into each partition, and a written partition's new batch, if as long as
 * the first, is taken for its duplicate, answered with success and dropped.
 * With each message's partition kept, the retry's batch is the same batch.
 * Keyed messages keep the hash of their key.
 */
const partitionEachMessageOnce: ICustomPartitioner = () => {
  const byKey = Partitioners.DefaultPartitioner();
  const chosen = new WeakMap<Message, number>();
  let next = randomInt(2 ** 31);
  return (args) => {
    const { message, partitionMetadata } = args;
    if (message.key != null || message.partition != null) return byKey(args);
    let partition = chosen.get(message);
    if (partition === undefined) {
      // Over all partitions, not only those with a leader now: a retry must find the same ones.
      partition = partitionMetadata[next++ % partitionMetadata.length]!.partitionId;
      chosen.set(message, partition);
    }
    return partition;
  };
};

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
  /** Set by close(): sends are refused from then on. */
  private closed = false;
  /** The producer sends go through, connected or connecting; none after a send failed (see sendNow). */
  private producer: Promise<Producer> | null = null;
  private connecting: Promise<void> | null = null;
  private readonly subscriptions = new Set<KafkaSubscription>();
  /** The send running now; the next waits for it (see send). */
  private sending: Promise<void> = Promise.resolve();

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
  }

  private connectedProducer(): Promise<Producer> {
    // A closed bus stays closed: the new producer a failed send brings must not bring it back (as when cairn stops).
    if (this.closed) return Promise.reject(new TransientError('the Kafka bus is closed: cairn is stopping'));
    this.producer ??= (async () => {
      // Idempotent: the broker drops what a retry sends twice. kafkajs sends one produce request per broker at a
      // time for it anyway (a lock per broker), which one request in flight says outright. Its retries are the
      // client's (about 30 s), not endless as kafkajs advises: an ingest request must get an answer while the
      // broker is down. sendNow makes up for what a send that gave up leaves behind.
      const producer = this.kafka.producer({ createPartitioner: partitionEachMessageOnce, allowAutoTopicCreation: false, idempotent: true, maxInFlightRequests: 1 });
      try {
        await producer.connect();
      } catch (err) {
        await producer.disconnect().catch(() => {});
        throw err;
      }
      return producer;
    })();
    return this.producer;
  }

  private connect(): Promise<void> {
    this.connecting ??= Promise.all([this.admin.connect(), this.connectedProducer()]).then(() => undefined);
    return this.connecting;
  }

  async ensureTopics(specs: TopicSpec[]): Promise<void> {
    await this.connect();
    const existing = new Set(await this.admin.listTopics());
    const missing = specs.map((s) => this.prefix + s.name).filter((name) => !existing.has(name));
    if (missing.length === 0) return;
    // Another process may create the same topics at the same moment: createTopics then answers false, which is fine.
    await this.admin.createTopics({
      waitForLeaders: false,
      topics: missing.map((topic) => ({ topic, numPartitions: this.options.partitions })),
    });
    await this.waitForLeaders(missing);
  }

  /**
   * Waits until the leader of every partition of `topics` answers for it.
   * A KRaft broker under load names a partition's leader in its metadata
   * before that leader serves the partition, and answers "does not host this
   * topic-partition" for a while after creating a topic. kafkajs's own wait
   * (createTopics' waitForLeaders) reads only the metadata and gives up on
   * that answer: start-up failed on a busy machine, and a first send could
   * be refused by one partition and taken by another. Reading the partitions'
   * offsets asks each leader itself.
   */
  private async waitForLeaders(topics: string[]): Promise<void> {
    // A client of its own, silent and without retries: this loop is the retry, and kafkajs
    // would log every "not yet" as an error.
    const probe = new Kafka({ clientId: this.options.clientId, brokers: this.options.brokers, logLevel: KafkaLogLevel.NOTHING, retry: { retries: 0 } }).admin();
    await probe.connect();
    try {
      const deadline = Date.now() + TOPIC_LEADER_WAIT_MS;
      for (;;) {
        try {
          await Promise.all(topics.map((topic) => probe.fetchTopicOffsets(topic)));
          return;
        } catch (err) {
          if (!isTransientError(err)) throw err; // "does not host this topic-partition" is retriable, as a dropped connection is
          if (Date.now() > deadline) throw new Error(`topics created, but not ready after ${TOPIC_LEADER_WAIT_MS / 1000} s: ${errorMessage(err)}`, { cause: err });
        }
        await sleep(100);
      }
    } finally {
      await probe.disconnect();
    }
  }

  /**
   * One send at a time through the producer. kafkajs's idempotent producer
   * takes a partition's sequence numbers back when a produce request fails,
   * even one the broker wrote before the connection dropped; a send waiting
   * beside it then gets those numbers, the broker takes its batch for a
   * duplicate of the written one, answers success, and drops it. A broker
   * restarted under concurrent sends lost a batch's share of a partition so
   * (test/kafka-producer-reset.test.ts). Sent one after another, a retried
   * request reuses its own numbers, and sendNow sees that no later send
   * gets them.
   */
  send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    const turn = this.sending.then(() => this.sendNow(topic, messages));
    this.sending = turn.catch(() => {});
    return turn;
  }

  private async sendNow(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (messages.length === 0) return;
    await this.connect();
    // One record batch per partition must stay under the broker's
    // message.max.bytes (1 MiB by default), so large sends go in chunks, in order.
    for (const chunk of chunksByBytes(messages, MAX_SEND_BYTES)) {
      const record = { topic: this.prefix + topic, acks: -1, messages: chunk.map((m) => ({ key: m.key, value: m.value, headers: m.headers })) };
      for (let attempt = 1; ; attempt++) {
        const producer = this.connectedProducer();
        try {
          await (await producer).send(record);
          break;
        } catch (err) {
          this.dropProducer(producer, err);
          if (!causedBy(err, SEQUENCE_LOST) || attempt >= MAX_PRODUCER_RESETS) throw err;
          // kafkajs's idempotent producer never recovers from a sequence error: every later send fails the same way.
          // One comes when a partition refuses part of a send (a leader moving, or a topic just created) and takes
          // the rest (KAFKA-15591).
          this.options.logger.warn({ topic, messages: chunk.length, attempt, err: errorMessage(err) }, "the broker lost track of the producer's sequence numbers; sending the batch again from a new producer");
        }
      }
    }
  }

  /**
   * A producer is not used again after a send through it failed. kafkajs gave
   * the failed request's sequence numbers back, though the broker may have
   * written it (killed before it answered, or answered after kafkajs's
   * retries gave up): the next send would get them, and the broker would
   * take it for a duplicate and drop it while answering success. A new
   * producer gets a new producer id, whose sequences start again. What the
   * broker took from the failed send then arrives twice, which consumers
   * take as they take any redelivery: handlers are idempotent
   * (pipeline/bus/consume.ts).
   */
  private dropProducer(failed: Promise<Producer>, err: unknown): void {
    if (this.producer !== failed) return;
    this.producer = null;
    this.options.logger.warn({ err: errorMessage(err) }, 'a send failed; starting a new producer for the next, as kafkajs would give the next send sequence numbers the broker may hold already');
    void failed.then((producer) => producer.disconnect()).catch(() => {});
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const newConsumer = () => this.kafka.consumer({
      groupId: this.prefix + options.group,
      allowAutoTopicCreation: false,
      sessionTimeout: this.options.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: Math.min(3000, Math.floor((this.options.sessionTimeoutMs ?? 30_000) / 3)),
      maxWaitTimeInMs: options.maxWaitMs,
      minBytes: Math.min(options.maxBatchSize * ESTIMATED_MESSAGE_BYTES, 1024 * 1024),
      maxBytesPerPartition: Math.max(1024 * 1024, options.maxBatchSize * ESTIMATED_MESSAGE_BYTES * 2),
    });
    const subscription = new KafkaSubscription(newConsumer, options, this.prefix, this.options.logger, () => this.subscriptions.delete(subscription));
    this.subscriptions.add(subscription);
    await subscription.start();
    return subscription;
  }

  async forgetGroup(group: string): Promise<void> {
    await this.connect();
    try {
      await this.admin.deleteGroups([this.prefix + group]);
    } catch (err) {
      // One group asked for, so one answer: a group the broker does not know is forgotten already.
      const answers = (err as { groups?: { errorCode: number }[] }).groups ?? [];
      if (answers.length === 1 && answers[0]!.errorCode === GROUP_ID_NOT_FOUND) return;
      throw err;
    }
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
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    if (this.connecting) {
      await this.connecting.catch(() => {});
      await Promise.allSettled([this.producer?.then((producer) => producer.disconnect()), this.admin.disconnect()]);
    }
  }
}

/** What a heartbeat refused by a rebalance says: kafkajs marks these not retriable, as its consumer rejoins by itself. */
const REBALANCE_ERRORS = new Set(['REBALANCE_IN_PROGRESS', 'UNKNOWN_MEMBER_ID', 'ILLEGAL_GENERATION']);

/**
 * A handler's heartbeat. When the group is rebalancing, the batch is no
 * longer this member's to finish: that is transient (the batch comes again,
 * here or to another member), not a failure of the work. A stage that failed
 * its task on any other error (a re-parsing job marked failed) must not fail
 * it on this one.
 */
async function heartbeatOrRedeliver(heartbeat: () => Promise<void>): Promise<void> {
  try {
    await heartbeat();
  } catch (err) {
    const type = (err as { type?: unknown }).type;
    if (typeof type === 'string' && REBALANCE_ERRORS.has(type)) throw new TransientError('the consumer group is rebalancing: the batch will be delivered again', { cause: err });
    throw err;
  }
}

/** How long a subscription waits before it starts a new consumer in place of one kafkajs gave up on. */
const CONSUMER_RESTART_DELAY_MS = 5_000;

class KafkaSubscription implements Subscription {
  private readonly stopping = new AbortController();
  private consumer: Consumer;

  constructor(
    private readonly newConsumer: () => Consumer,
    private readonly options: SubscribeOptions,
    private readonly prefix: string,
    private readonly logger: Logger,
    private readonly onStop: () => void,
  ) {
    this.consumer = newConsumer();
  }

  async start(): Promise<void> {
    const { topic, maxBatchSize, handler } = this.options;
    const consumer = this.consumer;
    // kafkajs starts a crashed consumer again only after errors it counts as retriable. After a broker was down
    // for a while it gave up for good on "Failed to find group coordinator", and the stage consumed nothing more
    // (test/kafka-producer-reset.test.ts): a new consumer takes over then.
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (payload.restart || this.stopping.signal.aborted) return;
      this.logger.warn({ group: this.options.group, topic, err: payload.error.message }, 'kafkajs gave up on a consumer; starting a new one');
      void this.replaceConsumer();
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [this.prefix + topic], fromBeginning: true });
    await consumer.run({
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
          await handler(chunk, { signal, heartbeat: () => heartbeatOrRedeliver(heartbeat) });
          if (signal.aborted || isStale()) return;
          const last = chunk[chunk.length - 1]!.offset;
          resolveOffset(last);
          await consumer.commitOffsets([{ topic: batch.topic, partition: batch.partition, offset: String(BigInt(last) + 1n) }]);
          await heartbeat();
        }
      },
    });
  }

  private async replaceConsumer(): Promise<void> {
    while (!this.stopping.signal.aborted) {
      await sleep(CONSUMER_RESTART_DELAY_MS);
      if (this.stopping.signal.aborted) return;
      await this.consumer.disconnect().catch(() => {});
      this.consumer = this.newConsumer();
      try {
        await this.start();
        return;
      } catch (err) {
        this.logger.warn({ group: this.options.group, topic: this.options.topic, err: errorMessage(err) }, 'a new consumer could not start; trying again');
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await this.consumer.disconnect();
    this.onStop();
  }
}
