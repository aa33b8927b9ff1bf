// The store stage against real buses: sensors writing straight to the topic,
// bad messages, a crash between insert and commit, and an artifact sent
// twice in one batch.
import { randomUUID } from 'node:crypto';
import { SchemaRegistry } from '@kafkajs/confluent-schema-registry';
import { Kafka, logLevel } from 'kafkajs';
import { afterEach, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { startStages } from '../cli/runtime.js';
import { ARTIFACT_SUBJECT } from '../pipeline/artifacts.js';
import { consume, DLQ_HEADERS } from '../pipeline/bus/consume.js';
import type { DeliveredMessage } from '../pipeline/bus/types.js';
import { storeArtifacts } from '../pipeline/store/store-artifacts.js';
import { artifactsRaw, RawArtifact } from '../topics/index.js';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually, testLogger, uniqueName } from './helpers/buses.js';

const opened: TestApi[] = [];
afterEach(async () => {
  for (const api of opened.splice(0)) await api.close();
});

async function start(distributed: boolean, options: { stages?: string[]; schemaRegistry?: boolean } = {}): Promise<TestApi> {
  const api = await startTestApi({ distributed, stages: options.stages ?? ['store'], schemaRegistry: options.schemaRegistry });
  opened.push(api);
  return api;
}

/** Writes bytes to artifacts.raw the way an outside sensor would: a plain Kafka producer, or the bus itself in embedded mode. */
async function produceRaw(api: TestApi, values: Buffer[]): Promise<void> {
  const kafka = api.runtime.config.kafka;
  if (!kafka) {
    await api.runtime.bus.send(artifactsRaw.name, values.map((value) => ({ key: null, value })));
    return;
  }
  const producer = new Kafka({ brokers: kafka.brokers, clientId: 'plain-sensor', logLevel: logLevel.NOTHING }).producer();
  await producer.connect();
  try {
    for (const value of values) await producer.send({ topic: `${kafka.topicPrefix}${artifactsRaw.name}`, messages: [{ value }] });
  } finally {
    await producer.disconnect();
  }
}

async function searchRaw(api: TestApi, token: string, query: string): Promise<{ total: number; artifacts: { raw: string; id: string; org_id: string; metadata: unknown }[] }> {
  const res = await api.request('GET', `/api/v1/artifacts?query=${encodeURIComponent(query)}`, { token });
  return res.body.data as { total: number; artifacts: { raw: string; id: string; org_id: string; metadata: unknown }[] };
}

async function countRows(api: TestApi, orgId: string): Promise<number> {
  const result = await api.runtime.store.query({ query: 'SELECT count() AS n FROM artifacts WHERE org_id = {orgId:String}', query_params: { orgId }, format: 'JSONEachRow' });
  return Number((await result.json<{ n: string }>())[0]!.n);
}

