// Driving the whole pipeline through the API in tests: ingest lines, wait
// until every stage has caught up, read what came out.
import { expect } from 'vitest';
import type { TestApi } from './api.js';
import { eventually } from './buses.js';
import { findStage } from '../../pipeline/stages.js';
import { TOPOLOGY_STAGES } from '../../pipeline/topologies.js';

/** The stages of each topology (pipeline/topologies.ts): the staged one runs every stage apart, the fused one (the default) analysis in one. */
export const ALL_STAGES = [...TOPOLOGY_STAGES.staged];
export const FUSED_STAGES = [...TOPOLOGY_STAGES.fused];

export async function get<T>(api: TestApi, token: string, path: string): Promise<T> {
  const res = await api.request('GET', path, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data as T;
}

/** Posts lines as artifacts of `source`, 500 per request, in the order given. */
export async function ingestLines(api: TestApi, token: string, lines: string[], source = 'auth'): Promise<void> {
  for (let i = 0; i < lines.length; i += 500) {
    const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: lines.slice(i, i + 500).map((raw) => ({ source, raw })) } });
    expect(res.status, res.text).toBe(202);
  }
}

/** Waits until every stage after the store, in the topology the API runs, has consumed everything published so far. */
export async function drained(api: TestApi): Promise<void> {
  const stages = TOPOLOGY_STAGES[api.runtime.config.pipeline.topology].filter((name) => name !== 'store');
  await eventually(
    async () => {
      for (const name of stages) expect(await api.runtime.bus.lag(name, findStage(name)!.input), name).toBe(0);
    },
    60_000,
    100,
  );
}

/** What a finished run holds, read through the API (which answers the logical rows, one per id). */
export async function pipelineHoldings(api: TestApi, token: string) {
  const total = async (p: string) => (await get<{ total: number }>(api, token, p)).total;
  const observations = await get<{ observations: { artifact_ids: string[] }[]; total: number }>(api, token, '/api/v1/observations?limit=1000');
  return {
    artifacts: await total('/api/v1/artifacts?exact_total=true&limit=1'),
    withAddress: await total('/api/v1/artifacts?query=source.ip:*&exact_total=true&limit=1'),
    nodes: await total('/api/v1/nodes?limit=1'),
    edges: await total('/api/v1/edges?limit=1'),
    observations: observations.total,
    // Ids derive from the rule's, which each run creates anew: compare what each observation holds.
    observationSizes: observations.observations.map((o) => o.artifact_ids.length).sort((a, b) => a - b),
    incidents: await total('/api/v1/incidents?limit=1'),
  };
}

/** The organization a test token was minted for. */
export function orgOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { org_id: string }).org_id;
}
