// The correlator step: a lead joins an open incident that holds a lead
// sharing one of its nodes (an IP, user, host, domain or email) seen within
// the correlation window before it; otherwise it starts a new incident
// (status 1, New). The incident's severity, title and counts are then
// recomputed from all its leads, so replays and updated leads change nothing
// but the row's version.
import type { Store } from '../../clickhouse/client.js';
import { highestSeverity } from '../../clickhouse/severity.js';
import { getIncident, saveIncident, type Incident, type IncidentCore } from '../../clickhouse/tables/incidents.js';
import { incidentOfLead, incidentsSharingNodes, leadsOfIncident, saveIncidentLead } from '../../clickhouse/tables/leads.js';
import { nodeSummaries, type NodeSummary } from '../../clickhouse/tables/nodes.js';
import { stableId } from '../../lib/ids.js';
import type { Lead } from '../../topics/index.js';
import { GROUP_PREFIX } from '../enricher/extract.js';

/** Statuses an incident can still take new leads in: 1 New, 2 Investigating. */
const OPEN_STATUSES = new Set([1, 2]);
const TARGET_TYPES = ['host', 'user', 'domain', 'email'];

export interface Correlation {
  incidentId: string;
  /** True when the lead started the incident. */
  created: boolean;
}

/** The incident chosen, as it stood before this lead (null when the lead starts it). */
interface Choice extends Correlation {
  existing: Incident | null;
}

function more(count: number): string {
  return count > 0 ? ` (+${count} more)` : '';
}

/** "SSH brute force: 203.0.113.9 against host labsz, user root": what happened, from where, to whom (two of each named). */
export function incidentTitle(ruleNames: string[], nodes: NodeSummary[]): string {
  const rules = [...new Set(ruleNames)];
  const what = `${rules[0] ?? 'Lead'}${rules.length > 1 ? ` and ${rules.length - 1} other rule${rules.length > 2 ? 's' : ''}` : ''}`;
  const addresses = nodes.filter((n) => n.type === 'IP');
  const targets = nodes
    .filter((n) => TARGET_TYPES.includes(n.type) && !n.value.startsWith(GROUP_PREFIX))
    .sort((a, b) => TARGET_TYPES.indexOf(a.type) - TARGET_TYPES.indexOf(b.type));
  const from = addresses.length ? `${addresses.slice(0, 2).map((a) => a.value).join(', ')}${more(addresses.length - 2)}` : '';
  const to = targets.length ? `${targets.slice(0, 2).map((t) => `${t.type} ${t.value}`).join(', ')}${more(targets.length - 2)}` : '';
  if (from && to) return `${what}: ${from} against ${to}`;
  return from || to ? `${what}: ${from || to}` : what;
}

async function chooseIncident(store: Store, lead: Lead, windowMs: number): Promise<Choice> {
  const placed = await incidentOfLead(store, lead.org_id, lead.id);
  if (placed) return { incidentId: placed, created: false, existing: await getIncident(store, lead.org_id, placed) };
  const since = new Date(Date.parse(lead.first_seen) - windowMs).toISOString();
  for (const candidate of await incidentsSharingNodes(store, lead.org_id, lead.node_ids, since)) {
    const incident = await getIncident(store, lead.org_id, candidate.incident_id);
    if (incident && OPEN_STATUSES.has(incident.status)) return { incidentId: incident.id, created: false, existing: incident };
  }
  return { incidentId: stableId('incident', lead.id), created: true, existing: null };
}

export async function correlateLead(store: Store, lead: Lead, windowMs: number, now: string): Promise<Correlation> {
  const { existing, ...correlation } = await chooseIncident(store, lead, windowMs);
  await saveIncidentLead(store, {
    org_id: lead.org_id,
    lead_id: lead.id,
    incident_id: correlation.incidentId,
    rule_name: lead.rule_name,
    observation_id: lead.observation_id,
    severity: lead.severity,
    node_ids: lead.node_ids,
    artifact_ids: lead.artifact_ids,
    first_seen: lead.first_seen,
    last_seen: lead.last_seen,
  });

  const members = await leadsOfIncident(store, lead.org_id, correlation.incidentId);
  const nodeIds = [...new Set(members.flatMap((m) => m.node_ids))];
  const summaries = await nodeSummaries(store, lead.org_id, nodeIds);
  const incident: IncidentCore = {
    id: correlation.incidentId,
    org_id: lead.org_id,
    title: incidentTitle(
      members.map((m) => m.rule_name),
      nodeIds.map((id) => summaries.get(id)).filter((n): n is NodeSummary => n !== undefined),
    ),
    severity: highestSeverity(members.map((m) => m.severity)),
    artifact_count: new Set(members.flatMap((m) => m.artifact_ids)).size,
    node_count: nodeIds.length,
    node_ids: nodeIds,
    observation_ids: [...new Set(members.map((m) => m.observation_id))],
    first_seen: members.reduce((min, m) => (m.first_seen < min ? m.first_seen : min), lead.first_seen),
    last_seen: members.reduce((max, m) => (m.last_seen > max ? m.last_seen : max), lead.last_seen),
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  await saveIncident(store, incident);
  return correlation;
}
