// The leads table (one row per rule firing, the newest version wins) and
// incident_leads (which incident each lead joined).
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { groupBy } from '../../lib/group.js';
import { Severity } from '../severity.js';
import { nextVersion } from '../version.js';

export interface LeadRow {
  id: string;
  org_id: string;
  rule_id: string;
  rule_name: string;
  observation_id: string;
  type: string;
  severity: Severity;
  group_by: string;
  group_value: string;
  window_start: string | null;
  event_count: number;
  node_ids: string[];
  artifact_ids: string[];
  source: string;
  first_seen: string;
  last_seen: string;
  created_at: string;
}

export async function saveLeads(store: Store, leads: LeadRow[]): Promise<void> {
  if (leads.length === 0) return;
  await store.insert({
    table: 'leads',
    format: 'JSONEachRow',
    values: leads.map((l) => ({
      ...l,
      window_start: l.window_start ? toClickHouseTime(l.window_start) : null,
      first_seen: toClickHouseTime(l.first_seen),
      last_seen: toClickHouseTime(l.last_seen),
      created_at: toClickHouseTime(l.created_at),
      version: nextVersion(),
    })),
  });
}

/** A lead as it stands in an incident. */
export interface IncidentLead {
  org_id: string;
  lead_id: string;
  incident_id: string;
  rule_name: string;
  observation_id: string;
  severity: Severity;
  node_ids: string[];
  artifact_ids: string[];
  first_seen: string;
  last_seen: string;
}

const IncidentLeadRow = z.object({
  org_id: z.string(),
  lead_id: z.string(),
  incident_id: z.string(),
  rule_name: z.string(),
  observation_id: z.string(),
  severity: Severity,
  node_ids: z.array(z.string()),
  artifact_ids: z.array(z.string()),
  first_seen: z.string(),
  last_seen: z.string(),
});

function incidentLeadFromRow(row: unknown): IncidentLead {
  const r = IncidentLeadRow.parse(row);
  return { ...r, first_seen: toIsoTimestamp(r.first_seen), last_seen: toIsoTimestamp(r.last_seen) };
}

export async function saveIncidentLeads(store: Store, leads: IncidentLead[]): Promise<void> {
  if (leads.length === 0) return;
  await store.insert({
    table: 'incident_leads',
    format: 'JSONEachRow',
    values: leads.map((lead) => ({ ...lead, first_seen: toClickHouseTime(lead.first_seen), last_seen: toClickHouseTime(lead.last_seen), version: nextVersion() })),
  });
}

/** The incident each of the leads joined, for those that joined one, by lead id. */
export async function incidentsOfLeads(store: Store, orgId: string, leadIds: string[]): Promise<Map<string, string>> {
  if (leadIds.length === 0) return new Map();
  const result = await store.query({
    query: 'SELECT lead_id, incident_id FROM incident_leads FINAL WHERE org_id = {orgId:String} AND lead_id IN {leadIds:Array(UUID)}',
    query_params: { orgId, leadIds },
    format: 'JSONEachRow',
  });
  return new Map((await result.json<{ lead_id: string; incident_id: string }>()).map((r) => [r.lead_id, r.incident_id]));
}

/** Leads sharing one of `nodeIds` whose event time [first_seen, last_seen] meets [after, before]. */
export interface NodeSharing {
  nodeIds: string[];
  after: string;
  before: string;
}

/**
 * Every lead of the incidents named and of those holding a lead that
 * `sharing` selects, by incident id, each incident's in order of first_seen
 * then lead id.
 */
export async function incidentMembers(store: Store, orgId: string, { incidentIds, sharing }: { incidentIds: string[]; sharing?: NodeSharing }): Promise<Map<string, IncidentLead[]>> {
  const near = sharing && sharing.nodeIds.length > 0 ? sharing : null;
  const chosen: string[] = [];
  const params: Record<string, unknown> = { orgId };
  if (incidentIds.length > 0) {
    chosen.push('incident_id IN {incidentIds:Array(UUID)}');
    params.incidentIds = incidentIds;
  }
  if (near) {
    chosen.push(`incident_id IN (SELECT incident_id FROM incident_leads FINAL
                   WHERE org_id = {orgId:String} AND hasAny(node_ids, {nodeIds:Array(UUID)})
                     AND last_seen >= {after:DateTime64(3)} AND first_seen <= {before:DateTime64(3)})`);
    Object.assign(params, { nodeIds: near.nodeIds, after: toClickHouseTime(near.after), before: toClickHouseTime(near.before) });
  }
  if (chosen.length === 0) return new Map();
  const result = await store.query({
    query: `SELECT org_id, lead_id, incident_id, rule_name, observation_id, severity, node_ids, artifact_ids, first_seen, last_seen
            FROM incident_leads FINAL WHERE org_id = {orgId:String} AND (${chosen.join(' OR ')})
            ORDER BY incident_id, first_seen, lead_id`,
    query_params: params,
    format: 'JSONEachRow',
  });
  return groupBy((await result.json()).map(incidentLeadFromRow), (member) => member.incident_id);
}

/**
 * How many leads a rule raised per day (UTC) since `sinceMs`: each lead on
 * the day it was first written (its oldest version), so a window that grew
 * counts once, and a lead for old events counts on the day it was raised.
 */
export async function leadsRaisedByDay(store: Store, orgId: string, ruleId: string, sinceMs: number): Promise<Map<string, number>> {
  const result = await store.query({
    query: `SELECT toString(toDate(toDateTime(intDiv(raised, 1000000), 'UTC'))) AS day, count() AS n
            FROM (SELECT id, min(version) AS raised FROM leads WHERE org_id = {orgId:String} AND rule_id = {ruleId:UUID} GROUP BY id)
            WHERE raised >= {since:UInt64}
            GROUP BY day`,
    query_params: { orgId, ruleId, since: sinceMs * 1000 },
    format: 'JSONEachRow',
  });
  const rows = z.array(z.object({ day: z.string(), n: z.coerce.number() })).parse(await result.json());
  return new Map(rows.map((r) => [r.day, r.n]));
}
