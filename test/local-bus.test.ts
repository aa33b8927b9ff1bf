// What only the in-process bus has to prove: its files keep what it
// acknowledged through a crash, and it frees what every stage has read.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalBus } from '../pipeline/bus/local/local-bus.js';
import type { DeliveredMessage } from '../pipeline/bus/types.js';
import { busSettings, eventually, testLogger } from './helpers/buses.js';

const open: LocalBus[] = [];
afterEach(async () => {
  for (const bus of open.splice(0)) await bus.close();
});

async function openLocal(dir: string, segmentBytes = 64 * 1024 * 1024): Promise<LocalBus> {
  const bus = await LocalBus.open(dir, { partitions: 1, segmentBytes, logger: testLogger });
  open.push(bus);
  return bus;
}

async function readAll(bus: LocalBus, topic: string, group: string, expected: number): Promise<DeliveredMessage[]> {
  const seen: DeliveredMessage[] = [];
  const sub = await bus.subscribe({ group, topic, maxBatchSize: 500, maxWaitMs: 5, handler: async (b) => void seen.push(...b) });
  await eventually(() => expect(seen.length).toBeGreaterThanOrEqual(expected));
  await sub.stop();
  return seen;
}

function segmentFiles(dir: string, topic: string): string[] {
  return fs.readdirSync(path.join(dir, 'topics', topic, '0')).filter((f) => f.endsWith('.log'));
}

describe('in-process bus files', () => {
  it('keeps every acknowledged message when the process is killed mid-write', async () => {
    const dir = busSettings('local').location;
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'helpers', 'bus-producer-child.ts'), dir, 'crash.test'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let lastAcked = -1;
    child.stdout.on('data', (d: Buffer) => {
      for (const m of d.toString().matchAll(/ACKED (\d+)/g)) lastAcked = Number(m[1]);
    });
    await eventually(() => expect(lastAcked).toBeGreaterThan(2000), 30_000);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;

    expect(segmentFiles(dir, 'crash.test').length).toBeGreaterThan(1); // the kill also crossed segment files
    const bus = await openLocal(dir);
    await bus.ensureTopics([{ name: 'crash.test', consumers: ['reader'] }]);
    const seen = await readAll(bus, 'crash.test', 'reader', lastAcked + 1);
    const values = seen.map((m) => Number(m.value.toString()));
    // Everything acknowledged is there, in order, without gaps; a little more may be too.
    expect(values.slice(0, lastAcked + 1)).toEqual(Array.from({ length: lastAcked + 1 }, (_, i) => i));
  });

  it('cuts a torn record off the tail on open and keeps the rest', async () => {
    const dir = busSettings('local').location;
    let bus = await openLocal(dir);
    await bus.ensureTopics([{ name: 'torn.test', consumers: ['reader'] }]);
    await bus.send('torn.test', [1, 2, 3].map((n) => ({ key: null, value: Buffer.from(String(n)) })));
    await bus.close();
    open.splice(0);
    const [segment] = segmentFiles(dir, 'torn.test');
    fs.appendFileSync(path.join(dir, 'topics', 'torn.test', '0', segment!), Buffer.from([0, 0, 0, 40, 1, 2, 3])); // half a frame

    bus = await openLocal(dir);
    await bus.ensureTopics([{ name: 'torn.test', consumers: ['reader'] }]);
    await bus.send('torn.test', [{ key: null, value: Buffer.from('4') }]);
    const seen = await readAll(bus, 'torn.test', 'reader', 4);
    expect(seen.map((m) => m.value.toString())).toEqual(['1', '2', '3', '4']);
    expect(seen.map((m) => m.offset)).toEqual(['0', '1', '2', '3']);
  });

  it('deletes a segment only after every consuming stage has committed past it', async () => {
    const dir = busSettings('local').location;
    const bus = await openLocal(dir, 4096);
    await bus.ensureTopics([{ name: 'retention.test', consumers: ['store', 'parser'] }]);
    for (let i = 0; i < 20; i++) {
      await bus.send('retention.test', Array.from({ length: 20 }, () => ({ key: null, value: Buffer.alloc(100, 1) })));
    }
    const before = segmentFiles(dir, 'retention.test').length;
    expect(before).toBeGreaterThan(5);

    await readAll(bus, 'retention.test', 'store', 400);
    expect(segmentFiles(dir, 'retention.test')).toHaveLength(before);
    expect(await bus.lag('parser', 'retention.test')).toBe(400);

    await readAll(bus, 'retention.test', 'parser', 400);
    await eventually(() => expect(segmentFiles(dir, 'retention.test')).toHaveLength(1));
    expect(await bus.lag('store', 'retention.test')).toBe(0);
  });
});

describe('forgetting a consumer group', () => {
  it('drops its offsets for good and its hold on retention; a group of that name starts again from the oldest message', async () => {
    const dir = busSettings('local').location;
    const bus = await openLocal(dir, 4096);
    await bus.ensureTopics([{ name: 'forget.test', consumers: ['store'] }]);
    const send = () => bus.send('forget.test', Array.from({ length: 20 }, () => ({ key: null, value: Buffer.alloc(100, 1) })));
    for (let i = 0; i < 10; i++) await send();
    // A group that read the first half and stopped (as an exporter that was deleted).
    const seen: DeliveredMessage[] = [];
    const sub = await bus.subscribe({ group: 'exporter-gone', topic: 'forget.test', maxBatchSize: 100, maxWaitMs: 5, handler: async (b) => void seen.push(...b) });
    await eventually(() => expect(seen.length).toBe(200));
    await expect(bus.forgetGroup('exporter-gone')).rejects.toThrow(/still consumes "forget.test" in this process/);
    await sub.stop();
    for (let i = 0; i < 10; i++) await send();
    await readAll(bus, 'forget.test', 'store', 400);
    const held = segmentFiles(dir, 'forget.test').length;
    expect(held).toBeGreaterThan(2); // the stopped group holds back what it did not read
    expect(bus.committed('exporter-gone', 'forget.test', 0)).toBeGreaterThan(0);

    await bus.forgetGroup('exporter-gone');
    expect(bus.committed('exporter-gone', 'forget.test', 0)).toBeUndefined();
    expect(segmentFiles(dir, 'forget.test')).toHaveLength(1); // only the store group counts now
    await bus.forgetGroup('never-subscribed'); // an unknown group is forgotten already

    // Reopened, the journal still has it forgotten; a new group of that name reads from the oldest message kept.
    await bus.close();
    open.splice(open.indexOf(bus), 1);
    const reopened = await openLocal(dir, 4096);
    await reopened.ensureTopics([{ name: 'forget.test', consumers: ['store'] }]);
    expect(reopened.committed('exporter-gone', 'forget.test', 0)).toBeUndefined();
    const start = reopened.topic('forget.test').partitions[0]!.startOffset;
    expect(await reopened.lag('exporter-gone', 'forget.test')).toBe(400 - start);
    const again = await readAll(reopened, 'forget.test', 'exporter-gone', 400 - start);
    expect(again[0]!.offset).toBe(String(start));
  });
});
