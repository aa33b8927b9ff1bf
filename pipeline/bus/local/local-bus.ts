// The in-process bus of the embedded default. It keeps Kafka's contract:
// partitions with per-key order, consumer groups with committed offsets,
// at-least-once delivery. Messages and offsets live in append-only files under
// the data dir and are fsync'ed before `send` or a commit returns, so a crash
// loses nothing acknowledged and redelivers what was not committed.
//
// Layout: <dir>/topics/<topic>/<partition>/<base offset>.log and <dir>/offsets.journal.
// One process owns a bus directory at a time, and one subscription per group
// and topic runs in it.
import fs from 'node:fs/promises';
import path from 'node:path';
import { crc32 } from 'node:zlib';
import { sleep } from '../../../lib/backoff.js';
import { TransientError } from '../../../lib/errors.js';
import type { Logger } from '../../../lib/logger.js';
import type { Bus, DeliveredMessage, OutgoingMessage, SubscribeOptions, Subscription, TopicSpec } from '../types.js';
import { OffsetStore } from './offset-store.js';
import { PartitionLog } from './partition-log.js';
import { decodeMessage, encodeMessage } from './record.js';

export interface LocalBusOptions {
  /** Partitions per topic; per-key order holds within one. */
  partitions: number;
  segmentBytes: number;
  logger: Logger;
}

interface LocalTopic {
  partitions: PartitionLog[];
  consumers: Set<string>;
  nextRoundRobin: number;
}

/** Pause after a handler failure the caller did not handle, before redelivering. */
const REDELIVERY_PAUSE_MS = 1000;

export class LocalBus implements Bus {
  readonly kind = 'local' as const;
  private readonly topics = new Map<string, LocalTopic>();
  private readonly subscriptions = new Set<LocalSubscription>();
  private closed = false;

  private constructor(
    private readonly dir: string,
    private readonly offsets: OffsetStore,
    private readonly options: LocalBusOptions,
  ) {}

  static async open(dir: string, options: LocalBusOptions): Promise<LocalBus> {
    await fs.mkdir(path.join(dir, 'topics'), { recursive: true });
    const offsets = await OffsetStore.open(path.join(dir, 'offsets.journal'));
    return new LocalBus(dir, offsets, options);
  }

  async ensureTopics(specs: TopicSpec[]): Promise<void> {
    for (const spec of specs) {
      const existing = this.topics.get(spec.name);
      if (existing) {
        for (const c of spec.consumers) existing.consumers.add(c);
        continue;
      }
      if (!/^[A-Za-z0-9._-]+$/.test(spec.name)) throw new Error(`invalid topic name "${spec.name}"`);
      const topicDir = path.join(this.dir, 'topics', spec.name);
      await fs.mkdir(topicDir, { recursive: true });
      // A topic keeps the partition count it was created with.
      const present = (await fs.readdir(topicDir)).filter((d) => /^\d+$/.test(d)).length;
      const count = Math.max(present, this.options.partitions);
      const partitions: PartitionLog[] = [];
      for (let p = 0; p < count; p++) partitions.push(await PartitionLog.open(path.join(topicDir, String(p)), this.options.segmentBytes));
      this.topics.set(spec.name, { partitions, consumers: new Set(spec.consumers), nextRoundRobin: 0 });
    }
  }

  topic(name: string): LocalTopic {
    const topic = this.topics.get(name);
    if (!topic) throw new Error(`unknown topic "${name}": ensureTopics must create it first`);
    return topic;
  }

  async send(topicName: string, messages: OutgoingMessage[]): Promise<void> {
    // Closed: the process is stopping. A sender should try again (a restarted process takes it), as when a broker is away.
    if (this.closed) throw new TransientError('the in-process bus is closed: cairn is stopping');
    if (messages.length === 0) return;
    const topic = this.topic(topicName);
    const now = Date.now();
    const byPartition = new Map<number, Buffer[]>();
    for (const message of messages) {
      const p =
        message.key === null
          ? topic.nextRoundRobin++ % topic.partitions.length
          : crc32(Buffer.from(message.key, 'utf8')) % topic.partitions.length;
      let bodies = byPartition.get(p);
      if (!bodies) byPartition.set(p, (bodies = []));
      bodies.push(encodeMessage(message, now));
    }
    await Promise.all([...byPartition].map(([p, bodies]) => topic.partitions[p]!.append(bodies)));
  }

