// A batch of leads correlates as the same leads one at a time: the same
// incident for each lead, the same incidents at the end. The leads share a
// few addresses, hosts and users over a day and a half, with updates of
// earlier leads among them, so that windows, spans, hubs, the lead limit and
// joins of leads placed earlier in the same batch all come into play.
import { describe, expect, it } from 'vitest';
import { insertNodeSightings } from '../../clickhouse/tables/nodes.js';
import { getIncidents } from '../../clickhouse/tables/incidents.js';
import { stableId } from '../../lib/ids.js';
import type { Lead } from '../../topics/index.js';
import { useTestStore } from '../../test/helpers/store.js';
import { correlateLeads, type CorrelationOutcome } from './correlate.js';

const bounds = { windowMs: 3_600_000, maxSpanMs: 12 * 3_600_000, maxLeads: 5, hubLimit: 2 };
const NOW = '2026-11-25T12:00:00.000Z';
const START = Date.UTC(2026, 10, 20);
const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

const db = useTestStore('correlate-batch');

const NODES = [
  ...Array.from({ length: 6 }, (_, i) => ({ type: 'IP', value: `203.0.113.${i + 1}` })),
  { type: 'host', value: 'web01' },
  { type: 'host', value: 'db01' },
  { type: 'user', value: 'root' },
  { type: 'user', value: 'alice' },
].map((n) => ({ ...n, id: stableId('node', n.type, n.value) }));

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

function leadsFor(orgId: string, count: number, seed: number): Lead[] {
  const next = random(seed);
  const leads: Lead[] = [];
  for (let n = 0; n < count; n++) {
    const earlier = leads.length > 0 && next() < 0.2 ? leads[Math.floor(next() * leads.length)]! : null;
    if (earlier) {
      // An update of an earlier firing: more events, a later end, perhaps a higher severity.
      const lastSeen = new Date(Date.parse(earlier.last_seen) + Math.floor(next() * 40) * 60_000).toISOString();
      leads.push({ ...earlier, last_seen: lastSeen, event_count: earlier.event_count + 1, artifact_ids: [...earlier.artifact_ids, stableId('artifact', orgId, String(n))], severity: SEVERITIES[Math.floor(next() * 4)]! });
      continue;
    }
    const at = START + Math.floor(next() * 36 * 60) * 60_000;
    const nodes = [NODES[Math.floor(next() * 6)]!, NODES[6 + Math.floor(next() * 2)]!, ...(next() < 0.5 ? [NODES[8 + Math.floor(next() * 2)]!] : [])];
    leads.push({
      id: stableId('lead', String(seed), String(n)),
      org_id: orgId,
      rule_id: stableId('rule', String(n % 3)),
      rule_name: `rule ${n % 3}`,
      observation_id: stableId('observation', String(seed), String(n)),
      type: 'threshold',
      severity: SEVERITIES[Math.floor(next() * 4)]!,
      group_by: '',
      group_value: '',
      window_start: null,
      event_count: 1,
      node_ids: nodes.map((node) => node.id),
      artifact_ids: [stableId('artifact', orgId, String(n))],
      source: 'auth',
      first_seen: new Date(at).toISOString(),
      last_seen: new Date(at + Math.floor(next() * 20) * 60_000).toISOString(),
      created_at: NOW,
    });
  }
  return leads;
}

/** Each lead's incident, and the incidents as they end up, leaving out what differs by organization. */
async function correlateInBatches(orgId: string, leads: Lead[], batchSize: number) {
  const outcomes: CorrelationOutcome[] = [];
  for (let start = 0; start < leads.length; start += batchSize) outcomes.push(...(await correlateLeads(db.store, leads.slice(start, start + batchSize), bounds, NOW)));
  const incidents = await getIncidents(db.store, orgId, [...new Set(outcomes.map((o) => o.incidentId))]);
  return {
    outcomes: outcomes.map(({ incidentId, created, previousSeverity, incident }) => ({ incidentId, created, previousSeverity, title: incident.title, severity: incident.severity })),
    incidents: [...incidents.values()]
      .map(({ org_id: _org, ...incident }) => ({ ...incident, node_ids: [...incident.node_ids].sort(), observation_ids: [...incident.observation_ids].sort() }))
      .sort((a, b) => a.id.localeCompare(b.id)),
  };
}

describe('correlating a batch of leads', () => {
  it.each([
    [7, 1],
    [200, 2],
  ])('opens and joins the same incidents in batches of %i as one lead at a time (seed %i)', async (batchSize, seed) => {
    const orgs = { single: `single-${seed}`, batched: `batched-${seed}` };
    for (const orgId of Object.values(orgs)) {
      await insertNodeSightings(db.store, NODES.map((n) => ({ org_id: orgId, id: n.id, type: n.type, value: n.value, first_seen: NOW, last_seen: NOW })));
    }
    const leads = leadsFor(orgs.single, 80, seed);
    const single = await correlateInBatches(orgs.single, leads, 1);
    const batched = await correlateInBatches(orgs.batched, leads.map((l) => ({ ...l, org_id: orgs.batched })), batchSize);

    expect(batched).toEqual(single);
    // The leads did what the test means them to: open several incidents, join some, and update placed ones.
    expect(single.incidents.length).toBeGreaterThan(3);
    expect(single.outcomes.filter((o) => !o.created).length).toBeGreaterThan(10);
    expect(single.incidents.some((i) => i.node_count > 3)).toBe(true);
  });
});
