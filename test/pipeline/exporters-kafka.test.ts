// Exporters in distributed mode (Kafka bus, Redis hot state) with a Kafka
// topic as the destination: each matching artifact arrives as a JSON value
// keyed by its id. An exporter whose brokers cannot be reached raises
// exporter.failure once and waits, without holding back the working one:
// each exporter is its own consumer group.
import { randomUUID } from 'node:crypto';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { DeliveredMessage, Subscription } from '../../pipeline/bus/types.js';
import { systemEvents } from '../../topics/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually, uniqueName } from '../helpers/buses.js';

describe('exporters to Kafka (Kafka bus, Redis)', () => {
  let api: TestApi;
  let token: string;
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const brokers = inject('kafkaBrokers').split(',');
  const topic = uniqueName('exported');
  const kafka = new Kafka({ brokers, clientId: 'exporter-test', logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: uniqueName('exporter-test') });
  const received: { key: string; value: Record<string, unknown> }[] = [];
  const events: DeliveredMessage[] = [];
  let eventsSub: Subscription;

  beforeAll(async () => {
    const admin = kafka.admin();
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic, numPartitions: 2 }] });
    await admin.disconnect();
    await consumer.connect();
    await consumer.subscribe({ topics: [topic], fromBeginning: true });
    await consumer.run({ eachMessage: async ({ message }) => void received.push({ key: message.key!.toString(), value: JSON.parse(message.value!.toString()) as Record<string, unknown> }) });
    // The brokers the global setup started listen on the loopback address (a name there may resolve to ::1 too).
    api = await startTestApi({ distributed: true, stages: ['store', 'exporters'], env: { CAIRN_ORG_ID: orgId, CAIRN_OUTBOUND_ALLOW: '127.0.0.1,::1,localhost' } });
    token = api.token('all', orgId);
    eventsSub = await api.runtime.bus.subscribe({ group: uniqueName('exporter-events'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void events.push(...b) });
  });
  afterAll(async () => {
    await eventsSub?.stop();
    await api?.close();
    await consumer.disconnect();
  });

  it('produces each matching artifact as JSON keyed by its id; a broken exporter raises exporter.failure once and holds back only itself', async () => {
    const create = async (body: Record<string, unknown>) => {
      const res = await api.request('POST', '/api/v1/exporters', { token, body });
      expect(res.status, res.text).toBe(201);
      return (res.body.data as { id: string }).id;
    };
    const working = await create({ name: 'to kafka', query: 'user.name:root', type: 'kafka', settings: { brokers, topic } });
    // Nothing listens on port 1: connections are refused.
    const broken = await create({ name: 'nowhere', type: 'kafka', settings: { brokers: ['127.0.0.1:1'], topic }, failure_cooldown_minutes: 60 });

    // A field test (user.name) makes the exporter parse the line, as search does.
    const lines = [
      'Mar  3 10:00:00 web1 sshd[1]: Failed password for root from 203.0.113.7 port 22 ssh2',
      'Mar  3 10:00:01 web1 sshd[2]: Failed password for alice from 203.0.113.8 port 22 ssh2',
      'Mar  3 10:00:02 web1 sshd[3]: Accepted password for root from 198.51.100.9 port 22 ssh2',
    ];
    const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: lines.map((raw) => ({ source: 'auth', raw })) } });
    expect(res.status, res.text).toBe(202);
    const ids = (res.body.data as { ids: string[] }).ids;

    await eventually(() => expect(received.map((m) => m.key).sort()).toEqual([ids[0], ids[2]].sort()), 30_000, 200);
    for (const { key, value } of received) expect(value).toMatchObject({ id: key, org_id: orgId, source: 'auth', raw: lines[ids.indexOf(key)] });
    await eventually(async () => expect(await api.runtime.bus.lag(`exporter-${working}`, 'artifacts.raw')).toBe(0), 20_000, 200);

    const failures = () =>
      events.map((m) => JSON.parse(m.value.toString()) as { type: string; details: Record<string, unknown> }).filter((e) => e.type === 'exporter.failure' && e.details.exporter_id === broken);
    await eventually(() => expect(failures()).toHaveLength(1), 40_000, 200);
    expect(failures()[0]!.details).toMatchObject({ exporter_name: 'nowhere', destination: `kafka://127.0.0.1:1/${topic}` });
    expect(await api.runtime.bus.lag(`exporter-${broken}`, 'artifacts.raw')).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 3000));
    expect(failures()).toHaveLength(1);
    expect(received).toHaveLength(2);
    for (const id of [working, broken]) expect((await api.request('DELETE', `/api/v1/exporters/${id}`, { token })).status).toBe(200);
  });
});
