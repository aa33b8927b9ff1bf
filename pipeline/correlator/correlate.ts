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
import { getIncidents, NEW_STATUS, saveIncidents, type Incident, type IncidentCore } from '../../clickhouse/tables/incidents.js';
import { incidentMembers, incidentsOfLeads, saveIncidentLeads, type IncidentLead } from '../../clickhouse/tables/leads.js';
import { nodeSummaries, type NodeSummary } from '../../clickhouse/tables/nodes.js';
import type { CorrelationBounds } from '../../config/env.js';
import { groupBy } from '../../lib/group.js';
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
 * and value, so its summary never changes and can be kept: each batch reads
 * the summaries of every node its incidents can name, most of them known
 * from earlier batches.
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

/**
 * What the correlator knows of one organization's incidents while it
 * correlates a batch of leads: what the store held of the incidents the
 * batch can touch, then what the batch changed. Reading it for each lead
 * decides as reading the store after each lead's writes would; the store
 * is read once and written once per batch, where one lead at a time took
 * seven statements a lead, half the engine's statement CPU at 20 leads a
 * second (bench/README.md, tenth pass).
 */
class IncidentBook {
  constructor(
    /** Incident by lead id, for the leads that joined one. */
    readonly placed: Map<string, string>,
    /** Each incident's leads in order of first_seen, then lead id. */
    private readonly members: Map<string, IncidentLead[]>,
    private readonly incidents: Map<string, Incident>,
  ) {}

  membersOf(incidentId: string): IncidentLead[] {
    return this.members.get(incidentId) ?? [];
  }

  incident(incidentId: string): Incident | null {
    return this.incidents.get(incidentId) ?? null;
  }

