// The knowledge graph (SPEC 2.4, 2.5, 4.4, 4.5): nodes with their flags and
// edges, and the analyst's flag overrides.
import { z } from 'zod';
import { getEdge, listEdges } from '../../clickhouse/tables/edges.js';
import { FLAG_NAMES, getNode, listNodes, nodeSummaries, setFlagOverrides } from '../../clickhouse/tables/nodes.js';
import { geoIp, type AsInfo } from '../../pipeline/geoip/geoip.js';
import { EDGE_TYPES, NODE_TYPES } from '../../topics/index.js';
import type { Store } from '../../clickhouse/client.js';
import type { GraphScopes } from '../../config/env.js';
import { notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, QueryBoolean, Timestamp } from '../schemas.js';

/** Edges listed inside a single-node answer; edge_count says how many there are in all. */
const MAX_NODE_EDGES = 1000;

export const Flags = z.object({ managed: z.boolean(), internal: z.boolean(), trusted: z.boolean(), infrastructure: z.boolean() });

export const GeoSchema = z
  .object({ country_iso_code: z.string().nullable().describe('ISO 3166-1 alpha-2 country of the address') })
  .nullable()
  .describe('IP nodes with a public address: where it is registered (GeoIP); null otherwise');

export const AsSchema = z
  .object({ number: z.number().int(), organization_name: z.string() })
  .nullable()
  .describe('IP nodes with a public address: the autonomous system announcing it; null otherwise');

export const NodeSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  type: z.string().describe(`one of ${NODE_TYPES.join(', ')}`),
  value: z.string(),
  flags: Flags,
  frameworks: z.array(z.number().int()),
  edge_count: z.number().int(),
  created_at: Timestamp,
  geo: GeoSchema,
  as: AsSchema,
});

/** A node as the API shows it: geo and as computed when read, like the flags, so a database update applies to every node. */
export function presentNode<N extends { type: string; value: string }>(node: N): N & { geo: { country_iso_code: string | null } | null; as: AsInfo | null } {
  const info = node.type === 'IP' ? geoIp().lookup(node.value) : null;
  return { ...node, geo: info ? { country_iso_code: info.country_iso_code } : null, as: info?.as ?? null };
}

/** GET /v1/nodes/:id: the node and its most recently seen edges (also the AI tools', api/ai-reads.ts); null when there is none. */
export async function nodeWithEdges(store: Store, orgId: string, scopes: GraphScopes, id: string, edgeLimit = MAX_NODE_EDGES) {
  const node = await getNode(store, orgId, scopes, id);
  if (!node) return null;
  const { edges } = await listEdges(store, orgId, { nodeId: node.id, limit: edgeLimit, offset: 0 });
  return { ...presentNode(node), edges: edges.map((e) => ({ id: e.id, source_id: e.source_id, target_id: e.target_id, type: e.type })) };
}

const EdgeSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  source_id: z.string(),
  target_id: z.string(),
  type: z.string().describe(`one of ${EDGE_TYPES.join(', ')}`),
  weight: z.number().int(),
  first_seen: Timestamp,
  last_seen: Timestamp,
  artifact_count: z.number().int(),
});

const NodeSummary = z.object({ id: z.string(), type: z.string(), value: z.string() });

const FrameworkList = z
  .string()
  .regex(/^\d{1,3}(,\d{1,3})*$/, 'frameworks must be comma-separated framework indices, e.g. 1,3')
  .transform((v) => v.split(',').map(Number));

const NodeQuery = Pagination.extend({
  type: z.enum(NODE_TYPES, { message: `type must be one of ${NODE_TYPES.join(', ')}` }).optional(),
  value: z.string().min(1).max(512).optional(),
  managed: QueryBoolean.optional(),
  internal: QueryBoolean.optional(),
  trusted: QueryBoolean.optional(),
  infrastructure: QueryBoolean.optional(),
  frameworks: FrameworkList.optional(),
});

const EdgeQuery = Pagination.extend({
  source_id: z.uuid({ message: 'source_id must be a UUID' }).optional(),
  target_id: z.uuid({ message: 'target_id must be a UUID' }).optional(),
  type: z.enum(EDGE_TYPES, { message: `type must be one of ${EDGE_TYPES.join(', ')}` }).optional(),
  start: Timestamp.optional(),
  end: Timestamp.optional(),
});

