// The leads table (one row per rule firing, the newest version wins) and
// incident_leads (which incident each lead joined).
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { groupBy } from '../../lib/group.js';
import { listOrderBy, type ListSort } from '../list-order.js';
import { Severity } from '../severity.js';
import { queryPage, SqlParams, whereClause } from '../sql.js';
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

/** A lead as the API lists it: the stored row and the incident it joined (null until the correlator placed it). */
export interface ListedLead extends Omit<LeadRow, 'org_id'> {
  incident_id: string | null;
}

const ListedLeadRow = z.object({
  id: z.string(),
  rule_id: z.string(),
  rule_name: z.string(),
  observation_id: z.string(),
  type: z.string(),
  severity: Severity,
  group_by: z.string(),
  group_value: z.string(),
  window_start: z.string().nullable(),
  event_count: z.coerce.number(),
  node_ids: z.array(z.string()),
  artifact_ids: z.array(z.string()),
  source: z.string(),
  first_seen: z.string(),
  last_seen: z.string(),
  created_at: z.string(),
  incident_id: z.string().nullable(),
});

export interface LeadFilter {
  severity?: Severity;
  ruleId?: string;
  /** Leads naming this node. */
  nodeId?: string;
  incidentId?: string;
  /** created_at at or after */
  start?: string;
  /** created_at before */
  end?: string;
  sort?: ListSort;
  limit: number;
  offset: number;
}

/** An organization's leads, newest first unless `sort` says otherwise, each with the incident it joined. */
export async function listLeads(store: Store, orgId: string, filter: LeadFilter): Promise<{ leads: ListedLead[]; total: number }> {
  const params = new SqlParams();
  const org = params.add(orgId, 'String');
  const inner = [`org_id = ${org}`];
  if (filter.severity) inner.push(`severity = ${params.add(filter.severity, 'String')}`);
  if (filter.ruleId) inner.push(`rule_id = ${params.add(filter.ruleId, 'UUID')}`);
  if (filter.nodeId) inner.push(`has(node_ids, ${params.add(filter.nodeId, 'UUID')})`);
  if (filter.start) inner.push(`created_at >= ${params.add(toClickHouseTime(filter.start), 'DateTime64(3)')}`);
  if (filter.end) inner.push(`created_at < ${params.add(toClickHouseTime(filter.end), 'DateTime64(3)')}`);
  const outer = filter.incidentId ? [`incident_id = ${params.add(filter.incidentId, 'UUID')}`] : [];
  const query = `SELECT * FROM (
      SELECT l.id AS id, l.rule_id AS rule_id, l.rule_name AS rule_name, l.observation_id AS observation_id, l.type AS type, l.severity AS severity,
             l.group_by AS group_by, l.group_value AS group_value, l.window_start AS window_start, l.event_count AS event_count, l.node_ids AS node_ids,
             l.artifact_ids AS artifact_ids, l.source AS source, l.first_seen AS first_seen, l.last_seen AS last_seen, l.created_at AS created_at,
             nullIf(il.incident_id, toUUID('00000000-0000-0000-0000-000000000000')) AS incident_id
      FROM (SELECT * FROM leads FINAL ${whereClause(inner)}) AS l
      LEFT JOIN (SELECT lead_id, incident_id FROM incident_leads FINAL WHERE org_id = ${org}) AS il ON il.lead_id = l.id
    ) ${whereClause(outer)}`;
  const { rows, total } = await queryPage(store, { query, params, orderBy: listOrderBy(filter.sort ?? 'newest', 'created_at'), page: filter });
  return {
    leads: rows.map((row) => {
      const r = ListedLeadRow.parse(row);
      return {
        ...r,
        window_start: r.window_start ? toIsoTimestamp(r.window_start) : null,
        first_seen: toIsoTimestamp(r.first_seen),
        last_seen: toIsoTimestamp(r.last_seen),
        created_at: toIsoTimestamp(r.created_at),
      };
    }),
    total,
  };
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