  /**
   * Incidents holding a lead that shares one of the lead's nodes and comes
   * within the window of it, the most recently active (of those leads) first.
   */
  candidates(lead: Lead, windowMs: number): string[] {
    const after = Date.parse(lead.first_seen) - windowMs;
    const before = Date.parse(lead.last_seen) + windowMs;
    const latest: { id: string; at: number }[] = [];
    for (const [id, members] of this.members) {
      let at = -Infinity;
      for (const m of members) {
        const lastSeen = Date.parse(m.last_seen);
        if (lastSeen >= after && Date.parse(m.first_seen) <= before && m.node_ids.some((n) => lead.node_ids.includes(n))) at = Math.max(at, lastSeen);
      }
      if (at > -Infinity) latest.push({ id, at });
    }
    return latest.sort((a, b) => b.at - a.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((c) => c.id);
  }

  /** Every node the incidents' leads name. */
  nodeIds(): Set<string> {
    const ids = new Set<string>();
    for (const members of this.members.values()) for (const m of members) for (const n of m.node_ids) ids.add(n);
    return ids;
  }

  join(member: IncidentLead): void {
    const others = this.membersOf(member.incident_id).filter((m) => m.lead_id !== member.lead_id);
    const at = others.findIndex((m) => m.first_seen > member.first_seen || (m.first_seen === member.first_seen && m.lead_id > member.lead_id));
    others.splice(at === -1 ? others.length : at, 0, member);
    this.members.set(member.incident_id, others);
    this.placed.set(member.lead_id, member.incident_id);
  }

  update(incident: Incident): void {
    this.incidents.set(incident.id, incident);
  }
}

/** Reads what a batch of one organization's leads can touch: the incidents they joined before, and those sharing a node within the window. */
async function openBook(store: Store, orgId: string, leads: Lead[], windowMs: number): Promise<IncidentBook> {
  const placed = await incidentsOfLeads(store, orgId, leads.map((l) => l.id));
  const unplaced = leads.filter((l) => !placed.has(l.id));
  const sharing = unplaced.length === 0 ? undefined : {
    nodeIds: [...new Set(unplaced.flatMap((l) => l.node_ids))],
    after: new Date(Math.min(...unplaced.map((l) => Date.parse(l.first_seen))) - windowMs).toISOString(),
    before: new Date(Math.max(...unplaced.map((l) => Date.parse(l.last_seen))) + windowMs).toISOString(),
  };
  const members = await incidentMembers(store, orgId, { incidentIds: [...new Set(placed.values())], sharing });
  const incidents = await getIncidents(store, orgId, [...new Set([...members.keys(), ...placed.values()])]);
  return new IncidentBook(placed, members, incidents);
}

interface Choice extends Correlation {
  /** The incident as it stood before this lead (null when the lead starts it), and its other leads. */
  existing: Incident | null;
  others: IncidentLead[];
}

function chooseIncident(book: IncidentBook, lead: Lead, isAddress: (nodeId: string) => boolean, bounds: CorrelationBounds): Choice {
  const placed = book.placed.get(lead.id);
  if (placed) {
    const others = book.membersOf(placed).filter((m) => m.lead_id !== lead.id);
    return { incidentId: placed, created: false, existing: book.incident(placed), others };
  }
  for (const id of book.candidates(lead, bounds.windowMs)) {
    const incident = book.incident(id);
    if (!incident || !OPEN_STATUSES.has(incident.status)) continue;
    const members = book.membersOf(id);
    if (joinNode(lead, members, isAddress, bounds)) return { incidentId: id, created: false, existing: incident, others: members };
  }
  return { incidentId: stableId('incident', lead.id), created: true, existing: null, others: [] };
}

/** One organization's leads, in order. */
async function correlateOrganization(store: Store, orgId: string, leads: Lead[], bounds: CorrelationBounds, now: string): Promise<CorrelationOutcome[]> {
  const book = await openBook(store, orgId, leads, bounds.windowMs);
  // Every node the batch's incidents can name: its leads' and those of the incidents it read.
  const summaries = await summariesOf(store, orgId, [...new Set([...leads.flatMap((l) => l.node_ids), ...book.nodeIds()])]);
  const isAddress = (id: string) => summaries.get(id)?.type === 'IP';

  const outcomes: CorrelationOutcome[] = [];
  // Each lead's and each incident's last state in the batch: an insert holds each key once.
  const joinedRows = new Map<string, IncidentLead>();
  const changed = new Map<string, IncidentCore>();
  for (const lead of leads) {
    const { existing, others, ...correlation } = chooseIncident(book, lead, isAddress, bounds);
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
    const members = [...others, joined];
    const incidentNodes = [...new Set(members.flatMap((m) => m.node_ids))];
    const incident: IncidentCore = {
      id: correlation.incidentId,
      org_id: lead.org_id,
      title: incidentTitle(
        members.map((m) => m.rule_name),
        incidentNodes.map((id) => summaries.get(id)).filter((n): n is NodeSummary => n !== undefined),
      ),
      severity: highestSeverity(members.map((m) => m.severity)),
      artifact_count: new Set(members.flatMap((m) => m.artifact_ids)).size,
      node_count: incidentNodes.length,
      node_ids: incidentNodes,
      observation_ids: [...new Set(members.map((m) => m.observation_id))],
      first_seen: members.reduce((min, m) => (m.first_seen < min ? m.first_seen : min), lead.first_seen),
      last_seen: members.reduce((max, m) => (m.last_seen > max ? m.last_seen : max), lead.last_seen),
      created_at: existing?.created_at ?? now,
      updated_at: now,
    };
    book.join(joined);
    book.update({ ...incident, status: existing?.status ?? NEW_STATUS });
    joinedRows.set(joined.lead_id, joined);
    changed.set(incident.id, incident);
    outcomes.push({ ...correlation, incident, previousSeverity: existing?.severity ?? null });
  }
  // The leads' rows first: a replay after a crash between the two finds each lead placed and recomputes its incident.
  await saveIncidentLeads(store, [...joinedRows.values()]);
  await saveIncidents(store, [...changed.values()]);
  return outcomes;
}

/**
 * Correlates a batch of leads as one at a time would, in order, and returns
 * what each did. Organizations are apart: each one's leads are read and
 * written together.
 */
export async function correlateLeads(store: Store, leads: Lead[], bounds: CorrelationBounds, now: string): Promise<CorrelationOutcome[]> {
  const outcomes = new Array<CorrelationOutcome>(leads.length);
  const byOrg = groupBy(leads.keys(), (n) => leads[n]!.org_id);
  for (const [orgId, places] of byOrg) {
    const done = await correlateOrganization(store, orgId, places.map((n) => leads[n]!), bounds, now);
    places.forEach((n, i) => (outcomes[n] = done[i]!));
  }
  return outcomes;
}
