// The nodes of the knowledge graph, their flags and framework scopes.
//
// Automatic flags and framework indices are computed when read, from the
// configured scopes (config/env.ts GraphScopes), so changing the
// configuration applies to every node at once. An analyst's override
// (node_flag_overrides) wins over the automatic value until cleared.
import { z } from 'zod';
import type { GraphScopes, ScopeEntry } from '../../config/env.js';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { encodedRows, insertEncoded, type EncodedRows } from '../encoded-rows.js';
import { isoToMs } from '../../lib/iso-time.js';
import { RowBinaryWriter, type RowColumns } from '../row-binary.js';
import { queryPage, queryRows, SqlParams, whereClause } from '../sql.js';
import { nextVersion } from '../version.js';

export const FLAG_NAMES = ['managed', 'internal', 'trusted', 'infrastructure'] as const;
export type FlagName = (typeof FLAG_NAMES)[number];
export type Flags = Record<FlagName, boolean>;
export type FlagOverrides = Partial<Record<FlagName, boolean | null>>;

export interface NodeSighting {
  org_id: string;
  id: string;
  type: string;
  value: string;
  first_seen: string;
  last_seen: string;
}

export interface GraphNode {
  id: string;
  org_id: string;
  type: string;
  value: string;
  flags: Flags;
  frameworks: number[];
  edge_count: number;
  created_at: string;
}

/** The columns a node sighting is written with. */
const NODE_COLUMNS: RowColumns = [
  ['org_id', 'LowCardinality(String)'],
  ['type', 'LowCardinality(String)'],
  ['value', 'String'],
  ['id', 'UUID'],
  // SimpleAggregateFunction(min / max, ...) in the table: written as the values they fold.
  ['first_seen', "DateTime64(3, 'UTC')"],
  ['last_seen', "DateTime64(3, 'UTC')"],
];

/** Node sightings as rows of the nodes table, ready to insert (insertEncoded). */
export function encodeNodeSightings(nodes: NodeSighting[]): EncodedRows {
  const writer = new RowBinaryWriter();
  for (const n of nodes) writer.row().string(n.org_id).string(n.type).string(n.value).uuid(n.id).dateTime64(isoToMs(n.first_seen)).dateTime64(isoToMs(n.last_seen));
  return encodedRows('nodes', NODE_COLUMNS, writer);
}

export async function insertNodeSightings(store: Store, nodes: NodeSighting[]): Promise<void> {
  await insertEncoded(store, encodeNodeSightings(nodes));
}

/** SQL that is true when node (type, value) falls in one of the scope entries. */
function scopeCondition(entries: ScopeEntry[], params: SqlParams): string {
  const parts = entries.map((entry) => {
    switch (entry.kind) {
      case 'cidr':
        return `(type = 'IP' AND isIPAddressInRange(if(type = 'IP', value, '0.0.0.0'), ${params.add(entry.cidr, 'String')}))`;
      case 'suffix': {
        const domain = params.add(entry.domain, 'String');
        return `((type IN ('domain', 'host') AND (value = ${domain} OR endsWith(value, concat('.', ${domain})))) OR (type = 'email' AND (endsWith(value, concat('@', ${domain})) OR endsWith(value, concat('.', ${domain})))))`;
      }
      case 'name':
        return `(type IN ('host', 'domain', 'user') AND value = ${params.add(entry.name, 'String')})`;
    }
  });
  return parts.length ? parts.join(' OR ') : '0';
}

/** Select expressions for the effective flags and frameworks of a row with columns type, value and o_<flag> overrides. */
function flagColumns(scopes: GraphScopes, params: SqlParams): string {
  const flags = FLAG_NAMES.map((flag) => `coalesce(o_${flag}, ${scopeCondition(scopes[flag], params)}) AS ${flag}`);
  const frameworks = scopes.frameworks.length
    ? `arrayConcat(${scopes.frameworks.map((f) => `if(${scopeCondition(f.entries, params)}, [${params.add(f.index, 'UInt16')}], [])`).join(', ')})`
    : 'CAST([], \'Array(UInt16)\')';
  return `${flags.join(', ')}, ${frameworks} AS frameworks`;
}

