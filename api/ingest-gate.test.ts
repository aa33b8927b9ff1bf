// The ingest gate on the in-process bus, whose lag reading is made slow
// here: steady ingest must not wait for a reading, and a stale one (after a
// pause) must be waited for, so a lag that grew while idle still refuses.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LocalBus } from '../pipeline/bus/local/local-bus.js';
import { testLogger } from '../test/helpers/buses.js';
import { HttpError } from './http-error.js';
import { IngestGate } from './ingest-gate.js';

const TOPIC = 'artifacts.raw';
const READ_MS = 300;
const buses: LocalBus[] = [];
afterEach(async () => {
  for (const bus of buses.splice(0)) await bus.close();
});

/** A real in-process bus whose lag takes READ_MS to read; counts the readings started, in flight and at most at once. */
async function slowLagBus(): Promise<{ bus: LocalBus; readings: { started: number; inFlight: number; most: number } }> {
  const bus = await LocalBus.open(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-gate-')), { partitions: 1, segmentBytes: 1 << 20, logger: testLogger });
  buses.push(bus);
  await bus.ensureTopics([{ name: TOPIC, consumers: ['store', 'analysis'] }]);
  const readings = { started: 0, inFlight: 0, most: 0 };
  const lag = bus.lag.bind(bus);
  bus.lag = async (group, topic) => {
    readings.started++;
    readings.most = Math.max(readings.most, ++readings.inFlight);
    try {
      await new Promise((r) => setTimeout(r, READ_MS));
      return await lag(group, topic);
    } finally {
      readings.inFlight--;
    }
  };
  return { bus, readings };
}

async function send(bus: LocalBus, count: number): Promise<void> {
  await bus.send(TOPIC, Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`{"n":${i}}`) })));
}

describe('IngestGate', () => {
  it('reads both groups side by side, renews a reading in the background, and waits for one only when it is stale', async () => {
    const { bus, readings } = await slowLagBus();
    const gate = new IngestGate(bus, TOPIC, ['store', 'analysis'], () => 10);

    // The first request has no reading to use: it waits for one, both groups read at once.
    await gate.admit(1);
    expect(readings).toEqual({ started: 2, inFlight: 0, most: 2 });

    // Past half a second the reading is renewed, but the request goes on with the one it has.
    await new Promise((r) => setTimeout(r, 600));
    await send(bus, 8);
    await gate.admit(1);
    expect(readings).toMatchObject({ started: 4, inFlight: 2 });
    await new Promise((r) => setTimeout(r, 2 * READ_MS + 100));

    // The renewed reading holds the 8 unread messages: 8 + 5 is over the limit of 10.
    await expect(gate.admit(5)).rejects.toMatchObject({ status: 429, details: { lag: 8, max_lag: 10 } });

    // After a pause longer than a second the reading is stale: the request waits for a new one, which sees 12.
    await new Promise((r) => setTimeout(r, 1100));
    await send(bus, 4);
    const refused = await gate.admit(1).catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(HttpError);
    expect(refused).toMatchObject({ status: 429, details: { lag: 12 } });
    expect(readings.inFlight).toBe(0);
  });
});
