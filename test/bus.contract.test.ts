// The consumer contract (pipeline/README.md), proven once against each bus:
// the in-process log and a real Kafka broker.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { TransientError } from '../lib/errors.js';
import { consume, DLQ_HEADERS, publish, type Envelope } from '../pipeline/bus/consume.js';
import type { Bus, DeliveredMessage, Subscription } from '../pipeline/bus/types.js';
import { defineTopic, type TopicDef } from '../topics/topic.js';
import { z } from 'zod';
import { BUS_KINDS, busSettings, eventually, KAFKA_SESSION_TIMEOUT_MS, openBus, testLogger, uniqueName, type BusKind, type BusSettings } from './helpers/buses.js';

const Item = z.object({ n: z.number().int(), key: z.string() });
type Item = z.infer<typeof Item>;

function itemTopic(): TopicDef<Item> {
  return defineTopic<Item>({ name: uniqueName('test.items'), schema: Item, key: (m) => m.key });
}

const FAST_BACKOFF = { initialMs: 10, maxMs: 50 };

describe.each(BUS_KINDS)('bus contract: %s', (kind: BusKind) => {
  const open: { bus: Bus; subs: Subscription[] }[] = [];

  async function setUp(partitions = 1): Promise<{ bus: Bus; settings: BusSettings; group: string; topic: TopicDef<Item> }> {
    const settings = busSettings(kind, partitions);
    const bus = await openBus(settings);
    const group = uniqueName('test-group');
    const topic = itemTopic();
    await bus.ensureTopics([
      { name: topic.name, consumers: [group] },
      { name: topic.dlq, consumers: [] },
    ]);
    open.push({ bus, subs: [] });
    return { bus, settings, group, topic };
  }

  function track(bus: Bus, sub: Subscription): Subscription {
    open.find((o) => o.bus === bus)?.subs.push(sub);
    return sub;
  }

  afterEach(async () => {
    for (const { bus, subs } of open.splice(0)) {
      await Promise.all(subs.map((s) => s.stop()));
      await bus.close();
    }
  });

  it('delivers messages in batches, each once, in order', async () => {
    const { bus, group, topic } = await setUp();
    await publish(bus, topic, Array.from({ length: 100 }, (_, n) => ({ n, key: 'k' })));
    const batches: number[][] = [];
    track(
      bus,
      await consume({
        bus,
        topic,
        group,
        logger: testLogger,
        maxBatchSize: 30,
        maxWaitMs: 200,
        handle: async (batch) => void batches.push(batch.map((e) => e.value.n)),
      }),
    );
    await eventually(() => expect(batches.flat()).toHaveLength(100));
    expect(batches.flat()).toEqual(Array.from({ length: 100 }, (_, n) => n));
    expect(Math.max(...batches.map((b) => b.length))).toBeGreaterThan(1);
    expect(batches.every((b) => b.length <= 30)).toBe(true);
  });

  it('redelivers what a killed consumer did not commit, and not what it did', async () => {
    const { bus, settings, group, topic } = await setUp();
    await publish(bus, topic, Array.from({ length: 20 }, (_, n) => ({ n, key: 'k' })));
    if (kind === 'local') await bus.close(); // one process owns a local bus folder at a time

    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(import.meta.dirname, 'helpers', 'bus-child.ts'), JSON.stringify({ kind, location: settings.location, topic: topic.name, group, maxBatchSize: 5, sessionTimeoutMs: KAFKA_SESSION_TIMEOUT_MS })],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    await eventually(() => expect(output).toContain('HANGING'), 45_000);
    expect(output).toContain('HANDLED 0-4');
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    const again = kind === 'local' ? await openBus(settings) : bus;
    if (kind === 'local') {
      await again.ensureTopics([{ name: topic.name, consumers: [group] }, { name: topic.dlq, consumers: [] }]);
      open.push({ bus: again, subs: [] });
    }
    const seen: number[] = [];
    track(again, await consume({ bus: again, topic, group, logger: testLogger, maxBatchSize: 50, handle: async (batch) => void seen.push(...batch.map((e) => e.value.n)) }));
    await eventually(() => expect(seen).toHaveLength(15), 45_000);
    expect(seen).toEqual(Array.from({ length: 15 }, (_, i) => i + 5));
    expect(await again.lag(group, topic.name)).toBe(0);
  });

  it('sends a message its handler rejects to the DLQ with the reason, and goes on', async () => {
    const { bus, group, topic } = await setUp();
    await publish(bus, topic, Array.from({ length: 10 }, (_, n) => ({ n, key: 'k' })));
    await bus.send(topic.name, [{ key: 'k', value: Buffer.from('not json at all') }]);
    await publish(bus, topic, [{ n: 10, key: 'k' }]);

    const handled: number[] = [];
    track(
      bus,
      await consume({
        bus,
        topic,
        group,
        logger: testLogger,
        maxBatchSize: 100,
        maxWaitMs: 200,
        backoff: FAST_BACKOFF,
        handle: async (batch) => {
          if (batch.some((e) => e.value.n === 7)) throw new Error('seven is poison');
          handled.push(...batch.map((e) => e.value.n));
        },
      }),
    );
    const dead: DeliveredMessage[] = [];
    track(bus, await bus.subscribe({ group: uniqueName('dlq-reader'), topic: topic.dlq, maxBatchSize: 100, maxWaitMs: 10, handler: async (batch) => void dead.push(...batch) }));

    await eventually(() => expect(new Set(handled)).toEqual(new Set([0, 1, 2, 3, 4, 5, 6, 8, 9, 10])));
    await eventually(() => expect(dead).toHaveLength(2));
    const poison = dead.find((m) => m.headers[DLQ_HEADERS.reason] === 'seven is poison')!;
    expect(JSON.parse(poison.value.toString())).toEqual({ n: 7, key: 'k' });
    expect(poison.headers[DLQ_HEADERS.stage]).toBe(group);
    expect(poison.key).toBe('k');
    const undecodable = dead.find((m) => m.value.toString() === 'not json at all')!;
    expect(undecodable.headers[DLQ_HEADERS.reason]).toMatch(/^cannot decode/);
    expect(undecodable.headers[DLQ_HEADERS.source]).toMatch(new RegExp(`^${topic.name.replace(/\./g, '\\.')}/0/\\d+$`));
    await eventually(async () => expect(await bus.lag(group, topic.name)).toBe(0));
  });

  it('retries a transient failure with backoff instead of dead-lettering', async () => {
    const { bus, group, topic } = await setUp();
    await publish(bus, topic, [{ n: 1, key: 'k' }]);
    let attempts = 0;
    const handled: number[] = [];
    const dead: DeliveredMessage[] = [];
    track(bus, await bus.subscribe({ group: uniqueName('dlq-reader'), topic: topic.dlq, maxBatchSize: 10, maxWaitMs: 10, handler: async (b) => void dead.push(...b) }));
    track(
      bus,
      await consume({
        bus,
        topic,
        group,
        logger: testLogger,
        backoff: FAST_BACKOFF,
        handle: async (batch) => {
          if (++attempts < 4) throw new TransientError('store unavailable');
          handled.push(...batch.map((e) => e.value.n));
        },
      }),
    );
    await eventually(() => expect(handled).toEqual([1]));
    expect(attempts).toBe(4);
    expect(dead).toHaveLength(0);
  });

  it('keeps the order of messages with the same key across partitions', async () => {
    const { bus, group, topic } = await setUp(3);
    const keys = ['alpha', 'bravo', 'charlie', 'delta'];
    for (let round = 0; round < 5; round++) {
      // Several sends, so the order must hold across produce calls, not just within one.
      await publish(bus, topic, Array.from({ length: 40 }, (_, i) => ({ n: round * 10 + Math.floor(i / keys.length), key: keys[i % keys.length]! })));
    }
    const byKey = new Map<string, number[]>();
    const partitionsSeen = new Set<number>();
    track(
      bus,
      await consume({
        bus,
        topic,
        group,
        logger: testLogger,
        maxBatchSize: 7,
        handle: async (batch: Envelope<Item>[]) => {
          for (const { value, message } of batch) {
            partitionsSeen.add(message.partition);
            byKey.set(value.key, [...(byKey.get(value.key) ?? []), value.n]);
          }
        },
      }),
    );
    await eventually(() => expect([...byKey.values()].flat()).toHaveLength(200));
    for (const key of keys) {
      const ns = byKey.get(key)!;
      expect(ns).toEqual([...ns].sort((a, b) => a - b));
      expect(ns).toHaveLength(50);
    }
    expect(partitionsSeen.size).toBeGreaterThan(1);
  });

  it('forgets a group: refused while it has members; after, its offsets are gone and a group of that name reads from the start', async () => {
    const { bus, group, topic } = await setUp();
    await publish(bus, topic, Array.from({ length: 20 }, (_, n) => ({ n, key: 'k' })));
    const seen: number[] = [];
    const sub = await consume({ bus, topic, group, logger: testLogger, maxBatchSize: 50, maxWaitMs: 20, handle: async (batch) => void seen.push(...batch.map((e) => e.value.n)) });
    await eventually(async () => expect(await bus.lag(group, topic.name)).toBe(0), 30_000, 100);
    await expect(bus.forgetGroup(group)).rejects.toThrow();
    await sub.stop();

    await bus.forgetGroup(group);
    expect(await bus.lag(group, topic.name)).toBe(20);
    await bus.forgetGroup(uniqueName('never-seen')); // a group the bus does not know is forgotten already
    const again: number[] = [];
    track(bus, await consume({ bus, topic, group, logger: testLogger, maxBatchSize: 50, maxWaitMs: 20, handle: async (batch) => void again.push(...batch.map((e) => e.value.n)) }));
    await eventually(() => expect(again).toHaveLength(20), 30_000, 100);
    expect(again).toEqual(seen);
  });
});
