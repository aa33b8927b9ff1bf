// The Kafka producer-reset path (pipeline/bus/kafka-bus.ts replaceProducer):
// a broker restarted while artifacts stream in leaves kafkajs's idempotent
// producer with sequence numbers the broker no longer accepts; the bus
// starts a new producer and sends the batch again. Every artifact the bus
// acknowledged is in the topic, and the store stage stores each once.
//
// Before the bus sent one batch at a time (kafka-bus.ts send), this lost a
// batch's share of a partition that the bus had acknowledged: four senders
// share the producer, as concurrent ingest requests do.
//
// A broker of its own (the shared one serves the other tests), stopped
// (SIGTERM) and started again on the same port and data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, SqlParams } from '../clickhouse/sql.js';
import { newId } from '../lib/ids.js';
import { publish } from '../pipeline/bus/consume.js';
import { artifactsRaw, type RawArtifact } from '../topics/index.js';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { startLocalBroker, type LocalBroker } from './services/kafka.js';

const RESET_LOGGED = 'sending the batch again from a new producer';
const SENDERS = 4;
const BATCH = 100;
const MAX_RESTARTS = 6;

describe('Kafka producer reset, broker restarted under load', () => {
  let broker: LocalBroker;
  let api: TestApi;
  const logLines: string[] = [];

  beforeAll(async () => {
    broker = await startLocalBroker();
    api = await startTestApi({ distributed: true, stages: ['store'], logLines, env: { CAIRN_KAFKA_BROKERS: broker.address, CAIRN_KAFKA_PARTITIONS: '6' } });
  }, 180_000);
  afterAll(async () => {
    await api?.close();
    await broker?.stop();
  }, 60_000);

  it('loses nothing and stores nothing twice', async () => {
    const token = api.token('all');
    const orgId = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { org_id: string }).org_id;
    const acknowledged: string[] = [];
    let failedSends = 0;
    let sending = true;
    // Each sender sends a batch until the bus takes it (the same artifacts, as a sensor sends again after a 503).
    const sender = async (worker: number) => {
      for (let n = 0; sending; n++) {
        // With a timestamp, as the API gives every artifact: a copy sent again is then the same row.
        const timestamp = new Date().toISOString();
        const batch: RawArtifact[] = Array.from({ length: BATCH }, (_, i) => ({ id: newId(), org_id: orgId, source: 'reset', raw: `sender ${worker} batch ${n} line ${i}`, timestamp }));
        for (;;) {
          try {
            await publish(api.runtime.bus, artifactsRaw, batch);
            break;
          } catch {
            failedSends++;
            await new Promise((r) => setTimeout(r, 250));
          }
        }
        acknowledged.push(...batch.map((a) => a.id!));
      }
    };
    const senders = Array.from({ length: SENDERS }, (_, w) => sender(w));
    const resets = () => logLines.filter((l) => l.includes(RESET_LOGGED)).length;

    let restarts = 0;
    while (resets() === 0 && restarts < MAX_RESTARTS) {
      await new Promise((r) => setTimeout(r, 1500));
      await broker.restart({ hard: false });
      restarts++;
    }
    // Load goes on after the last restart: the new producer takes it.
    const before = acknowledged.length;
    await eventually(() => expect(acknowledged.length).toBeGreaterThan(before + 10 * BATCH), 60_000, 100);
    sending = false;
    await Promise.all(senders);

    expect(resets(), `the reset path was not reached in ${restarts} restarts (${failedSends} sends failed)`).toBeGreaterThan(0);
    expect(new Set(acknowledged).size).toBe(acknowledged.length);

    // The bus lost nothing it acknowledged: the topic holds every one (a batch sent again is there twice, which the store absorbs).
    const inTopic = new Set<string>();
    const reader = await api.runtime.bus.subscribe({ group: `check-${newId()}`, topic: artifactsRaw.name, maxBatchSize: 5000, maxWaitMs: 100, handler: async (batch) => batch.forEach((m) => inTopic.add((JSON.parse(m.value.toString()) as { id: string }).id)) });
    try {
      await eventually(() => expect(acknowledged.filter((id) => !inTopic.has(id))).toEqual([]), 60_000, 250);
    } finally {
      await reader.stop();
    }

    // The store holds each once: every id, and as many rows as ids once the table has merged what the store stage's id check let through twice.
    const stored = async () => {
      const params = new SqlParams();
      const query = `SELECT count() AS rows, uniqExact(id) AS ids FROM artifacts FINAL WHERE org_id = ${params.add(orgId, 'String')}`;
      const [row] = (await queryRows(api.runtime.store, query, params)) as { rows: string; ids: string }[];
      return { rows: Number(row!.rows), ids: Number(row!.ids) };
    };
    await eventually(async () => expect(await stored()).toEqual({ rows: acknowledged.length, ids: acknowledged.length }), 120_000, 500);
    expect(await api.runtime.bus.lag('store', artifactsRaw.name)).toBe(0);
  }, 600_000);
});
