// The observations table: findings written by analysts and by the rule stage.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { listOrderBy, type ListSort } from '../list-order.js';
import { Severity } from '../severity.js';
import { queryPage, SqlParams, whereClause } from '../sql.js';
import { nextVersion } from '../version.js';

export interface Observation {
  id: string;
  org_id: string;
  type: string;
  description: string;
  severity: Severity;
  node_ids: string[];
  artifact_ids: string[];
  /** The lead rule that made it; null when an analyst wrote it. */
  rule_id: string | null;
  /** The rule's tags (ATT&CK techniques, ...), or the analyst's. */
  tags: string[];
  created_by: string;
  created_at: string;
  updated_at: string;
}

const ObservationRow = z.object({
  id: z.string(),
  org_id: z.string(),
  type: z.string(),
  description: z.string(),
  severity: Severity,
  node_ids: z.array(z.string()),
  artifact_ids: z.array(z.string()),
  rule_id: z.string().nullable(),
  tags: z.array(z.string()),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

const COLUMNS = 'id, org_id, type, description, severity, node_ids, artifact_ids, rule_id, tags, created_by, created_at, updated_at';

function fromRow(row: unknown): Observation {
  const r = ObservationRow.parse(row);
  return { ...r, created_at: toIsoTimestamp(r.created_at), updated_at: toIsoTimestamp(r.updated_at) };
}

function toRow(o: Observation, isDeleted: boolean) {
  return { ...o, created_at: toClickHouseTime(o.created_at), updated_at: toClickHouseTime(o.updated_at), version: nextVersion(), is_deleted: isDeleted ? 1 : 0 };
}

/** Writes these observations as their newest versions (create, update, and the rule stage's firings). */
export async function saveObservations(store: Store, observations: Observation[]): Promise<void> {
  if (observations.length === 0) return;
  await store.insert({ table: 'observations', format: 'JSONEachRow', values: observations.map((o) => toRow(o, false)) });
}

export async function deleteObservation(store: Store, observation: Observation): Promise<void> {
  await store.insert({ table: 'observations', format: 'JSONEachRow', values: [toRow({ ...observation, updated_at: new Date().toISOString() }, true)] });
}

export async function getObservation(store: Store, orgId: string, id: string): Promise<Observation | null> {
  const result = await store.query({
    query: `SELECT ${COLUMNS} FROM observations FINAL WHERE org_id = {orgId:String} AND id = {id:UUID}`,
    query_params: { orgId, id },
    format: 'JSONEachRow',
  });
  const [row] = await result.json();
  return row ? fromRow(row) : null;
}

export interface ObservationFilter {
  type?: string;
  severity?: Severity;
  /** created_at at or after */
  start?: string;
  /** created_at before */
  end?: string;
  ids?: string[];
  /** Observations naming this node. */
  nodeId?: string;
  sort?: ListSort;
  limit: number;
  offset: number;
}

/** Newest first unless `sort` says otherwise. */
export async function listObservations(store: Store, orgId: string, filter: ObservationFilter): Promise<{ observations: Observation[]; total: number }> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.type) where.push(`type = ${params.add(filter.type, 'String')}`);
  if (filter.severity) where.push(`severity = ${params.add(filter.severity, 'String')}`);
  if (filter.start) where.push(`created_at >= ${params.add(toClickHouseTime(filter.start), 'DateTime64(3)')}`);
  if (filter.end) where.push(`created_at < ${params.add(toClickHouseTime(filter.end), 'DateTime64(3)')}`);
  if (filter.ids) where.push(`id IN ${params.add(filter.ids, 'Array(UUID)')}`);
  if (filter.nodeId) where.push(`has(node_ids, ${params.add(filter.nodeId, 'UUID')})`);
  const { rows, total } = await queryPage(store, {
    query: `SELECT ${COLUMNS} FROM observations FINAL ${whereClause(where)}`,
    params,
    orderBy: listOrderBy(filter.sort ?? 'newest', 'created_at'),
    page: filter,
  });
  return { observations: rows.map(fromRow), total };
}

/**
 * Who made each of these observations (`created_by`), by id, those deleted
 * since included: a backfill leaves alone what the rule raised before, and
 * does not bring back what an analyst deleted.
 */
export async function observationMakers(store: Store, orgId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const result = await store.query({
    query: 'SELECT toString(id) AS oid, argMax(created_by, version) AS maker FROM observations WHERE org_id = {orgId:String} AND id IN {ids:Array(UUID)} GROUP BY id',
    query_params: { orgId, ids },
    format: 'JSONEachRow',
  });
  return new Map((await result.json<{ oid: string; maker: string }>()).map((r) => [r.oid, r.maker]));
}
