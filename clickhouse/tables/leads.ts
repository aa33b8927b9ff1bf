// The leads table (one row per rule firing, the newest version wins) and
// incident_leads (which incident each lead joined).
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
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

export async function saveIncidentLead(store: Store, lead: IncidentLead): Promise<void> {
  await store.insert({
    table: 'incident_leads',
    format: 'JSONEachRow',
    values: [{ ...lead, first_seen: toClickHouseTime(lead.first_seen), last_seen: toClickHouseTime(lead.last_seen), version: nextVersion() }],
  });
}

/** The incident a lead joined, if it joined one. */
export async function incidentOfLead(store: Store, orgId: string, leadId: string): Promise<string | null> {
  const result = await store.query({
    query: 'SELECT incident_id FROM incident_leads FINAL WHERE org_id = {orgId:String} AND lead_id = {leadId:UUID}',
    query_params: { orgId, leadId },
    format: 'JSONEachRow',
  });
  const [row] = await result.json<{ incident_id: string }>();
  return row?.incident_id ?? null;
}

export async function leadsOfIncident(store: Store, orgId: string, incidentId: string): Promise<IncidentLead[]> {
  const result = await store.query({
    query: `SELECT org_id, lead_id, incident_id, rule_name, observation_id, severity, node_ids, artifact_ids, first_seen, last_seen
            FROM incident_leads FINAL WHERE org_id = {orgId:String} AND incident_id = {incidentId:UUID} ORDER BY first_seen, lead_id`,
    query_params: { orgId, incidentId },
    format: 'JSONEachRow',
  });
  return (await result.json()).map(incidentLeadFromRow);
}

/**
 * Incidents holding a lead that shares one of `nodeIds` and whose event time
 * [first_seen, last_seen] comes within `windowMs` of [firstSeen, lastSeen],
 * on either side, the most recently active first.
 */
export async function incidentsSharingNodes(
  store: Store,
  orgId: string,
  lead: { nodeIds: string[]; firstSeen: string; lastSeen: string },
  windowMs: number,
): Promise<{ incident_id: string; last_seen: string }[]> {
  if (lead.nodeIds.length === 0) return [];
  const result = await store.query({
    query: `SELECT incident_id, max(last_seen) AS latest FROM incident_leads FINAL
            WHERE org_id = {orgId:String} AND hasAny(node_ids, {nodeIds:Array(UUID)})
              AND last_seen >= {after:DateTime64(3)} AND first_seen <= {before:DateTime64(3)}
            GROUP BY incident_id ORDER BY latest DESC, incident_id`,
    query_params: {
      orgId,
      nodeIds: lead.nodeIds,
      after: toClickHouseTime(new Date(Date.parse(lead.firstSeen) - windowMs).toISOString()),
      before: toClickHouseTime(new Date(Date.parse(lead.lastSeen) + windowMs).toISOString()),
    },
    format: 'JSONEachRow',
  });
  return (await result.json<{ incident_id: string; latest: string }>()).map((r) => ({ incident_id: r.incident_id, last_seen: toIsoTimestamp(r.latest) }));
}
