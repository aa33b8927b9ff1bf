// The correlator step: a lead joins an open incident that holds a lead
// sharing one of its nodes (an IP, user, host, domain or email) within the
// correlation window of it, on either side in event time (replays and late
// sensors deliver out of order); otherwise it starts a new incident (status
// 1, New). Three bounds keep an incident one story instead of a chain that
// grows for as long as an internet-facing host is attacked (README,
// "Correlation"): its event-time span, its lead count, and hub nodes (a node
// through which the incident's leads already name more than `hubLimit`
// other addresses, such as a commonly guessed account or the attacked host,
// no longer joins leads). The incident's severity, title and counts are then
// recomputed from all its leads, so replays and updated leads change nothing
// but the row's version.
import { LRUCache } from 'lru-cache';
import type { Store } from '../../clickhouse/client.js';
import { highestSeverity } from '../../clickhouse/severity.js';
import { getIncident, saveIncident, type Incident, type IncidentCore } from '../../clickhouse/tables/incidents.js';
import { incidentOfLead, incidentsSharingNodes, leadsOfIncident, saveIncidentLead, type IncidentLead } from '../../clickhouse/tables/leads.js';
import { nodeSummaries, type NodeSummary } from '../../clickhouse/tables/nodes.js';
import type { CorrelationBounds } from '../../config/env.js';
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

/** What correlating one lead did to its incident, for the events the correlator raises. */
export interface CorrelationOutcome extends Correlation {
  incident: IncidentCore;
  /** The incident's severity before this lead joined; null when the lead started it. */
  previousSeverity: IncidentCore['severity'] | null;
}

/**
 * Node summaries by id. A node's id is derived from its organization, type
 * and value, so its summary never changes and can be kept: the correlator
 * reads the summaries of a lead's and its incident's nodes once or twice per
 * lead, which was its most frequent store query (900 in one 30 s ingest
 * benchmark).
 */
const knownNodes = new LRUCache<string, NodeSummary>({ max: 100_000 });

async function summariesOf(store: Store, orgId: string, ids: string[]): Promise<Map<string, NodeSummary>> {
  const found = new Map<string, NodeSummary>();
  const missing: string[] = [];
  for (const id of ids) {
    const known = knownNodes.get(`${orgId}|${id}`);
    if (known) found.set(id, known);
    else missing.push(id);
  }
  for (const [id, summary] of await nodeSummaries(store, orgId, missing)) {
    knownNodes.set(`${orgId}|${id}`, summary);
    found.set(id, summary);
  }
  return found;
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

/** What a join decision needs of a lead: its nodes and its event-time span. */
export interface LeadSpan {
  node_ids: string[];
  first_seen: string;
  last_seen: string;
}

function within(a: LeadSpan, b: LeadSpan, windowMs: number): boolean {
  return Date.parse(a.last_seen) >= Date.parse(b.first_seen) - windowMs && Date.parse(a.first_seen) <= Date.parse(b.last_seen) + windowMs;
}

/**
 * Whether `lead` may join an open incident made of `members`, and through
 * which node: the node must be shared with a member within the window, and
 * joining must not make the leads through it name more than `hubLimit`
 * addresses besides itself. Pure, so the bounds are tested without a store.
 */
export function joinNode(lead: LeadSpan, members: LeadSpan[], isAddress: (nodeId: string) => boolean, bounds: CorrelationBounds): string | null {
  if (members.length === 0 || members.length >= bounds.maxLeads) return null;
  const first = Math.min(Date.parse(lead.first_seen), ...members.map((m) => Date.parse(m.first_seen)));
  const last = Math.max(Date.parse(lead.last_seen), ...members.map((m) => Date.parse(m.last_seen)));
  if (last - first > bounds.maxSpanMs) return null;
  const near = members.filter((m) => within(m, lead, bounds.windowMs));
  for (const node of lead.node_ids) {
    if (!near.some((m) => m.node_ids.includes(node))) continue;
    const addresses = new Set(lead.node_ids.filter(isAddress));
    for (const m of members) if (m.node_ids.includes(node)) for (const id of m.node_ids) if (isAddress(id)) addresses.add(id);
    addresses.delete(node);
    if (addresses.size <= bounds.hubLimit) return node;
  }
  return null;
}

interface Choice extends Correlation {
  /** The incident as it stood before this lead (null when the lead starts it), and its other leads. */
  existing: Incident | null;
  others: IncidentLead[];
}

async function chooseIncident(store: Store, lead: Lead, bounds: CorrelationBounds): Promise<Choice> {
  const placed = await incidentOfLead(store, lead.org_id, lead.id);
  if (placed) {
    const others = (await leadsOfIncident(store, lead.org_id, placed)).filter((m) => m.lead_id !== lead.id);
    return { incidentId: placed, created: false, existing: await getIncident(store, lead.org_id, placed), others };
  }
  const candidates = await incidentsSharingNodes(store, lead.org_id, { nodeIds: lead.node_ids, firstSeen: lead.first_seen, lastSeen: lead.last_seen }, bounds.windowMs);
  for (const candidate of candidates) {
    const incident = await getIncident(store, lead.org_id, candidate.incident_id);
    if (!incident || !OPEN_STATUSES.has(incident.status)) continue;
    const members = await leadsOfIncident(store, lead.org_id, incident.id);
    const types = await summariesOf(store, lead.org_id, [...new Set([...lead.node_ids, ...members.flatMap((m) => m.node_ids)])]);
    if (joinNode(lead, members, (id) => types.get(id)?.type === 'IP', bounds)) return { incidentId: incident.id, created: false, existing: incident, others: members };
  }
  return { incidentId: stableId('incident', lead.id), created: true, existing: null, others: [] };
}

export async function correlateLead(store: Store, lead: Lead, bounds: CorrelationBounds, now: string): Promise<CorrelationOutcome> {
  const { existing, others, ...correlation } = await chooseIncident(store, lead, bounds);
  const joined: IncidentLead = {
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
  };
  await saveIncidentLead(store, joined);

  const members = [...others, joined];
  const nodeIds = [...new Set(members.flatMap((m) => m.node_ids))];
  const summaries = await summariesOf(store, lead.org_id, nodeIds);
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
  return { ...correlation, incident, previousSeverity: existing?.severity ?? null };
}