const NodeRow = z.object({
  id: z.string(),
  type: z.string(),
  value: z.string(),
  created_at: z.string(),
  managed: z.union([z.boolean(), z.number()]),
  internal: z.union([z.boolean(), z.number()]),
  trusted: z.union([z.boolean(), z.number()]),
  infrastructure: z.union([z.boolean(), z.number()]),
  frameworks: z.array(z.union([z.number(), z.string()])),
});

export interface NodeFilter {
  type?: string;
  value?: string;
  flags: Partial<Flags>;
  frameworks?: number[];
  ids?: string[];
  limit: number;
  offset: number;
}

/** The nodes of an org with effective flags and frameworks (also a subquery of the reports); `rows` is the inner query the filters apply to. */
export function nodeQuery(orgId: string, scopes: GraphScopes, filter: Omit<NodeFilter, 'limit' | 'offset'>, params: SqlParams): string {
  const org = params.add(orgId, 'String');
  const inner = [`org_id = ${org}`];
  if (filter.type) inner.push(`type = ${params.add(filter.type, 'String')}`);
  if (filter.value) inner.push(`positionCaseInsensitiveUTF8(value, ${params.add(filter.value, 'String')}) > 0`);
  if (filter.ids) inner.push(`id IN ${params.add(filter.ids, 'Array(UUID)')}`);
  const outer: string[] = [];
  for (const flag of FLAG_NAMES) if (filter.flags[flag] !== undefined) outer.push(`${flag} = ${params.add(filter.flags[flag], 'Bool')}`);
  if (filter.frameworks?.length) outer.push(`hasAny(frameworks, ${params.add(filter.frameworks, 'Array(UInt16)')})`);
  // Aliases differ from column names on purpose: in ClickHouse an alias
  // shadows the column of the same name in WHERE.
  return `SELECT * FROM (
      SELECT n.id AS id, n.node_type AS type, n.node_value AS value, n.first AS created_at, n.last AS last_seen, ${flagColumns(scopes, params)}
      FROM (SELECT id, any(type) AS node_type, any(value) AS node_value, min(first_seen) AS first, max(last_seen) AS last
            FROM nodes ${whereClause(inner)} GROUP BY id) AS n
      LEFT JOIN (SELECT node_id, managed AS o_managed, internal AS o_internal, trusted AS o_trusted, infrastructure AS o_infrastructure
                 FROM node_flag_overrides FINAL WHERE org_id = ${org}) AS o ON o.node_id = n.id
    ) ${whereClause(outer)}`;
}

function fromRow(row: unknown, orgId: string, edgeCounts: Map<string, number>): GraphNode {
  const r = NodeRow.parse(row);
  return {
    id: r.id,
    org_id: orgId,
    type: r.type,
    value: r.value,
    flags: { managed: Boolean(r.managed), internal: Boolean(r.internal), trusted: Boolean(r.trusted), infrastructure: Boolean(r.infrastructure) },
    frameworks: r.frameworks.map(Number),
    edge_count: edgeCounts.get(r.id) ?? 0,
    created_at: toIsoTimestamp(r.created_at),
  };
}

const JOIN_SETTINGS = { join_use_nulls: 1 } as const;

/** Distinct edges touching each of these nodes. */
export async function edgeCounts(store: Store, orgId: string, ids: string[]): Promise<Map<string, number>> {
  if (ids.length === 0) return new Map();
  const result = await store.query({
    query: `SELECT node, count() AS n FROM (
              SELECT id, arrayJoin([source_id, target_id]) AS node FROM edges
              WHERE org_id = {orgId:String} AND (source_id IN {ids:Array(UUID)} OR target_id IN {ids:Array(UUID)})
              GROUP BY id, node)
            WHERE node IN {ids:Array(UUID)} GROUP BY node`,
    query_params: { orgId, ids },
    format: 'JSONEachRow',
  });
  return new Map((await result.json<{ node: string; n: string }>()).map((r) => [r.node, Number(r.n)]));
}

