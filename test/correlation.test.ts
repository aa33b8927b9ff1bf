// Incidents that stay one story: the correlation window holds in both
// directions of event time, and a host under steady brute force does not
// chain every new lead into one incident that grows without bound.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from './helpers/api.js';
import { eventually, uniqueName } from './helpers/buses.js';
import { ALL_STAGES, drained, get, ingestLines } from './helpers/pipeline.js';
import { systemEvents } from '../topics/index.js';
import type { DeliveredMessage } from '../pipeline/bus/types.js';

interface IncidentOut {
  id: string;
  first_seen: string;
  last_seen: string;
  nodes?: { type: string; value: string }[];
  observations?: { id: string }[];
}

/** Every failed password fires on its own, so each line is one lead. */
const RULE = { name: 'SSH failure', severity: 'medium', conditions: { pattern: '"Failed password"', source: 'auth' } };
const HOUR_MS = 3_600_000;
const HUB_LIMIT = 10;
const MAX_SPAN_H = 12;

/** A failed root login at `minutes` past Nov 20 00:00 from `ip` against `host`. */
function failure(minutes: number, ip: string, host: string): string {
  const h = String(Math.floor(minutes / 60)).padStart(2, '0');
  const m = String(minutes % 60).padStart(2, '0');
  return `Nov 20 ${h}:${m}:00 ${host} sshd[4242]: Failed password for root from ${ip} port 50022 ssh2`;
}

let api: TestApi;

/** A fresh organization with the rule loaded, the lines ingested in the order given, and every stage drained. */
async function correlate(lines: string[]): Promise<IncidentOut[]> {
  const token = api.token();
  expect((await api.request('POST', '/api/v1/lead-rules', { token, body: RULE })).status).toBe(201);
  await ingestLines(api, token, lines);
  await drained(api);
  await eventually(async () => expect((await get<{ total: number }>(api, token, '/api/v1/observations?limit=1')).total).toBe(lines.length));
  const { incidents } = await get<{ incidents: IncidentOut[] }>(api, token, '/api/v1/incidents?limit=1000');
  return Promise.all(incidents.map((i) => get<IncidentOut>(api, token, `/api/v1/incidents/${i.id}`)));
}

function addresses(incident: IncidentOut): string[] {
  return incident.nodes!.filter((n) => n.type === 'IP').map((n) => n.value);
}

describe('correlation bounds', () => {
  beforeAll(async () => {
    api = await startTestApi({
      stages: ALL_STAGES,
      env: { CAIRN_CORRELATION_WINDOW: '1h', CAIRN_INCIDENT_MAX_SPAN: `${MAX_SPAN_H}h`, CAIRN_CORRELATION_HUB_LIMIT: String(HUB_LIMIT) },
    });
  }, 120_000);
  afterAll(async () => {
    await api?.close();
  });

  it('splits steady brute force against one host into incidents of at most the hub limit of addresses', async () => {
    // 60 addresses, one every 24 minutes over a day, all against host web01 as root.
    const lines = Array.from({ length: 60 }, (_, i) => failure(i * 24, `203.0.113.${i + 1}`, 'web01'));
    const incidents = await correlate(lines);

    expect(incidents).toHaveLength(Math.ceil(60 / HUB_LIMIT));
    const seen = new Set<string>();
    for (const incident of incidents) {
      const ips = addresses(incident);
      expect(ips.length).toBeGreaterThan(0);
      expect(ips.length).toBeLessThanOrEqual(HUB_LIMIT);
      expect(Date.parse(incident.last_seen) - Date.parse(incident.first_seen)).toBeLessThanOrEqual(MAX_SPAN_H * HOUR_MS);
      for (const ip of ips) seen.add(ip);
    }
    expect(seen.size).toBe(60); // every attacker is in exactly one incident
    expect(incidents.reduce((n, i) => n + i.observations!.length, 0)).toBe(60);
  });

  // Four addresses, each against its own host, three hours apart: only the account name root is shared.
  const spread = [0, 3, 6, 9].map((h, i) => failure(h * 60, `198.51.100.${i + 1}`, `db0${i + 1}`));

  it.each([
    ['oldest first', spread],
    ['newest first', [...spread].reverse()],
  ])('keeps leads further apart than the window in separate incidents, %s', async (_order, lines) => {
    const incidents = await correlate(lines);
    expect(incidents).toHaveLength(4);
    for (const incident of incidents) expect(addresses(incident)).toHaveLength(1);
  });

  it.each([
    ['oldest first', [failure(600, '192.0.2.1', 'app01'), failure(630, '192.0.2.2', 'app02')]],
    ['newest first', [failure(630, '192.0.2.2', 'app02'), failure(600, '192.0.2.1', 'app01')]],
  ])('still joins leads sharing a node within the window, %s', async (_order, lines) => {
    const incidents = await correlate(lines);
    expect(incidents).toHaveLength(1);
    expect(addresses(incidents[0]!).sort()).toEqual(['192.0.2.1', '192.0.2.2']);
  });

  it('raises incident.created once for each incident it opens', async () => {
    const events: DeliveredMessage[] = [];
    const sub = await api.runtime.bus.subscribe({ group: uniqueName('incident-events'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void events.push(...b) });
    try {
      const incidents = await correlate([failure(0, '192.0.2.10', 'mail01'), failure(300, '192.0.2.11', 'mail02')]);
      expect(incidents).toHaveLength(2);
      const created = () => events.map((m) => JSON.parse(m.value.toString()) as { type: string; details: { incident_id: string } }).filter((e) => e.type === 'incident.created');
      // The topic holds the earlier tests' events too: count this test's incidents.
      const ids = new Set(incidents.map((i) => i.id));
      await eventually(() => expect(created().filter((e) => ids.has(e.details.incident_id)).map((e) => e.details.incident_id).sort()).toEqual([...ids].sort()));
    } finally {
      await sub.stop();
    }
  });
});