describe.each(['embedded', 'distributed'] as const)('store stage, %s', (mode) => {
  const distributed = mode === 'distributed';

  it('stores an artifact a sensor produced straight to the topic with only source and raw', async () => {
    const api = await start(distributed);
    const marker = uniqueName('direct').replace('.', '');
    await produceRaw(api, [Buffer.from(JSON.stringify({ source: 'auth', raw: `sshd: Failed password ${marker}` }))]);
    const token = api.token(['signals:read'], api.runtime.config.orgId);
    const found = await eventually(async () => {
      const result = await searchRaw(api, token, marker);
      expect(result.artifacts).toHaveLength(1);
      return result;
    });
    expect(found.artifacts[0]).toMatchObject({ raw: `sshd: Failed password ${marker}`, org_id: 'default', metadata: {} });
    expect(found.artifacts[0]!.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7/);
  });

  it('sends a malformed message to the DLQ with the reason and stores the next good one', async () => {
    const api = await start(distributed);
    const marker = uniqueName('afterbad').replace('.', '');
    await produceRaw(api, [Buffer.from('{"source": "auth", "raw": '), Buffer.from(JSON.stringify({ source: 'auth', raw: `good line ${marker}` }))]);
    const dead: DeliveredMessage[] = [];
    const dlqReader = await api.runtime.bus.subscribe({ group: uniqueName('dlq-reader'), topic: artifactsRaw.dlq, maxBatchSize: 10, maxWaitMs: 10, handler: async (b) => void dead.push(...b) });
    try {
      const token = api.token(['signals:read'], api.runtime.config.orgId);
      await eventually(async () => expect((await searchRaw(api, token, marker)).total).toBe(1));
      await eventually(() => expect(dead.some((m) => m.value.toString() === '{"source": "auth", "raw": ')).toBe(true));
      const letter = dead.find((m) => m.value.toString() === '{"source": "auth", "raw": ')!;
      expect(letter.headers[DLQ_HEADERS.reason]).toMatch(/^cannot decode: .*JSON/);
      expect(letter.headers[DLQ_HEADERS.stage]).toBe('store');
      const missingRaw = Buffer.from(JSON.stringify({ source: 'auth' }));
      await produceRaw(api, [missingRaw]);
      await eventually(() => expect(dead.some((m) => m.value.equals(missingRaw))).toBe(true));
      expect(dead.find((m) => m.value.equals(missingRaw))!.headers[DLQ_HEADERS.reason]).toMatch(/raw/);
      // Metadata nested thousands deep would overflow the stack of whatever serialises it: refused at decoding.
      const deep = Buffer.from(`{"source":"auth","raw":"x","metadata":{"a":${'['.repeat(5000)}${']'.repeat(5000)}}}`);
      await produceRaw(api, [deep]);
      await eventually(() => expect(dead.some((m) => m.value.equals(deep))).toBe(true));
      expect(dead.find((m) => m.value.equals(deep))!.headers[DLQ_HEADERS.reason]).toMatch(/metadata must not nest deeper than 32 levels/);
    } finally {
      await dlqReader.stop();
    }
  });

  it('decodes the Confluent wire format with the schema registered at start', async () => {
    const api = await start(distributed, { schemaRegistry: true });
    const registry = new SchemaRegistry({ host: inject('schemaRegistryUrl') });
    const schemaId = await registry.getLatestSchemaId(ARTIFACT_SUBJECT);
    const marker = uniqueName('avro').replace('.', '');
    const encoded = await registry.encode(schemaId, { source: 'suricata', raw: `alert ${marker}`, timestamp: '2026-11-20T10:00:00Z', metadata: { sensor: 'edge-7' }, id: null, org_id: null });
    await produceRaw(api, [encoded]);
    const token = api.token(['signals:read'], api.runtime.config.orgId);
    const found = await eventually(async () => {
      const result = await searchRaw(api, token, marker);
      expect(result.artifacts).toHaveLength(1);
      return result;
    });
    expect(found.artifacts[0]).toMatchObject({ raw: `alert ${marker}`, metadata: { sensor: 'edge-7' } });
  });

  it('loses nothing and duplicates nothing when it stops after its insert and before its commit', async () => {
    const api = await start(distributed, { stages: [] });
    const token = api.token();
    const orgId = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { org_id: string }).org_id;
    const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: Array.from({ length: 50 }, (_, i) => ({ source: 'auth', raw: `line ${i}` })) } });
    expect(res.status).toBe(202);

    // The stage's real step writes the batch, then the process "dies": the
    // subscription stops before the bus commits anything.
    let inserted = 0;
    let firstDeliveryMayRepeat: boolean | undefined;
    let release!: () => void;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    const doomed = await consume({
      bus: api.runtime.bus,
      topic: artifactsRaw,
      group: 'store',
      logger: testLogger,
      maxBatchSize: 100,
      maxWaitMs: 200,
      // As the stage notes them: the restarted stage finds the batch marked as written, so it checks what is stored.
      writeMarks: api.runtime.state,
      handle: async (batch, ctx) => {
        firstDeliveryMayRepeat = ctx.mayRepeat;
        inserted += (await storeArtifacts(api.runtime.store, batch, api.runtime.config.orgId, ctx.mayRepeat)).inserted;
        release();
        await new Promise<void>((resolve) => ctx.signal.addEventListener('abort', () => resolve()));
      },
    });
    await stuck;
    await doomed.stop();
    // A first delivery skips the lookup of what is stored. (On Kafka the file's tests share one Redis, whose marks
    // may lie past this run's offsets: there a first delivery may be checked too, which costs a lookup, never a row.)
    if (!distributed) expect(firstDeliveryMayRepeat).toBe(false);
    expect(await countRows(api, orgId)).toBe(inserted);
    expect(await api.runtime.bus.lag('store', artifactsRaw.name)).toBe(50);

    // Restarted, the stage sees the same messages again and stores what is missing, once.
    const [stage] = await startStages(api.runtime, ['store']);
    try {
      await eventually(async () => expect(await api.runtime.bus.lag('store', artifactsRaw.name)).toBe(0));
      expect(await countRows(api, orgId)).toBe(50);
      expect((await searchRaw(api, token, 'line')).total).toBe(50);
    } finally {
      await stage!.stop();
    }
  });
});