export async function listNodes(store: Store, orgId: string, scopes: GraphScopes, filter: NodeFilter): Promise<{ nodes: GraphNode[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, {
    query: nodeQuery(orgId, scopes, filter, params),
    params,
    orderBy: 'created_at DESC, id',
    page: filter,
    settings: JOIN_SETTINGS,
  });
  const counts = await edgeCounts(store, orgId, rows.map((r) => (r as { id: string }).id));
  return { nodes: rows.map((r) => fromRow(r, orgId, counts)), total };
}

export async function getNode(store: Store, orgId: string, scopes: GraphScopes, id: string): Promise<GraphNode | null> {
  const params = new SqlParams();
  const [row] = await queryRows(store, nodeQuery(orgId, scopes, { ids: [id], flags: {} }, params), params, JOIN_SETTINGS);
  return row ? fromRow(row, orgId, await edgeCounts(store, orgId, [id])) : null;
}

/** A node with its effective flags and when it was first and last seen (the temporal graph's view of it). */
export interface SeenNode {
  id: string;
  type: string;
  value: string;
  flags: Flags;
  frameworks: number[];
  first_seen: string;
  last_seen: string;
}

const SeenNodeRow = NodeRow.extend({ last_seen: z.string() });

/** Ids one statement of seenNodes names: the embedded engine gets them written into it, whose length is bounded. */
const SEEN_NODES_BATCH = 2000;

/** These nodes of the org (ids of other orgs find nothing), with flags and first and last seen. */
export async function seenNodes(store: Store, orgId: string, scopes: GraphScopes, ids: string[]): Promise<Map<string, SeenNode>> {
  const rows: unknown[] = [];
  for (let i = 0; i < ids.length; i += SEEN_NODES_BATCH) {
    const params = new SqlParams();
    rows.push(...(await queryRows(store, nodeQuery(orgId, scopes, { ids: ids.slice(i, i + SEEN_NODES_BATCH), flags: {} }, params), params, JOIN_SETTINGS)));
  }
  return new Map(
    rows.map((row) => {
      const r = SeenNodeRow.parse(row);
      const flags = { managed: Boolean(r.managed), internal: Boolean(r.internal), trusted: Boolean(r.trusted), infrastructure: Boolean(r.infrastructure) };
      const node: SeenNode = { id: r.id, type: r.type, value: r.value, flags, frameworks: r.frameworks.map(Number), first_seen: toIsoTimestamp(r.created_at), last_seen: toIsoTimestamp(r.last_seen) };
      return [r.id, node];
    }),
  );
}

/** Records an analyst's flags; a null clears that flag's override. Earlier overrides of other flags stay. */
export async function setFlagOverrides(store: Store, orgId: string, nodeId: string, changes: FlagOverrides, by: string): Promise<void> {
  const result = await store.query({
    query: `SELECT managed, internal, trusted, infrastructure FROM node_flag_overrides FINAL WHERE org_id = {orgId:String} AND node_id = {nodeId:UUID}`,
    query_params: { orgId, nodeId },
    format: 'JSONEachRow',
  });
  const [current] = await result.json<Record<FlagName, boolean | null>>();
  const next: Record<FlagName, boolean | null> = { managed: null, internal: null, trusted: null, infrastructure: null, ...current };
  for (const flag of FLAG_NAMES) if (changes[flag] !== undefined) next[flag] = changes[flag];
  await store.insert({
    table: 'node_flag_overrides',
    format: 'JSONEachRow',
    values: [{ org_id: orgId, node_id: nodeId, ...next, updated_by: by, updated_at: toClickHouseTime(new Date().toISOString()), version: nextVersion() }],
  });
}

export interface NodeSummary {
  id: string;
  type: string;
  value: string;
}

/** id, type and value of these nodes (for edge and incident summaries). */
export async function nodeSummaries(store: Store, orgId: string, ids: string[]): Promise<Map<string, NodeSummary>> {
  if (ids.length === 0) return new Map();
  const result = await store.query({
    query: `SELECT id, any(type) AS node_type, any(value) AS node_value FROM nodes WHERE org_id = {orgId:String} AND id IN {ids:Array(UUID)} GROUP BY id`,
    query_params: { orgId, ids },
    format: 'JSONEachRow',
  });
  return new Map((await result.json<{ id: string; node_type: string; node_value: string }>()).map((n) => [n.id, { id: n.id, type: n.node_type, value: n.node_value }]));
}
