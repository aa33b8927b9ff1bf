// On Kafka, a second member of the analysis consumer group joins while
// artifacts stream in, takes some of the partitions, and leaves again before
// the stream ends: every count matches a run without the rebalance, so the
// partitions it took over and gave back lost nothing and doubled nothing.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startStages } from '../cli/runtime.js';
import type { Subscription } from '../pipeline/bus/index.js';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually } from './helpers/buses.js';
import { drained, FUSED_STAGES, ingestLines, pipelineHoldings } from './helpers/pipeline.js';

const LINES = fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'beats', 'secure-rhel7.log'), 'utf8').split('\n').filter((l) => l.trim());
const COPIES = 48;
const RULE = {
  name: 'SSH brute force',
  severity: 'high',
  conditions: { pattern: 'Failed password', source: 'auth', threshold: 5, window: '5m', group_by: 'source.ip' },
};
const ORG = 'rebalance-org';

const open: TestApi[] = [];
afterAll(async () => {
  await Promise.all(open.map((a) => a.close()));
});

/** Runs the fused pipeline on Kafka over the lines; `during` is called once a third and again once two thirds are sent. */
async function run(during?: (api: TestApi) => Promise<void>) {
  const api = await startTestApi({ distributed: true, stages: FUSED_STAGES });
  open.push(api);
  const token = api.token('all', ORG);
  expect((await api.request('POST', '/api/v1/lead-rules', { token, body: RULE })).status).toBe(201);
  const lines = Array.from({ length: COPIES }, () => LINES).flat();
  const third = Math.ceil(lines.length / 3);
  for (let i = 0; i < lines.length; i += third) {
    await ingestLines(api, token, lines.slice(i, i + third));
    if (i + third < lines.length) await during?.(api);
  }
  await eventually(async () => expect((await pipelineHoldings(api, token)).artifacts).toBe(lines.length), 120_000, 250);
  await drained(api);
  const holdings = await pipelineHoldings(api, token);
  await api.close();
  open.pop();
  return { holdings };
}

describe('analysis stage on Kafka, a member joining and leaving under load', () => {
  it('loses and duplicates nothing across both rebalances', async () => {
    const expected = (await run()).holdings;
    expect(expected.observations).toBeGreaterThan(0);

    let second: Subscription | undefined;
    const lagAt: number[] = [];
    const { holdings } = await run(async (api) => {
      lagAt.push(await api.runtime.bus.lag('analysis', 'artifacts.raw'));
      // Joins once a third is sent, leaves once two thirds are: what it had not committed goes back to the other member.
      if (!second) [second] = await startStages(api.runtime, ['analysis']);
      else await second.stop();
    });
    // Both rebalances happened with work waiting.
    expect(lagAt).toHaveLength(2);
    expect(lagAt.every((lag) => lag > 0), `analysis lag at join and leave: ${lagAt.join(', ')}`).toBe(true);
    expect(second).toBeDefined();
    expect(holdings).toEqual(expected);
  }, 300_000);
});