const FlagOverride = z.boolean({ message: 'must be true, false, or null to return to the automatic value' }).nullable().optional();
const FlagsBody = z
  .strictObject({ managed: FlagOverride, internal: FlagOverride, trusted: FlagOverride, infrastructure: FlagOverride })
  .refine((b) => FLAG_NAMES.some((f) => b[f] !== undefined), 'give at least one of managed, internal, trusted, infrastructure');

export const graphRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/nodes',
    summary: 'List graph nodes, newest first; value matches partially, ignoring case; frameworks matches any of the indices',
    tag: 'Graph',
    permission: 'graph:read',
    query: NodeQuery,
    response: listData('nodes', NodeSchema),
    async handler({ query, auth, deps }) {
      const { nodes, total } = await listNodes(deps.store, auth.orgId, deps.config.graph, {
        type: query.type,
        value: query.value,
        flags: { managed: query.managed, internal: query.internal, trusted: query.trusted, infrastructure: query.infrastructure },
        frameworks: query.frameworks,
        limit: query.limit,
        offset: query.offset,
      });
      return { message: `${total} node(s)`, data: { nodes: nodes.map(presentNode), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/nodes/:id',
    summary: `Get a node with its flags and connected edges (the ${MAX_NODE_EDGES} most recently seen)`,
    tag: 'Graph',
    permission: 'graph:read',
    params: IdParams,
    response: NodeSchema.extend({
      edges: z.array(z.object({ id: z.string(), source_id: z.string(), target_id: z.string(), type: z.string(), source: NodeSummary, target: NodeSummary })).describe('each with summaries of its two ends'),
    }),
    errors: [404],
    async handler({ params, auth, deps }) {
      const node = await nodeWithEdges(deps.store, auth.orgId, deps.config.graph, params.id);
      if (!node) throw notFound('node');
      const ends = await nodeSummaries(deps.store, auth.orgId, [...new Set(node.edges.flatMap((e) => [e.source_id, e.target_id]))]);
      const summary = (id: string) => ends.get(id) ?? { id, type: 'unknown', value: '' };
      return { message: 'Node found', data: { ...node, edges: node.edges.map((e) => ({ ...e, source: summary(e.source_id), target: summary(e.target_id) })) } };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/nodes/:id/flags',
    summary: "Set a node's flags by hand; they win over the automatic values and survive later sightings (null returns a flag to automatic)",
    tag: 'Graph',
    permission: 'graph:write',
    params: IdParams,
    body: FlagsBody,
    response: z.object({ id: z.string(), flags: Flags }),
    errors: [404],
    async handler({ params, body, auth, deps }) {
      if (!(await nodeSummaries(deps.store, auth.orgId, [params.id])).has(params.id)) throw notFound('node');
      const before = await getNode(deps.store, auth.orgId, deps.config.graph, params.id);
      await setFlagOverrides(deps.store, auth.orgId, params.id, body, auth.subject);
      const updated = await getNode(deps.store, auth.orgId, deps.config.graph, params.id);
      return { message: 'Node flags updated', data: { id: params.id, flags: updated!.flags }, audit: { before: { id: params.id, flags: before?.flags ?? null } } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/edges',
    summary: 'List edges, most recently seen first; start/end keep edges seen within [start, end)',
    tag: 'Graph',
    permission: 'graph:read',
    query: EdgeQuery,
    response: listData('edges', EdgeSchema),
    async handler({ query, auth, deps }) {
      const { edges, total } = await listEdges(deps.store, auth.orgId, {
        sourceId: query.source_id,
        targetId: query.target_id,
        type: query.type,
        start: query.start,
        end: query.end,
        limit: query.limit,
        offset: query.offset,
      });
      return { message: `${total} edge(s)`, data: { edges, total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/edges/:id',
    summary: 'Get an edge with summaries of its source and target nodes',
    tag: 'Graph',
    permission: 'graph:read',
    params: IdParams,
    response: EdgeSchema.extend({ source: NodeSummary, target: NodeSummary }),
    errors: [404],
    async handler({ params, auth, deps }) {
      const edge = await getEdge(deps.store, auth.orgId, params.id);
      if (!edge) throw notFound('edge');
      const nodes = await nodeSummaries(deps.store, auth.orgId, [edge.source_id, edge.target_id]);
      const summary = (id: string) => nodes.get(id) ?? { id, type: 'unknown', value: '' };
      return {
        message: 'Edge found',
        data: { ...edge, source: summary(edge.source_id), target: summary(edge.target_id) },
      };
    },
  }),
];
