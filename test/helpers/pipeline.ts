// Driving the whole pipeline through the API in tests: ingest lines, wait
// until every stage has caught up, read what came out.
import { expect } from 'vitest';
import type { TestApi } from './api.js';
import { eventually } from './buses.js';

export const ALL_STAGES = ['store', 'parser', 'enricher', 'leads', 'correlator'];

/** Consumer groups and the topics they read, in pipeline order. */
const STAGE_TOPICS = [
  ['parser', 'artifacts.raw'],
  ['enricher', 'artifacts.parsed'],
  ['leads', 'artifacts.enriched'],
  ['correlator', 'leads'],
] as const;

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

/** Waits until every stage after the store has consumed everything published so far. */
export async function drained(api: TestApi): Promise<void> {
  await eventually(
    async () => {
      for (const [group, topic] of STAGE_TOPICS) expect(await api.runtime.bus.lag(group, topic), `${group} on ${topic}`).toBe(0);
    },
    60_000,
    100,
  );
}

/** The organization a test token was minted for. */
export function orgOf(token: string): string {
  return (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { org_id: string }).org_id;
}
