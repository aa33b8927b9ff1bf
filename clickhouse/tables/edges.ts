// The edges of the knowledge graph. Sightings go in one per (edge, artifact);
// the `edges` table folds them: first and last seen, and the number of
// distinct artifacts (so a replayed artifact counts once). `weight` is that
// artifact count.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { encodedRows, insertEncoded, type EncodedRows } from '../encoded-rows.js';
import { isoToMs } from '../../lib/iso-time.js';
import { RowBinaryWriter, type RowColumns } from '../row-binary.js';
import { queryPage, queryRows, SqlParams, whereClause } from '../sql.js';

export interface EdgeSightingRow {
  org_id: string;
  id: string;
  type: string;
  source_id: string;
  target_id: string;
  artifact_id: string;
  seen_at: string;
}

export interface GraphEdge {
  id: string;
  org_id: string;
  source_id: string;
  target_id: string;
  type: string;
  weight: number;
  first_seen: string;
  last_seen: string;
  artifact_count: number;
}

/** The columns an edge sighting is written with. */
export const EDGE_SIGHTING_COLUMNS: RowColumns = [
  ['org_id', 'LowCardinality(String)'],
  ['id', 'UUID'],
  ['type', 'LowCardinality(String)'],
  ['source_id', 'UUID'],
  ['target_id', 'UUID'],
  ['artifact_id', 'UUID'],
  ['seen_at', "DateTime64(3, 'UTC')"],
];

/** Appends edge sightings as rows of the edge_sightings table (EDGE_SIGHTING_COLUMNS). */
export function writeEdgeSightings(writer: RowBinaryWriter, sightings: EdgeSightingRow[]): void {
  for (const s of sightings) {
    writer.row().string(s.org_id).uuid(s.id).string(s.type).uuid(s.source_id).uuid(s.target_id).uuid(s.artifact_id).dateTime64(isoToMs(s.seen_at));
  }
}

/** Edge sightings as rows of the edge_sightings table, ready to insert (insertEncoded). */
export function encodeEdgeSightings(sightings: EdgeSightingRow[]): EncodedRows {
  const writer = new RowBinaryWriter();
  writeEdgeSightings(writer, sightings);
  return encodedRows('edge_sightings', EDGE_SIGHTING_COLUMNS, writer);
}

export async function insertEdgeSightings(store: Store, sightings: EdgeSightingRow[]): Promise<void> {
  await insertEncoded(store, encodeEdgeSightings(sightings));
}

const EdgeRow = z.object({
  id: z.string(),
  edge_type: z.string(),
  src: z.string(),
  dst: z.string(),
  first: z.string(),
  last: z.string(),
  artifact_count: z.union([z.string(), z.number()]),
});

function fromRow(row: unknown, orgId: string): GraphEdge {
  const r = EdgeRow.parse(row);
  const count = Number(r.artifact_count);
  return {
    id: r.id,
    org_id: orgId,
    source_id: r.src,
    target_id: r.dst,
    type: r.edge_type,
    weight: count,
    first_seen: toIsoTimestamp(r.first),
    last_seen: toIsoTimestamp(r.last),
    artifact_count: count,
  };
}

export interface EdgeFilter {
  sourceId?: string;
  targetId?: string;
  /** Edges touching this node, either end. */
  nodeId?: string;
  ids?: string[];
  type?: string;
  /** Seen at or after start (last_seen >= start). */
  start?: string;
  /** Seen before end (first_seen < end). */
  end?: string;
  limit: number;
  offset: number;
}

function edgeQuery(orgId: string, filter: Omit<EdgeFilter, 'limit' | 'offset'>, params: SqlParams): string {
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.type) where.push(`type = ${params.add(filter.type, 'String')}`);
  if (filter.sourceId) where.push(`source_id = ${params.add(filter.sourceId, 'UUID')}`);
  if (filter.targetId) where.push(`target_id = ${params.add(filter.targetId, 'UUID')}`);
  if (filter.nodeId) {
    const node = params.add(filter.nodeId, 'UUID');
    where.push(`(source_id = ${node} OR target_id = ${node})`);
  }
  if (filter.ids) where.push(`id IN ${params.add(filter.ids, 'Array(UUID)')}`);
  const having: string[] = [];
  if (filter.start) having.push(`last >= ${params.add(toClickHouseTime(filter.start), 'DateTime64(3)')}`);
  if (filter.end) having.push(`first < ${params.add(toClickHouseTime(filter.end), 'DateTime64(3)')}`);
  // Aliases differ from column names on purpose: in ClickHouse an alias shadows the column in WHERE.
  return `SELECT id, any(type) AS edge_type, any(source_id) AS src, any(target_id) AS dst,
                 min(first_seen) AS first, max(last_seen) AS last, uniqCombined64Merge(artifacts) AS artifact_count
          FROM edges ${whereClause(where)} GROUP BY id ${having.length ? `HAVING ${having.join(' AND ')}` : ''}`;
}

/** Most recently seen first. */
export async function listEdges(store: Store, orgId: string, filter: EdgeFilter): Promise<{ edges: GraphEdge[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, { query: edgeQuery(orgId, filter, params), params, orderBy: 'last DESC, id', page: filter });
  return { edges: rows.map((r) => fromRow(r, orgId)), total };
}

export async function getEdge(store: Store, orgId: string, id: string): Promise<GraphEdge | null> {
  const params = new SqlParams();
  const [row] = await queryRows(store, edgeQuery(orgId, { ids: [id] }, params), params);
  return row ? fromRow(row, orgId) : null;
}