  async subscribe(options: SubscribeOptions): Promise<Subscription> {
    const topic = this.topic(options.topic);
    for (const s of this.subscriptions) {
      if (s.group === options.group && s.topic === options.topic) {
        throw new Error(`group "${options.group}" already consumes "${options.topic}" in this process`);
      }
    }
    topic.consumers.add(options.group);
    const subscription = new LocalSubscription(this, options, topic.partitions, this.options.logger, () => this.subscriptions.delete(subscription));
    this.subscriptions.add(subscription);
    subscription.start();
    return subscription;
  }

  committed(group: string, topic: string, partition: number): number | undefined {
    return this.offsets.get(group, topic, partition);
  }

  async commit(group: string, topicName: string, partition: number, nextOffset: number): Promise<void> {
    await this.offsets.commit(group, topicName, partition, nextOffset);
    await this.deleteConsumedSegments(topicName, partition);
  }

  /** Drops segments every declared consumer group has committed past. */
  private async deleteConsumedSegments(topicName: string, partition: number): Promise<void> {
    const topic = this.topic(topicName);
    if (topic.consumers.size === 0) return; // nobody declared: keep (e.g. dead letters, for people)
    let lowest = Infinity;
    for (const group of topic.consumers) lowest = Math.min(lowest, this.offsets.get(group, topicName, partition) ?? 0);
    await topic.partitions[partition]!.deleteBelow(lowest);
  }

  async forgetGroup(group: string): Promise<void> {
    for (const s of this.subscriptions) {
      if (s.group === group) throw new Error(`group "${group}" still consumes "${s.topic}" in this process: stop it first`);
    }
    for (const topic of this.topics.values()) topic.consumers.delete(group);
    const dropped = await this.offsets.forget(group);
    // The group may have been the one holding segments back.
    for (const { topic, partition } of dropped) if (this.topics.has(topic)) await this.deleteConsumedSegments(topic, partition);
  }

  async lag(group: string, topicName: string): Promise<number> {
    const topic = this.topic(topicName);
    let lag = 0;
    topic.partitions.forEach((log, p) => {
      const committed = this.offsets.get(group, topicName, p) ?? log.startOffset;
      lag += Math.max(0, log.durableEnd - committed);
    });
    return lag;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.subscriptions].map((s) => s.stop()));
    for (const topic of this.topics.values()) for (const log of topic.partitions) await log.close();
    await this.offsets.close();
  }
}

/** One group reading one topic: a delivery loop per partition. */
class LocalSubscription implements Subscription {
  private readonly stopping = new AbortController();
  private loops: Promise<void>[] = [];

  constructor(
    private readonly bus: LocalBus,
    private readonly options: SubscribeOptions,
    private readonly partitions: PartitionLog[],
    private readonly logger: Logger,
    private readonly onStop: () => void,
  ) {}

  get group(): string {
    return this.options.group;
  }

  get topic(): string {
    return this.options.topic;
  }

  start(): void {
    this.loops = this.partitions.map((log, p) => this.deliver(log, p));
  }

  private async deliver(log: PartitionLog, partition: number): Promise<void> {
    const { group, topic, maxBatchSize, maxWaitMs, handler } = this.options;
    const signal = this.stopping.signal;
    while (!signal.aborted) {
      const start = this.bus.committed(group, topic, partition) ?? log.startOffset;
      const reader = await log.openReader(start);
      try {
        while (!signal.aborted) {
          await log.waitFor(reader.offset + 1, 60_000, signal);
          if (log.durableEnd <= reader.offset) continue;
          // A first message is there: give the batch a moment to fill.
          await log.waitFor(reader.offset + maxBatchSize, maxWaitMs, signal);
          if (signal.aborted) break;
          const records = await reader.next(maxBatchSize);
          if (records.length === 0) continue;
          const batch: DeliveredMessage[] = records.map(({ offset, body }) => {
            const m = decodeMessage(body);
            return { topic, partition, offset: String(offset), key: m.key, value: m.value, headers: m.headers, timestamp: m.timestamp };
          });
          await handler(batch, { signal, heartbeat: async () => {} });
          if (signal.aborted) break; // stopped mid-batch: leave it uncommitted
          await this.bus.commit(group, topic, partition, records[records.length - 1]!.offset + 1);
        }
      } catch (err) {
        if (signal.aborted) break;
        this.logger.error({ err, group, topic, partition }, 'batch handler failed; redelivering from the last commit');
        await sleep(REDELIVERY_PAUSE_MS, signal);
      } finally {
        await reader.close();
      }
    }
  }

  async stop(): Promise<void> {
    this.stopping.abort();
    await Promise.allSettled(this.loops);
    this.onStop();
  }
}
