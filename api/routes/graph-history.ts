// The knowledge graph through time (docs/graph.md): a node's neighbourhood
// as it was at a moment, and what was new or went quiet in a range.
import { z } from 'zod';
import {
  changedEdges,
  changedNodeIds,
  MAX_GRAPH_DEPTH,
  neighbourhoodBefore,
  type ChangeKind,
  type ChangeQuery,
  type TimedEdge,
  type TypeFilter,
} from '../../clickhouse/tables/graph-history.js';
import { seenNodes, type SeenNode } from '../../clickhouse/tables/nodes.js';
import { EDGE_TYPES, NODE_TYPES } from '../../topics/index.js';
import { notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { Timestamp } from '../schemas.js';
import { AsSchema, Flags, GeoSchema, presentNode } from './graph.js';

/** Edges one neighbourhood answers with, and items each list of changes holds, at most. */
export const MAX_GRAPH_LIMIT = 2000;
const DEFAULT_GRAPH_LIMIT = 200;

const GraphLimit = z.coerce
  .number({ message: 'limit must be an integer' })
  .int('limit must be an integer')
  .min(1, 'limit must be at least 1')
  .max(MAX_GRAPH_LIMIT, `limit must be at most ${MAX_GRAPH_LIMIT}`)
  .default(DEFAULT_GRAPH_LIMIT);

const Depth = z.coerce
  .number({ message: 'depth must be an integer' })
  .int('depth must be an integer')
  .min(1, 'depth must be at least 1')
  .max(MAX_GRAPH_DEPTH, `depth must be at most ${MAX_GRAPH_DEPTH}`);

const isNodeType = (name: string): boolean => (NODE_TYPES as readonly string[]).includes(name);
const isEdgeType = (name: string): boolean => (EDGE_TYPES as readonly string[]).includes(name);

/** `types=IP,user,authenticated_as`: node types keep only those nodes, edge types only those edges (the two sets share no name). */
const Types = z
  .string()
  .describe(`comma-separated node types (${NODE_TYPES.join(', ')}) and/or edge types (${EDGE_TYPES.join(', ')}); each kind given keeps only those`)
  .refine(
    (v) => v.split(',').every((name) => isNodeType(name) || isEdgeType(name)),
    `types must be comma-separated node types (${NODE_TYPES.join(', ')}) and/or edge types (${EDGE_TYPES.join(', ')})`,
  )
  .transform((v): TypeFilter => {
    const names = v.split(',');
    const nodeTypes = names.filter(isNodeType);
    const edgeTypes = names.filter(isEdgeType);
    return { nodeTypes: nodeTypes.length ? nodeTypes : undefined, edgeTypes: edgeTypes.length ? edgeTypes : undefined };
  });

const NeighbourhoodQuery = z.object({
  node_id: z.uuid({ message: 'node_id must be a UUID' }),
  depth: Depth.default(1),
  as_of: Timestamp.optional().describe('the moment to show the graph at (default now): edges first seen at or before it'),
  types: Types.optional(),
  limit: GraphLimit.describe(`edges at most (default ${DEFAULT_GRAPH_LIMIT}); past it the answer says truncated`),
});

const ChangesQuery = z
  .object({
    start: Timestamp,
    end: Timestamp,
    node_id: z.uuid({ message: 'node_id must be a UUID' }).optional().describe("only this node's neighbourhood (as of end, at most limit edges); absent: the whole organization"),
    depth: Depth.optional().describe('with node_id: how far around it (default 1)'),
    types: Types.optional(),
    limit: GraphLimit.describe(`items at most in each list (default ${DEFAULT_GRAPH_LIMIT}); past it that list says truncated`),
  })
  .refine((q) => Date.parse(q.start) < Date.parse(q.end), { message: 'start must be before end', path: ['start'] })
  .refine((q) => q.depth === undefined || q.node_id !== undefined, { message: 'depth needs node_id: without one the changes are organization-wide', path: ['depth'] });

const TimedNodeSchema = z.object({
  id: z.string(),
  type: z.string().describe(`one of ${NODE_TYPES.join(', ')}`),
  value: z.string(),
  flags: Flags,
  frameworks: z.array(z.number().int()),
  first_seen: Timestamp,
  last_seen: Timestamp.describe('the latest sighting stored, which may be after as_of'),
  geo: GeoSchema,
  as: AsSchema,
});

const TimedEdgeSchema = z.object({
  id: z.string(),
  source_id: z.string(),
  target_id: z.string(),
  type: z.string().describe(`one of ${EDGE_TYPES.join(', ')}`),
  first_seen: Timestamp,
  last_seen: Timestamp,
  artifact_count: z.number().int().describe('distinct artifacts that showed the relation; exact at the moment asked about unless approximate'),
  approximate: z
    .boolean()
    .describe('seen again after the moment asked about (as_of, or end): last_seen and artifact_count include those later sightings, so the count is an upper bound of what it was then'),
});

const NodeSummary = z.object({ id: z.string(), type: z.string(), value: z.string() });

const NeighbourhoodSchema = z.object({
  node_id: z.string(),
  as_of: Timestamp,
  depth: z.number().int(),
  limit: z.number().int(),
  truncated: z.boolean().describe('more edges than limit: the farthest level is cut and no farther one was read'),
  nodes: z.array(TimedNodeSchema.extend({ depth: z.number().int().describe('edges from node_id (0 for it)') })),
  edges: z.array(TimedEdgeSchema.extend({ depth: z.number().int().describe('the level it was found at: 1 touches node_id') })),
});

const ChangeList = z.object({
  nodes: z.array(TimedNodeSchema),
  edges: z.array(TimedEdgeSchema.extend({ source: NodeSummary, target: NodeSummary })),
  truncated: z.boolean().describe('more nodes or edges than limit'),
});

const ChangesSchema = z.object({
  start: Timestamp,
  end: Timestamp,
  node_id: z.string().nullable(),
  depth: z.number().int().nullable(),
  limit: z.number().int(),
  truncated: z.boolean().describe('a list or the neighbourhood around node_id was cut at its bound'),
  new: ChangeList.describe('first seen in [start, end), newest first'),
  quiet: ChangeList.describe('last seen before start and not since, the most recently quiet first'),
});

const iso = (ms: number): string => new Date(ms).toISOString();

export const graphHistoryRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/graph/neighbourhood',
    summary: 'The nodes and edges within depth of a node as they were at as_of: edges first seen by then, their counts then where the store can say',
    description:
      'Level by level (depth 1 to 3), most recently seen edges first, at most limit edges; truncated says when there were more. ' +
      'An edge seen again after as_of is marked approximate: its count includes the later sightings. See docs/graph.md.',
    tag: 'Graph',
    permission: 'graph:read',
    query: NeighbourhoodQuery,
    response: NeighbourhoodSchema,
    errors: [404],
    async handler({ query, auth, deps }) {
      const asOf = query.as_of ? Date.parse(query.as_of) : Date.now();
      const scopes = deps.config.graph;
      const centre = (await seenNodes(deps.store, auth.orgId, scopes, [query.node_id])).get(query.node_id);
      if (!centre) throw notFound('node');
      const base = { node_id: centre.id, as_of: iso(asOf), depth: query.depth, limit: query.limit };
      if (Date.parse(centre.first_seen) > asOf) {
        return { message: 'The node was first seen after as_of', data: { ...base, truncated: false, nodes: [], edges: [] } };
      }
      // as_of is inclusive and times are whole milliseconds: first seen before the next one.
      const hood = await neighbourhoodBefore(deps.store, auth.orgId, { nodeId: centre.id, before: asOf + 1, depth: query.depth, types: query.types ?? {}, limit: query.limit });
      const nodes = await seenNodes(deps.store, auth.orgId, scopes, [...hood.depths.keys()]);
      const presentNodes = [...hood.depths].flatMap(([id, depth]) => {
        const node = nodes.get(id);
        return node ? [{ ...presentNode(node), depth }] : [];
      });
      return {
        message: `${presentNodes.length} node(s), ${hood.edges.length} edge(s)${hood.truncated ? `, truncated at ${query.limit} edges` : ''}`,
        data: { ...base, truncated: hood.truncated, nodes: presentNodes, edges: hood.edges },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/graph/changes',
    summary: 'Nodes and edges first seen in [start, end) (new) and those last seen before start (went quiet), around a node or organization-wide',
    description:
      'With node_id, within depth of it (its neighbourhood as of end, read as the neighbourhood route reads it, at most limit edges); ' +
      'without, the whole organization. Each list holds at most limit items and says when it was truncated. ' +
      'Only first and last sightings are stored, so an edge seen before start and again after end is in neither list. See docs/graph.md.',
    tag: 'Graph',
    permission: 'graph:read',
    query: ChangesQuery,
    response: ChangesSchema,
    errors: [404],
    async handler({ query, auth, deps }) {
      const [start, end] = [Date.parse(query.start), Date.parse(query.end)];
      const scopes = deps.config.graph;
      const types = query.types ?? {};
      let around: string[] | undefined;
      let aroundTruncated = false;
      if (query.node_id) {
        if (!(await seenNodes(deps.store, auth.orgId, scopes, [query.node_id])).has(query.node_id)) throw notFound('node');
        // Changed edges within depth touch a node within depth - 1 of node_id.
        const inner = await neighbourhoodBefore(deps.store, auth.orgId, { nodeId: query.node_id, before: end, depth: (query.depth ?? 1) - 1, types, limit: query.limit });
        around = [...inner.depths.keys()];
        aroundTruncated = inner.truncated;
      }
      const changeQuery: ChangeQuery = { start, end, around, types, limit: query.limit };
      // Around a node, its changed nodes are the ends of its changed edges (a node comes with its first edge, and leaves with its last);
      // organization-wide, nodes change without an edge too.
      const [edgeChanges, nodeChanges] = await Promise.all([
        changedEdges(deps.store, auth.orgId, changeQuery),
        around ? null : changedNodeIds(deps.store, auth.orgId, changeQuery),
      ]);
      const endIds = [...edgeChanges.new.items, ...edgeChanges.quiet.items].flatMap((e) => [e.source_id, e.target_id]);
      const changedNodes = nodeChanges ? [...nodeChanges.new.items, ...nodeChanges.quiet.items] : [];
      const nodes = await seenNodes(deps.store, auth.orgId, scopes, [...new Set([...endIds, ...changedNodes])]);

      const listOf = (kind: ChangeKind) => {
        const { items: edges, truncated: edgesTruncated } = edgeChanges[kind];
        const changed = (n: SeenNode) => (kind === 'new' ? Date.parse(n.first_seen) >= start && Date.parse(n.first_seen) < end : Date.parse(n.last_seen) < start);
        const order = (n: SeenNode) => (kind === 'new' ? n.first_seen : n.last_seen);
        let nodeIds: string[];
        let nodesTruncated: boolean;
        if (nodeChanges) {
          ({ items: nodeIds, truncated: nodesTruncated } = nodeChanges[kind]);
        } else {
          const ends = [...new Set(edges.flatMap((e) => [e.source_id, e.target_id]))].map((id) => nodes.get(id)).filter((n): n is SeenNode => n !== undefined && changed(n));
          ends.sort((a, b) => order(b).localeCompare(order(a)) || a.id.localeCompare(b.id));
          nodeIds = ends.slice(0, query.limit).map((n) => n.id);
          nodesTruncated = ends.length > query.limit;
        }
        const summary = (id: string) => {
          const node = nodes.get(id);
          return node ? { id, type: node.type, value: node.value } : { id, type: 'unknown', value: '' };
        };
        return {
          nodes: nodeIds.flatMap((id) => (nodes.has(id) ? [presentNode(nodes.get(id)!)] : [])),
          edges: edges.map((e: TimedEdge) => ({ ...e, source: summary(e.source_id), target: summary(e.target_id) })),
          truncated: edgesTruncated || nodesTruncated,
        };
      };
      const [added, quiet] = [listOf('new'), listOf('quiet')];
      const truncated = aroundTruncated || added.truncated || quiet.truncated;
      return {
        message: `${added.nodes.length} new node(s), ${added.edges.length} new edge(s); ${quiet.nodes.length} node(s) and ${quiet.edges.length} edge(s) went quiet${truncated ? ' (truncated)' : ''}`,
        data: {
          start: iso(start),
          end: iso(end),
          node_id: query.node_id ?? null,
          depth: query.node_id ? (query.depth ?? 1) : null,
          limit: query.limit,
          truncated,
          new: added,
          quiet,
        },
      };
    },
  }),
];
