// A decoder added, changed and deleted through the API applies to what the
// running pipeline parses next, without a restart: on the in-process bus
// (the fused analysis stage on worker threads, and the staged parser), and
// on Kafka with two members of the analysis group, each with its own
// decoder list and worker threads, sharing the partitions.
import path from 'node:path';
import { AssignerProtocol, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStages } from '../cli/runtime.js';
import type { Subscription } from '../pipeline/bus/index.js';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { ALL_STAGES, drained, FUSED_STAGES, get, ingestLines } from './helpers/pipeline.js';

const DECODER = {
  service: 'acme',
  description: 'ACME gateway denials',
  programs: ['acmed'],
  defaults: { 'event.category': ['authentication'], 'event.type': ['info'] },
  decoders: [{ name: 'denied', match: '^denied user={USER} from {IP}$', fields: { 'event.action': 'acme-denied', 'event.outcome': 'failure' } }],
  tests: [{ line: 'Jan 10 00:00:00 gw acmed[31]: denied user=erin from 192.0.2.60', expect: { 'user.name': 'erin', 'event.action': 'acme-denied' } }],
};

/** Lines of acmed, each a distinct artifact (so they spread over the partitions). */
function lines(tag: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) => `Jan 10 00:${String(i % 60).padStart(2, '0')}:00 gw acmed[31]: denied user=${tag}${i} from 192.0.2.${(i % 250) + 1}`);
}

/** The partitions of artifacts.raw each member of the analysis group holds on Kafka. */
async function analysisAssignments(api: TestApi): Promise<number[]> {
  const admin = new Kafka({ brokers: inject('kafkaBrokers').split(','), logLevel: logLevel.NOTHING }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([`test-${path.basename(api.dataDir)}.analysis`]);
    return groups[0]!.members.map((m) => AssignerProtocol.MemberAssignment.decode(m.memberAssignment)?.assignment ?? {}).map((a) => Object.values(a).flat().length);
  } finally {
    await admin.disconnect();
  }
}

describe.each([
  ['in-process bus', 'fused'],
  ['in-process bus', 'staged'],
  ['Kafka', 'fused'],
] as const)('a user decoder applies without a restart, %s, %s stages', (bus, topology) => {
  const distributed = bus === 'Kafka';
  let api: TestApi;
  let second: Subscription | undefined;

  beforeAll(async () => {
    api = await startTestApi({ distributed, stages: topology === 'fused' ? FUSED_STAGES : ALL_STAGES });
    // A second member of the analysis group, with its own decoder list and worker threads: it takes some of the partitions.
    if (distributed) {
      [second] = await startStages(api.runtime, ['analysis']);
      // Both members hold partitions before anything is sent, so both parse some of every step's lines.
      await eventually(
        async () => {
          const held = await analysisAssignments(api);
          expect(held).toHaveLength(2);
          expect(held.every((partitions) => partitions > 0), `partitions per member: ${held.join(', ')}`).toBe(true);
        },
        60_000,
        500,
      );
    }
  }, 120_000);
  afterAll(async () => {
    await second?.stop();
    await api?.close();
  });

  const count = async (token: string, query: string) => (await get<{ total: number }>(api, token, `/api/v1/artifacts?exact_total=true&limit=1&query=${encodeURIComponent(query)}`)).total;

  it('parses with it from the batch after it is created, changed and deleted, for its organization only', async () => {
    const token = api.token();
    const other = api.token();
    const n = distributed ? 30 : 10;

    // The pipeline is running and has parsed without the decoder.
    await ingestLines(api, token, lines('before', n), 'syslog');
    await drained(api);
    expect(await count(token, 'process.name:acmed')).toBe(n);
    expect(await count(token, 'cairn.decoder:"user/acme"')).toBe(0);

    const created = await api.request('POST', '/api/v1/decoders', { token, body: DECODER });
    expect(created.status, created.text).toBe(201);
    const id = (created.body.data as { id: string }).id;
    await ingestLines(api, token, lines('created', n), 'syslog');
    await ingestLines(api, other, lines('other', 3), 'syslog');
    await drained(api);
    expect(await count(token, 'cairn.decoder:"user/acme" AND event.action:acme-denied')).toBe(n);
    expect(await count(token, 'user.name:created0 AND source.ip:"192.0.2.1" AND service.name:acme')).toBe(1);
    // What was parsed before stays as it was (re-parsing history is another feature), and the other organization is untouched.
    expect(await count(token, 'user.name:before0')).toBe(0);
    expect(await count(other, 'cairn.decoder:"user/acme"')).toBe(0);

    const changed = { ...DECODER, decoders: [{ ...DECODER.decoders[0]!, fields: { 'event.action': 'acme-denied-v2', 'event.outcome': 'failure' } }], tests: [{ ...DECODER.tests[0]!, expect: { 'event.action': 'acme-denied-v2' } }] };
    expect((await api.request('PUT', `/api/v1/decoders/${id}`, { token, body: changed })).status).toBe(200);
    await ingestLines(api, token, lines('changed', n), 'syslog');
    await drained(api);
    expect(await count(token, 'event.action:acme-denied-v2')).toBe(n);

    expect((await api.request('DELETE', `/api/v1/decoders/${id}`, { token })).status).toBe(200);
    await ingestLines(api, token, lines('deleted', n), 'syslog');
    await drained(api);
    expect(await count(token, 'process.name:acmed')).toBe(4 * n);
    expect(await count(token, 'cairn.decoder:"user/acme"')).toBe(2 * n);
    expect(await count(token, 'user.name:deleted0')).toBe(0);
  }, 180_000);
});
