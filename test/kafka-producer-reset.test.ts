// The Kafka bus under a broker restarted while artifacts stream in, stopped
// cleanly (SIGTERM) and killed (SIGKILL), and once kept down longer than
// kafkajs retries, so that sends fail and the bus starts a new producer
// (pipeline/bus/kafka-bus.ts). Every artifact the API acknowledged (202) is
// in the topic once, and the store holds each once.
//
// A broker of its own (the shared one serves the other tests), started again
// on the same port and data.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, SqlParams } from '../clickhouse/sql.js';
import { newId } from '../lib/ids.js';
import { artifactsRaw } from '../topics/index.js';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { startLocalBroker, type LocalBroker } from './services/kafka.js';

/** Logged by the bus when a send failed and the next goes through a new producer. */
const RESET_LOGGED = 'starting a new producer';
const SENDERS = 4;
const BATCH = 100;
/** Long enough that kafkajs's retries of a send (about 30 s) give up while the broker is down. */
const LONG_DOWN_MS = 40_000;
const RESTARTS: { hard: boolean; downMs?: number }[] = [{ hard: true }, { hard: false }, { hard: true }, { hard: true, downMs: LONG_DOWN_MS }, { hard: false }, { hard: true }];

describe('Kafka bus, broker restarted under load', () => {
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

  it('loses nothing the API acknowledged and stores nothing twice', async () => {
    const token = api.token('all');
    const orgId = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { org_id: string }).org_id;
    const acknowledged: string[] = [];
    const refused = new Map<number, number>();
    let sending = true;
    // Each sender posts a batch until the API takes it, as a sensor does after a 503.
    const sender = async (worker: number) => {
      for (let n = 0; sending; n++) {
        const artifacts = Array.from({ length: BATCH }, (_, i) => ({ source: 'reset', raw: `sender ${worker} batch ${n} line ${i}` }));
        for (;;) {
          const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts } });
          if (res.status === 202) {
            acknowledged.push(...(res.body.data as { ids: string[] }).ids);
            break;
          }
          // 503 when the bus did not take them, 429 when the store stage lags behind: both say "send again".
          if (res.status !== 503 && res.status !== 429) throw new Error(`ingest answered ${res.status}: ${res.text}`);
          refused.set(res.status, (refused.get(res.status) ?? 0) + 1);
          await new Promise((r) => setTimeout(r, 250));
        }
      }
    };
    const senders = Array.from({ length: SENDERS }, (_, w) => sender(w));

    for (const restart of RESTARTS) {
      // Under load: some requests acknowledged since the broker last came back.
      const before = acknowledged.length;
      await eventually(() => expect(acknowledged.length).toBeGreaterThan(before + 5 * BATCH), 120_000, 100);
      await broker.restart(restart);
    }
    // Load goes on after the last restart.
    const before = acknowledged.length;
    await eventually(() => expect(acknowledged.length).toBeGreaterThan(before + 10 * BATCH), 120_000, 100);
    sending = false;
    await Promise.all(senders);

    expect(new Set(acknowledged).size).toBe(acknowledged.length);

    // The topic holds every acknowledged artifact once, read from the beginning of every partition by a group of its own.
    const inTopic = new Map<string, number>();
    const reader = await api.runtime.bus.subscribe({
      group: `check-${newId()}`,
      topic: artifactsRaw.name,
      maxBatchSize: 5000,
      maxWaitMs: 100,
      handler: async (batch) => {
        for (const m of batch) {
          const { id } = JSON.parse(m.value.toString()) as { id: string };
          inTopic.set(id, (inTopic.get(id) ?? 0) + 1);
        }
      },
    });
    try {
      await eventually(() => expect(acknowledged.filter((id) => !inTopic.has(id)).length).toBe(0), 60_000, 250);
      expect(acknowledged.filter((id) => inTopic.get(id) !== 1)).toEqual([]);
    } finally {
      await reader.stop();
    }

    // The store holds each acknowledged artifact once. A request refused with 503 may have left part of its
    // artifacts in the topic (the API says so); those are stored too, under ids nobody was given, once each.
    const counts = async () => {
      const params = new SqlParams();
      const query = `SELECT count() AS rows, uniqExact(id) AS ids FROM artifacts FINAL WHERE org_id = ${params.add(orgId, 'String')}`;
      const [row] = (await queryRows(api.runtime.store, query, params)) as { rows: string; ids: string }[];
      return { rows: Number(row!.rows), ids: Number(row!.ids) };
    };
    await eventually(async () => expect(await api.runtime.bus.lag('store', artifactsRaw.name)).toBe(0), 120_000, 500);
    await eventually(async () => {
      const { rows, ids } = await counts();
      expect(rows).toBe(ids);
      expect(ids).toBeGreaterThanOrEqual(acknowledged.length);
    }, 60_000, 500);
    const idsParams = new SqlParams();
    const idsQuery = `SELECT id FROM artifacts WHERE org_id = ${idsParams.add(orgId, 'String')}`;
    const stored = new Set(((await queryRows(api.runtime.store, idsQuery, idsParams)) as { id: string }[]).map((r) => r.id));
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

    // The restarts reached the path under test.
    const resets = logLines.filter((l) => l.includes(RESET_LOGGED)).length;
    expect(resets, `no send failed and started a new producer (refused requests by status: ${JSON.stringify([...refused])})`).toBeGreaterThan(0);
  }, 900_000);
});
