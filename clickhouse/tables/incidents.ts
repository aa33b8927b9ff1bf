// Incidents: what the correlator knows of each (incidents), the status an
// analyst gave it (incident_status, 1 New when never set), and the history
// of status changes.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { listOrderBy, type ListSort } from '../list-order.js';
import { Severity } from '../severity.js';
import { queryPage, queryRows, SqlParams, whereClause } from '../sql.js';
import { nextVersion } from '../version.js';

export interface IncidentCore {
  id: string;
  org_id: string;
  title: string;
  severity: Severity;
  artifact_count: number;
  node_count: number;
  node_ids: string[];
  observation_ids: string[];
  first_seen: string;
  last_seen: string;
  created_at: string;
  updated_at: string;
}

export interface Incident extends IncidentCore {
  status: number;
}

/** An incident's status until an analyst sets one. */
export const NEW_STATUS = 1;

const IncidentRow = z.object({
  id: z.string(),
  org_id: z.string(),
  title: z.string(),
  severity: Severity,
  artifact_count: z.coerce.number(),
  node_count: z.coerce.number(),
  node_ids: z.array(z.string()),
  observation_ids: z.array(z.string()),
  first_seen: z.string(),
  last_seen: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  current_status: z.coerce.number(),
});

function fromRow(row: unknown): Incident {
  const { current_status, ...r } = IncidentRow.parse(row);
  return {
    ...r,
    status: current_status || NEW_STATUS,
    first_seen: toIsoTimestamp(r.first_seen),
    last_seen: toIsoTimestamp(r.last_seen),
    created_at: toIsoTimestamp(r.created_at),
    updated_at: toIsoTimestamp(r.updated_at),
  };
}

export async function saveIncidents(store: Store, incidents: IncidentCore[]): Promise<void> {
  if (incidents.length === 0) return;
  await store.insert({
    table: 'incidents',
    format: 'JSONEachRow',
    values: incidents.map((incident) => ({
      ...incident,
      first_seen: toClickHouseTime(incident.first_seen),
      last_seen: toClickHouseTime(incident.last_seen),
      created_at: toClickHouseTime(incident.created_at),
      updated_at: toClickHouseTime(incident.updated_at),
      version: nextVersion(),
    })),
  });
}

export interface IncidentFilter {
  status?: number;
  severity?: Severity;
  /** created_at at or after */
  start?: string;
  /** created_at before */
  end?: string;
  ids?: string[];
  /** Incidents holding this node. */
  nodeId?: string;
  sort?: ListSort;
  limit: number;
  offset: number;
}

function incidentQuery(orgId: string, filter: Omit<IncidentFilter, 'limit' | 'offset'>, params: SqlParams): string {
  const org = params.add(orgId, 'String');
  // Named incidents are picked inside each FINAL read, so that only their rows are folded, not the organization's.
  const ids = filter.ids ? params.add(filter.ids, 'Array(UUID)') : null;
  const where = [`i.org_id = ${org}`];
  if (filter.severity) where.push(`i.severity = ${params.add(filter.severity, 'String')}`);
  if (filter.start) where.push(`i.created_at >= ${params.add(toClickHouseTime(filter.start), 'DateTime64(3)')}`);
  if (filter.end) where.push(`i.created_at < ${params.add(toClickHouseTime(filter.end), 'DateTime64(3)')}`);
  if (filter.nodeId) where.push(`has(i.node_ids, ${params.add(filter.nodeId, 'UUID')})`);
  if (filter.status !== undefined) where.push(`if(s.status = 0, ${NEW_STATUS}, s.status) = ${params.add(filter.status, 'UInt8')}`);
  return `SELECT i.id AS id, i.org_id AS org_id, i.title AS title, i.severity AS severity, i.artifact_count AS artifact_count,
                 i.node_count AS node_count, i.node_ids AS node_ids, i.observation_ids AS observation_ids, i.first_seen AS first_seen,
                 i.last_seen AS last_seen, i.created_at AS created_at, greatest(i.updated_at, s.changed_at) AS updated_at, s.status AS current_status
          FROM (SELECT * FROM incidents FINAL WHERE org_id = ${org}${ids ? ` AND id IN ${ids}` : ''}) AS i
          LEFT JOIN (SELECT incident_id, status, changed_at FROM incident_status FINAL WHERE org_id = ${org}${ids ? ` AND incident_id IN ${ids}` : ''}) AS s ON s.incident_id = i.id
          ${whereClause(where)}`;
}

/** Newest first unless `sort` says otherwise. */
export async function listIncidents(store: Store, orgId: string, filter: IncidentFilter): Promise<{ incidents: Incident[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, { query: incidentQuery(orgId, filter, params), params, orderBy: listOrderBy(filter.sort ?? 'newest', 'created_at'), page: filter });
  return { incidents: rows.map(fromRow), total };
}

export async function getIncident(store: Store, orgId: string, id: string): Promise<Incident | null> {
  return (await getIncidents(store, orgId, [id])).get(id) ?? null;
}

/** The incidents of those ids that exist, by id. */
export async function getIncidents(store: Store, orgId: string, ids: string[]): Promise<Map<string, Incident>> {
  if (ids.length === 0) return new Map();
  const params = new SqlParams();
  const rows = await queryRows(store, incidentQuery(orgId, { ids }, params), params);
  return new Map(rows.map(fromRow).map((incident) => [incident.id, incident]));
}

export interface StatusChange {
  from_status: number;
  to_status: number;
  changed_by: string;
  changed_at: string;
  /** Why, in the analyst's words; empty when none was given. */
  note: string;
}

/** Sets the status and records the change. */
export async function setIncidentStatus(store: Store, orgId: string, incidentId: string, change: StatusChange): Promise<void> {
  const at = toClickHouseTime(change.changed_at);
  await store.insert({
    table: 'incident_status',
    format: 'JSONEachRow',
    values: [{ org_id: orgId, incident_id: incidentId, status: change.to_status, changed_by: change.changed_by, changed_at: at, version: nextVersion() }],
  });
  await store.insert({ table: 'incident_status_changes', format: 'JSONEachRow', values: [{ org_id: orgId, incident_id: incidentId, ...change, changed_at: at }] });
}

export async function statusHistory(store: Store, orgId: string, incidentId: string): Promise<StatusChange[]> {
  const result = await store.query({
    query: `SELECT from_status, to_status, changed_by, changed_at, note FROM incident_status_changes
            WHERE org_id = {orgId:String} AND incident_id = {incidentId:UUID} ORDER BY changed_at`,
    query_params: { orgId, incidentId },
    format: 'JSONEachRow',
  });
  return (await result.json<StatusChange>()).map((c) => ({ ...c, from_status: Number(c.from_status), to_status: Number(c.to_status), changed_at: toIsoTimestamp(c.changed_at) }));
}