describe('an artifact sent twice in one batch', () => {
  // Inserts leave folding rows of the same key to merges (clickhouse/encoded-rows.ts), so the steps keep one copy.
  it('is stored once and parsed once', async () => {
    const api = await start(false, { stages: ['store', 'analysis'] });
    const id = randomUUID();
    const copy = Buffer.from(JSON.stringify({ id, source: 'auth', raw: `Nov  3 16:45:16 host sshd[42]: Failed password for root from 203.0.113.9 port 22 ssh2` }));
    const otherId = randomUUID();
    const other = Buffer.from(JSON.stringify({ id: otherId, source: 'auth', raw: 'Nov  3 16:45:17 host sshd[42]: Connection closed by 203.0.113.9 [preauth]' }));
    await api.runtime.bus.send(artifactsRaw.name, [copy, other, copy].map((value) => ({ key: null, value })));
    const rows = async (table: 'artifacts' | 'events', artifactId: string) => {
      const column = table === 'artifacts' ? 'id' : 'artifact_id';
      const result = await api.runtime.store.query({ query: `SELECT count() AS n FROM ${table} WHERE ${column} = {id:UUID}`, query_params: { id: artifactId }, format: 'JSONEachRow' });
      return Number((await result.json<{ n: string }>())[0]!.n);
    };
    // Both stages commit after their writes: no lag left means every row is in.
    await eventually(async () => {
      expect(await api.runtime.bus.lag('store', artifactsRaw.name)).toBe(0);
      expect(await api.runtime.bus.lag('analysis', artifactsRaw.name)).toBe(0);
    });
    expect(await rows('artifacts', id)).toBe(1);
    expect(await rows('events', id)).toBe(1);
    expect(await rows('events', otherId)).toBe(1);
  });
});

describe('artifact ids', () => {
  it('gives a message without an id the same UUIDv7 on every delivery', async () => {
    const { completeArtifact } = await import('../pipeline/artifacts.js');
    const message: DeliveredMessage = { topic: 'artifacts.raw', partition: 2, offset: '41', key: null, value: Buffer.alloc(0), headers: {}, timestamp: Date.parse('2026-11-22T06:00:00Z') };
    const raw = RawArtifact.parse({ source: 'auth', raw: 'x' });
    const first = completeArtifact(raw, message, 'default');
    expect(completeArtifact(raw, message, 'default')).toEqual(first);
    expect(first.id.replace(/-/g, '').slice(0, 12)).toBe(Date.parse('2026-11-22T06:00:00Z').toString(16).padStart(12, '0'));
    expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab]/);
    expect(completeArtifact(raw, { ...message, offset: '42' }, 'default').id).not.toBe(first.id);
    expect(first).toMatchObject({ org_id: 'default', timestamp: '2026-11-22T06:00:00.000Z', created_at: '2026-11-22T06:00:00.000Z' });
  });
});
