// The consumer contract every stage relies on, the same over both buses:
//   - a batch is decoded against its topic's schema; what does not decode is dead-lettered;
//   - the handler's writes finish before the offsets are committed (the bus does that);
//   - a transient failure (see lib/errors.ts) retries the batch with backoff, forever,
//     pausing the stage rather than dropping anything;
//   - any other failure is narrowed down by splitting the batch until the failing
//     messages stand alone; each goes to `<topic>.dlq` with the reason, and the rest land.
// Handlers must be idempotent: a retried or split batch is handled again.
import { performance } from 'node:perf_hooks';
import { backoffDelay, DEFAULT_BACKOFF, sleep, type BackoffOptions } from '../../lib/backoff.js';
import { errorMessage, isTransientError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { TopicDef } from '../../topics/topic.js';
import { pipelineMetrics } from '../metrics.js';
import { noteError } from '../../lib/recent-errors.js';
import type { HotState } from '../state/types.js';
import type { BatchContext, Bus, DeliveredMessage, OutgoingMessage, Subscription } from './types.js';

export interface Envelope<T> {
  value: T;
  message: DeliveredMessage;
}

export interface DeadLetter {
  message: DeliveredMessage;
  reason: string;
}

/** What a handler may return: messages it judged bad without throwing. */
export interface BatchOutcome {
  deadLetters?: DeadLetter[];
}

export interface HandlerContext extends BatchContext {
  /**
   * Some of this batch's writes may be stored already: it is delivered again
   * after a crash or a rebalance, or handled again after a failure. A
   * handler whose writes a replay would double checks what is stored only
   * then. Always true without `writeMarks`.
   */
  mayRepeat: boolean;
}

export type BatchHandler<T> = (batch: Envelope<T>[], ctx: HandlerContext) => Promise<BatchOutcome | void>;

/** Where consume() notes how far a group has started writing, per partition (hot state: durable, shared by a group's members). */
export type WriteMarks = Pick<HotState, 'get' | 'set'>;

interface ConsumeOptionsBase<T> {
  bus: Bus;
  /** Consumer group, named after the stage. */
  group: string;
  handle: BatchHandler<T>;
  logger: Logger;
  maxBatchSize?: number;
  maxWaitMs?: number;
  isTransient?: (err: unknown) => boolean;
  backoff?: BackoffOptions;
  /**
   * Notes, before each batch is handled, the last offset it holds; a batch
   * that starts at or below the note may have been handled before, and its
   * handler is told so (HandlerContext.mayRepeat). Without it every batch
   * may repeat.
   */
  writeMarks?: WriteMarks;
}

/** Messages decoded from JSON and checked against the topic's schema, or by `decode` (throwing dead-letters the message). */
export type ConsumeOptions<T> = ConsumeOptionsBase<T> &
  ({ topic: TopicDef<T>; decode?: (message: DeliveredMessage) => T | Promise<T> } | { topic: Pick<TopicDef, 'name' | 'dlq'>; decode: (message: DeliveredMessage) => T | Promise<T> });

export const DLQ_HEADERS = {
  reason: 'cairn-dlq-reason',
  stage: 'cairn-dlq-stage',
  source: 'cairn-dlq-source',
  time: 'cairn-dlq-time',
} as const;

export function decodeJson<T>(topic: TopicDef<T>): (message: DeliveredMessage) => T {
  return (message) => topic.schema.parse(JSON.parse(message.value.toString('utf8')));
}

/** Serializes and sends typed messages; resolves once the bus holds them durably. */
export async function publish<T>(bus: Bus, topic: TopicDef<T>, values: T[]): Promise<void> {
  await bus.send(
    topic.name,
    values.map((v) => ({ key: topic.key(v), value: Buffer.from(JSON.stringify(v), 'utf8') })),
  );
}

export async function consume<T>(options: ConsumeOptions<T>): Promise<Subscription> {
  const { bus, topic, group, handle, logger } = options;
  const decode = options.decode ?? decodeJson(topic as TopicDef<T>);
  const isTransient = options.isTransient ?? isTransientError;
  const backoff = options.backoff ?? DEFAULT_BACKOFF;
  const labels = { group, topic: topic.name };

  /** Handles a slice; splits it on non-transient failure. Returns the messages to dead-letter. */
  async function isolate(batch: Envelope<T>[], ctx: HandlerContext): Promise<DeadLetter[]> {
    try {
      return (await handle(batch, ctx))?.deadLetters ?? [];
    } catch (err) {
      if (ctx.signal.aborted || isTransient(err)) throw err;
      if (batch.length === 1) return [{ message: batch[0]!.message, reason: errorMessage(err) }];
      logger.warn({ group, topic: topic.name, size: batch.length, err: errorMessage(err) }, 'batch failed; splitting it to isolate the bad messages');
      const middle = Math.ceil(batch.length / 2);
      // The failed attempt may have written part of the batch.
      const again = { ...ctx, mayRepeat: true };
      const first = await isolate(batch.slice(0, middle), again);
      return [...first, ...(await isolate(batch.slice(middle), again))];
    }
  }

  /**
   * Whether a batch may have been handled before: it starts at or below the
   * mark of its partition. Moves the mark to the batch's end before any of
   * its writes, so that a crash after them leaves the batch marked.
   */
  async function mayRepeat(messages: DeliveredMessage[]): Promise<boolean> {
    const marks = options.writeMarks;
    if (!marks) return true;
    const key = `written:${group}:${topic.name}:${messages[0]!.partition}`;
    const mark = await marks.get(key);
    const first = BigInt(messages[0]!.offset);
    const last = BigInt(messages.at(-1)!.offset);
    if (mark === null || BigInt(mark) < last) await marks.set(key, String(last));
    return mark !== null && first <= BigInt(mark);
  }

  async function sendDeadLetters(deadLetters: DeadLetter[]): Promise<void> {
    if (deadLetters.length === 0) return;
    const now = new Date().toISOString();
    const messages: OutgoingMessage[] = deadLetters.map(({ message, reason }) => ({
      key: message.key,
      value: message.value,
      headers: {
        ...message.headers,
        [DLQ_HEADERS.reason]: reason.slice(0, 2000),
        [DLQ_HEADERS.stage]: group,
        [DLQ_HEADERS.source]: `${message.topic}/${message.partition}/${message.offset}`,
        [DLQ_HEADERS.time]: now,
      },
    }));
    await bus.send(topic.dlq, messages);
    pipelineMetrics.deadLettered.inc(labels, deadLetters.length);
    logger.warn({ group, topic: topic.name, count: deadLetters.length, first: deadLetters[0]!.reason }, 'messages dead-lettered');
  }

  return bus.subscribe({
    group,
    topic: topic.name,
    maxBatchSize: options.maxBatchSize ?? 500,
    maxWaitMs: options.maxWaitMs ?? 50,
    handler: async (messages, ctx) => {
      const started = performance.now();
      pipelineMetrics.received.inc(labels, messages.length);
      const decoded: Envelope<T>[] = [];
      const undecodable: DeadLetter[] = [];
      for (const message of messages) {
        try {
          // Await only real promises: a microtask per message shows at tens of thousands a second.
          const value = decode(message);
          decoded.push({ value: value instanceof Promise ? await value : value, message });
        } catch (err) {
          undecodable.push({ message, reason: `cannot decode: ${errorMessage(err)}` });
        }
      }
      let repeats: boolean | null = null;
      for (let attempt = 1; !ctx.signal.aborted; attempt++) {
        try {
          repeats ??= decoded.length > 0 && (await mayRepeat(messages));
          // A retry follows an attempt that may have written part of the batch.
          const failed = decoded.length > 0 ? await isolate(decoded, { ...ctx, mayRepeat: repeats || attempt > 1 }) : [];
          if (ctx.signal.aborted) return;
          await sendDeadLetters([...undecodable, ...failed]);
          pipelineMetrics.handled.inc(labels, messages.length);
          pipelineMetrics.batchSeconds.observe(labels, (performance.now() - started) / 1000);
          return;
        } catch (err) {
          if (ctx.signal.aborted) return;
          const delay = backoffDelay(attempt, backoff);
          pipelineMetrics.retried.inc(labels);
          noteError(group, errorMessage(err));
          logger.warn({ group, topic: topic.name, attempt, delayMs: delay, err: errorMessage(err) }, 'transient failure; retrying the batch');
          await ctx.heartbeat().catch(() => {});
          await sleep(delay, ctx.signal);
        }
      }
    },
  });
}
