// The knowledge graph through time (docs/graph.md): the neighbourhood of a
// node as it was at a moment, and what appeared or went quiet in a range.
//
// The edges table keeps, per edge, its first and last sighting and a sketch
// of the distinct artifacts that showed it, not each sighting. So whether an
// edge existed at a moment is exact (first_seen), and so is its count when
// it was last seen by then; an edge seen again later has only today's count,
// an upper bound of its count then, and is marked `approximate`.
//
// A depth-k neighbourhood is k bounded queries, one a level: the edges
// touching the nodes found so far (ids as parameters), of the org, first
// seen before the moment, most recently seen first, at most the room left.
// Edges touching nodes are read in two parts: by source, in the table's
// order, and by target, which reads the organization's edges (docs/graph.md).
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryRows, SqlParams, whereClause } from '../sql.js';

export const MAX_GRAPH_DEPTH = 3;

export interface TimedEdge {
  id: string;
  source_id: string;
  target_id: string;
  type: string;
  first_seen: string;
  last_seen: string;
  artifact_count: number;
  /** Seen again after the moment asked about: last_seen and artifact_count include the later sightings. */
  approximate: boolean;
}

/** What to keep: nodes of these types (the node asked about always), edges of these types; absent keeps all. */
export interface TypeFilter {
  nodeTypes?: string[];
  edgeTypes?: string[];
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

/** Per edge: its rows folded (an AggregatingMergeTree holds unmerged parts until merges catch up); FROM follows. */
const FOLDED_EDGE = `SELECT id, any(type) AS edge_type, any(source_id) AS src, any(target_id) AS dst,
       min(first_seen) AS first, max(last_seen) AS last, uniqCombined64Merge(artifacts) AS artifact_count`;

/**
 * The edge rows touching the ids named `nodes` (idList) that meet `conditions`: those
 * from them, and those to them. An edge between two of the nodes comes twice, which folding
 * by id absorbs (merging the same artifact sketch twice counts it once).
 */
function touchingRows(org: string, nodes: string, conditions: string[]): string {
  const side = (column: string) => `SELECT * FROM edges ${whereClause([`org_id = ${org}`, `${column} IN ${nodes}`, ...conditions])}`;
  return `(${side('source_id')} UNION ALL ${side('target_id')})`;
}

function timedEdge(row: unknown, before: number): TimedEdge {
  const r = EdgeRow.parse(row);
  const lastSeen = toIsoTimestamp(r.last);
  return {
    id: r.id,
    source_id: r.src,
    target_id: r.dst,
    type: r.edge_type,
    first_seen: toIsoTimestamp(r.first),
    last_seen: lastSeen,
    artifact_count: Number(r.artifact_count),
    approximate: Date.parse(lastSeen) >= before,
  };
}

function time(ms: number, params: SqlParams): string {
  return params.add(toClickHouseTime(new Date(ms).toISOString()), 'DateTime64(3)');
}

/**
 * Row conditions for the type filter: edges of the given types, whose ends
 * are both kept (in `kept`, the nodes already reached, or of a given node type).
 */
function typeConditions(orgParam: string, types: TypeFilter, kept: string | null, params: SqlParams): string[] {
  const where: string[] = [];
  if (types.edgeTypes) where.push(`type IN ${params.add(types.edgeTypes, 'Array(String)')}`);
  if (types.nodeTypes) {
    const typed = `(SELECT id FROM nodes WHERE org_id = ${orgParam} AND type IN ${params.add(types.nodeTypes, 'Array(String)')})`;
    const keptEnd = (column: string) => (kept ? `(${column} IN ${kept} OR ${column} IN ${typed})` : `${column} IN ${typed}`);
    where.push(`${keptEnd('source_id')} AND ${keptEnd('target_id')}`);
  }
  return where;
}

/**
 * A list of ids bound once as `name` for the whole statement: the embedded
 * engine gets parameters written into the statement (inline-params.ts), and
 * 2000 ids written at each use would pass the longest statement it parses.
 */
function idList(name: string, ids: string[], params: SqlParams): string {
  return `WITH ${params.add(ids, 'Array(UUID)')} AS ${name}`;
}

interface LevelQuery {
  /** Edges touching these nodes. */
  frontier: string[];
  /** Edges found at earlier levels, left out. */
  known: Set<string>;
  /** First seen before this (ms, exclusive). */
  before: number;
  types: TypeFilter;
  /** Rows wanted; one more is asked for, to know whether there were more. */
  room: number;
}

async function edgesTouching(store: Store, orgId: string, q: LevelQuery): Promise<TimedEdge[]> {
  const params = new SqlParams();
  const org = params.add(orgId, 'String');
  const ids = idList('frontier_ids', q.frontier, params);
  // Known edges touching the frontier are left out here rather than in the statement, which then holds one list of ids;
  // there are at most as many as are known.
  const rows = await queryRows(
    store,
    `${ids} ${FOLDED_EDGE} FROM ${touchingRows(org, 'frontier_ids', typeConditions(org, q.types, 'frontier_ids', params))}
     GROUP BY id HAVING first < ${time(q.before, params)}
     ORDER BY last DESC, id LIMIT ${params.add(q.room + 1 + q.known.size, 'UInt32')}`,
    params,
  );
  return rows
    .map((r) => timedEdge(r, q.before))
    .filter((e) => !q.known.has(e.id))
    .slice(0, q.room + 1);
}

export interface Neighbourhood {
  /** Each node reached, with its distance in edges from the node asked about (0 for it). */
  depths: Map<string, number>;
  /** Each edge with the level it was found at (1 touches the node asked about). */
  edges: (TimedEdge & { depth: number })[];
  /** More edges were there than `limit`: the farthest level found is cut, and no farther one was read. */
  truncated: boolean;
}

/**
 * The edges within `depth` of a node that were first seen before `before`
 * (ms, exclusive), level by level, at most `limit` edges in all.
 */
export async function neighbourhoodBefore(
  store: Store,
  orgId: string,
  { nodeId, before, depth, types, limit }: { nodeId: string; before: number; depth: number; types: TypeFilter; limit: number },
): Promise<Neighbourhood> {
  const depths = new Map([[nodeId, 0]]);
  const edges: Neighbourhood['edges'] = [];
  let frontier = [nodeId];
  for (let level = 1; level <= depth && frontier.length > 0; level++) {
    const room = limit - edges.length;
    const found = await edgesTouching(store, orgId, { frontier, known: new Set(edges.map((e) => e.id)), before, types, room });
    const next: string[] = [];
    for (const edge of found.slice(0, room)) {
      edges.push({ ...edge, depth: level });
      for (const end of [edge.source_id, edge.target_id]) {
        if (depths.has(end)) continue;
        depths.set(end, level);
        next.push(end);
      }
    }
    if (found.length > room) return { depths, edges, truncated: true };
    frontier = next;
  }
  return { depths, edges, truncated: false };
}

export type ChangeKind = 'new' | 'quiet';

export interface ChangeQuery {
  /** ms; [start, end) */
  start: number;
  end: number;
  /** Edges touching these nodes only (a neighbourhood); absent: the whole org. */
  around?: string[];
  types: TypeFilter;
  limit: number;
}

/** Each kind of change: what is in it (the first `limit`) and whether there was more. */
export type Changes<T> = Record<ChangeKind, { items: T[]; truncated: boolean }>;

/** The day before start, then 16 and 256 times as far back, then all before start: where went-quiet edges are looked for first. */
const QUIET_WINDOWS_MS = [86_400_000, 16 * 86_400_000, 256 * 86_400_000, null];

/** The rows a change is looked for in; `small` when they are a neighbourhood's, few enough to fold all. */
type Scope = (params: SqlParams) => { ids: string; source: string; small?: boolean };

const ChangedRow = z.object({ id: z.string(), is_new: z.union([z.number(), z.boolean()]) });

/**
 * The ids in scope (`source`, a FROM of the rows in scope, which may use the
 * id list `ids` binds) that were new in [start, end) (newest first) and
 * those that went quiet before start (the most recently quiet first), the
 * first `limit` of each, in one statement: the two are disjoint (a quiet
 * one was last seen before start).
 *
 * Organization-wide, only ids with a row in the range are folded, and only
 * by first and last seen: a new one has its first row in [start, end), and
 * one that went quiet its last row before start, so the day before start is
 * looked at first (and farther back only while it holds too few). Folding
 * every id would read all the graph.
 */
async function changedIds(store: Store, scope: Scope, q: ChangeQuery): Promise<Changes<string>> {
  let found: Changes<string> | undefined;
  for (const windowMs of QUIET_WINDOWS_MS) {
    const params = new SqlParams();
    const { ids, source, small } = scope(params);
    const [start, end] = [time(q.start, params), time(q.end, params)];
    // Once the new ones are known, later rounds look for quiet ones alone.
    const lookForNew = !found;
    const newRows = `first_seen >= ${start} AND first_seen < ${end}`;
    const quietRows = `last_seen < ${start}${windowMs === null ? '' : ` AND last_seen >= ${time(q.start - windowMs, params)}`}`;
    const candidates = small ? '' : `WHERE id IN (SELECT id FROM ${source} WHERE ${lookForNew ? `(${newRows}) OR ` : ''}(${quietRows}))`;
    const isNew = `first >= ${start} AND first < ${end}`;
    const rows = await queryRows(
      store,
      `${ids} SELECT id, ${isNew} AS is_new FROM (
         SELECT id, min(first_seen) AS first, max(last_seen) AS last FROM ${source} ${candidates}
         GROUP BY id HAVING ${lookForNew ? `(${isNew}) OR ` : ''}last < ${start})
       ORDER BY is_new DESC, if(is_new, first, last) DESC, id LIMIT ${params.add(q.limit + 1, 'UInt32')} BY is_new`,
      params,
    );
    const parsed = rows.map((r) => ChangedRow.parse(r));
    const of = (isNewKind: boolean) => {
      const kindIds = parsed.filter((r) => Boolean(r.is_new) === isNewKind).map((r) => r.id);
      return { items: kindIds.slice(0, q.limit), truncated: kindIds.length > q.limit };
    };
    found = { new: found?.new ?? of(true), quiet: of(false) };
    if (small || found.quiet.truncated || windowMs === null) return found;
  }
  throw new Error('unreachable: the last window is unbounded');
}

/**
 * Edges first seen in [start, end) ("new", newest first), and last seen
 * before start ("quiet", the most recently quiet first), at most `limit` of
 * each: which they are, then those alone folded with their types, ends and
 * counts.
 */
export async function changedEdges(store: Store, orgId: string, q: ChangeQuery): Promise<Changes<TimedEdge>> {
  const scope: Scope = (params) => {
    const org = params.add(orgId, 'String');
    if (!q.around) return { ids: '', source: `(SELECT * FROM edges ${whereClause([`org_id = ${org}`, ...typeConditions(org, q.types, null, params)])})` };
    return { ids: idList('around_ids', q.around, params), source: touchingRows(org, 'around_ids', typeConditions(org, q.types, 'around_ids', params)), small: true };
  };
  const changed = await changedIds(store, scope, q);
  const chosen = [...changed.new.items, ...changed.quiet.items];
  const byId = new Map<string, TimedEdge>();
  if (chosen.length) {
    const params = new SqlParams();
    const { ids, source } = scope(params);
    const rows = await queryRows(store, `${ids} ${FOLDED_EDGE} FROM ${source} WHERE id IN ${params.add(chosen, 'Array(UUID)')} GROUP BY id`, params);
    for (const row of rows) byId.set(EdgeRow.parse(row).id, timedEdge(row, q.end));
  }
  const edgesOf = ({ items, truncated }: { items: string[]; truncated: boolean }) => ({ items: items.flatMap((id) => byId.get(id) ?? []), truncated });
  return { new: edgesOf(changed.new), quiet: edgesOf(changed.quiet) };
}

/** Node ids first seen in [start, end) and last seen before start, of the whole org, as changedEdges has them. */
export async function changedNodeIds(store: Store, orgId: string, q: Omit<ChangeQuery, 'around'>): Promise<Changes<string>> {
  const scope: Scope = (params) => {
    const where = [`org_id = ${params.add(orgId, 'String')}`];
    if (q.types.nodeTypes) where.push(`type IN ${params.add(q.types.nodeTypes, 'Array(String)')}`);
    return { ids: '', source: `(SELECT * FROM nodes ${whereClause(where)})` };
  };
  return changedIds(store, scope, q);
}
