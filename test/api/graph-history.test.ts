// The graph through time (GET /v1/graph/neighbourhood and /v1/graph/changes)
// against a graph the test writes into the real store as the enricher does
// (node sightings, one edge sighting per edge and artifact), each answer
// checked against what the test computes from those sightings by itself.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEdgeSightings, type EdgeSightingRow } from '../../clickhouse/tables/edges.js';
import { insertNodeSightings, type NodeSighting } from '../../clickhouse/tables/nodes.js';
import { startTestApi, type TestApi } from '../helpers/api.js';

const DAY = 86_400_000;
const T0 = Date.parse('2026-11-01T00:00:00Z');
const at = (day: number, hour = 0) => new Date(T0 + day * DAY + hour * 3_600_000).toISOString();

interface TestNode {
  id: string;
  type: 'IP' | 'host' | 'user' | 'domain';
  value: string;
}
interface Sighting {
  artifact: string;
  ms: number;
}
interface TestEdge {
  id: string;
  type: 'communicates_with' | 'authenticated_as' | 'related_to' | 'resolved_to';
  source: TestNode;
  target: TestNode;
  sightings: Sighting[];
}

/** A small deterministic generator, so a failure replays. */
function random(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A host at the centre, 8 neighbours and 24 nodes behind them, 3 more
 * behind those, and a few nodes with no edge; each edge seen by 1 to 4
 * artifacts on days 0 to 19, one artifact sometimes showing it twice.
 */
function makeGraph(orgId: string) {
  const rand = random(41);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(rand() * items.length)]!;
  const node = (type: TestNode['type'], value: string): TestNode => ({ id: randomUUID(), type, value });
  const centre = node('host', 'web-1');
  const ring1 = Array.from({ length: 8 }, (_, i) => (i % 2 ? node('IP', `203.0.113.${i}`) : node('user', `user${i}`)));
  const ring2 = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? node('domain', `d${i}.example.net`) : node('IP', `198.51.100.${i}`)));
  const ring3 = Array.from({ length: 3 }, (_, i) => node('IP', `192.0.2.${i}`));
  const loners = [node('IP', '192.0.2.200'), node('user', 'loner')];
  const edges: TestEdge[] = [];
  const edge = (source: TestNode, target: TestNode) => {
    const type = source.type === 'user' || target.type === 'user' ? 'authenticated_as' : source.type === 'domain' || target.type === 'domain' ? 'resolved_to' : pick(['communicates_with', 'related_to'] as const);
    const first = Math.floor(rand() * 18);
    const sightings: Sighting[] = [];
    const count = 1 + Math.floor(rand() * 4);
    for (let i = 0; i < count; i++) {
      const ms = T0 + (first + (i === 0 ? 0 : Math.floor(rand() * (20 - first)))) * DAY + Math.floor(rand() * 24) * 3_600_000;
      const artifact = randomUUID();
      sightings.push({ artifact, ms });
      if (rand() < 0.2) sightings.push({ artifact, ms: ms + 60_000 }); // the same artifact again: counted once
    }
    edges.push({ id: randomUUID(), type, source, target, sightings });
  };
  for (const n of ring1) edge(centre, n);
  ring2.forEach((n, i) => edge(ring1[i % ring1.length]!, n));
  edge(ring1[0]!, ring1[1]!); // an edge between two neighbours
  ring3.forEach((n, i) => edge(ring2[i]!, n));
  // One neighbour seen only long ago, so that it went quiet.
  edges[2]!.sightings = [{ artifact: randomUUID(), ms: T0 + 1 * DAY }];

  const nodeRows: NodeSighting[] = [];
  const edgeRows: EdgeSightingRow[] = [];
  for (const e of edges) {
    for (const s of e.sightings) {
      const seen = new Date(s.ms).toISOString();
      for (const n of [e.source, e.target]) nodeRows.push({ org_id: orgId, id: n.id, type: n.type, value: n.value, first_seen: seen, last_seen: seen });
      edgeRows.push({ org_id: orgId, id: e.id, type: e.type, source_id: e.source.id, target_id: e.target.id, artifact_id: s.artifact, seen_at: seen });
    }
  }
  nodeRows.push({ org_id: orgId, ...loners[0]!, first_seen: at(9), last_seen: at(10) });
  nodeRows.push({ org_id: orgId, ...loners[1]!, first_seen: at(2), last_seen: at(3) });
  return { centre, nodes: [centre, ...ring1, ...ring2, ...ring3, ...loners], edges, nodeRows, edgeRows };
}

// What the answers should hold, computed from the sightings alone.
const firstSeen = (e: TestEdge) => Math.min(...e.sightings.map((s) => s.ms));
const lastSeen = (e: TestEdge) => Math.max(...e.sightings.map((s) => s.ms));
const artifacts = (e: TestEdge) => new Set(e.sightings.map((s) => s.artifact)).size;

interface Filter {
  nodeTypes?: string[];
  edgeTypes?: string[];
}

function keptEdges(edges: TestEdge[], centre: TestNode, filter: Filter): TestEdge[] {
  const keptNode = (n: TestNode) => n.id === centre.id || !filter.nodeTypes || filter.nodeTypes.includes(n.type);
  return edges.filter((e) => (!filter.edgeTypes || filter.edgeTypes.includes(e.type)) && keptNode(e.source) && keptNode(e.target));
}

/** Distances from the centre over the edges first seen before `before`, up to `depth`. */
function distances(edges: TestEdge[], centre: TestNode, before: number, depth: number): Map<string, number> {
  const dist = new Map([[centre.id, 0]]);
  for (let d = 1; d <= depth; d++) {
    for (const e of edges.filter((x) => firstSeen(x) < before)) {
      const [a, b] = [dist.get(e.source.id), dist.get(e.target.id)];
      if (a === d - 1 && b === undefined) dist.set(e.target.id, d);
      if (b === d - 1 && a === undefined) dist.set(e.source.id, d);
    }
  }
  return dist;
}

function expectedNeighbourhood(graph: ReturnType<typeof makeGraph>, asOf: number, depth: number, filter: Filter = {}) {
  const kept = keptEdges(graph.edges, graph.centre, filter);
  const dist = distances(kept, graph.centre, asOf + 1, depth);
  const near = (id: string) => (dist.get(id) ?? Infinity) <= depth - 1;
  const edges = kept.filter((e) => firstSeen(e) <= asOf && (near(e.source.id) || near(e.target.id)));
  return { edges, nodes: dist };
}

interface EdgeOut {
  id: string;
  source_id: string;
  target_id: string;
  type: string;
  first_seen: string;
  last_seen: string;
  artifact_count: number;
  approximate: boolean;
  depth?: number;
  source?: { id: string; type: string; value: string };
}
interface NodeOut {
  id: string;
  type: string;
  value: string;
  first_seen: string;
  last_seen: string;
  depth?: number;
}
interface Neighbourhood {
  node_id: string;
  as_of: string;
  truncated: boolean;
  nodes: NodeOut[];
  edges: EdgeOut[];
}
interface ChangeList {
  nodes: NodeOut[];
  edges: EdgeOut[];
  truncated: boolean;
}
interface Changes {
  truncated: boolean;
  new: ChangeList;
  quiet: ChangeList;
}

let api: TestApi;
const orgId = `org-${randomUUID().slice(0, 8)}`;
const otherOrg = `org-${randomUUID().slice(0, 8)}`;
const graph = makeGraph(orgId);
const other = makeGraph(otherOrg);

async function get<T>(path: string, token = api.token('all', orgId)): Promise<T> {
  const res = await api.request('GET', path, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data as T;
}

const neighbourhood = (query: string) => get<Neighbourhood>(`/api/v1/graph/neighbourhood?node_id=${graph.centre.id}&${query}`);

/** Each edge as the expected one says, with its count exact when it was last seen by then. */
function expectEdges(actual: EdgeOut[], expected: TestEdge[], moment: number) {
  expect(new Set(actual.map((e) => e.id))).toEqual(new Set(expected.map((e) => e.id)));
  const byId = new Map(expected.map((e) => [e.id, e]));
  for (const out of actual) {
    const e = byId.get(out.id)!;
    expect(out).toMatchObject({ source_id: e.source.id, target_id: e.target.id, type: e.type, first_seen: new Date(firstSeen(e)).toISOString(), last_seen: new Date(lastSeen(e)).toISOString() });
    expect(out.artifact_count).toBe(artifacts(e));
    expect(out.approximate).toBe(lastSeen(e) > moment);
  }
}

/** `actual` holds `count` of `candidates`, none of them ranked below one left out (by `rank`, higher first; ties either way). */
function expectFirstOf(actual: EdgeOut[], candidates: TestEdge[], rank: (e: TestEdge) => number, count: number) {
  expect(actual).toHaveLength(count);
  const chosen = new Set(actual.map((e) => e.id));
  const byId = new Map(candidates.map((e) => [e.id, e]));
  expect([...chosen].every((id) => byId.has(id))).toBe(true);
  const lowestChosen = Math.min(...actual.map((e) => rank(byId.get(e.id)!)));
  const highestLeft = Math.max(...candidates.filter((e) => !chosen.has(e.id)).map(rank));
  expect(lowestChosen).toBeGreaterThanOrEqual(highestLeft);
  // Ranked order in the answer.
  const ranks = actual.map((e) => rank(byId.get(e.id)!));
  expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
}

beforeAll(async () => {
  api = await startTestApi();
  // The other org's graph shares the centre's id, so a query that forgot the org would find its edges.
  const foreign = other.edgeRows.map((r) => (r.source_id === other.centre.id ? { ...r, source_id: graph.centre.id } : r));
  // In three inserts, so that an edge has rows in several parts, as between merges, which every read must fold.
  const rows = [...graph.edgeRows, ...foreign];
  for (let part = 0; part < 3; part++) {
    await insertNodeSightings(api.runtime.store, [...graph.nodeRows, ...other.nodeRows].filter((_, i) => i % 3 === part));
    await insertEdgeSightings(api.runtime.store, rows.filter((_, i) => i % 3 === part));
  }
}, 120_000);
afterAll(async () => {
  await api?.close();
});

describe('GET /v1/graph/neighbourhood', () => {
  it('shows the edges first seen by as_of, and differs between two moments as the sightings say', async () => {
    const [early, late] = [T0 + 6 * DAY, T0 + 15 * DAY];
    const expectedEarly = expectedNeighbourhood(graph, early, 1);
    const expectedLate = expectedNeighbourhood(graph, late, 1);
    // The data has edges that appear between the two moments (else this test would say nothing).
    expect(expectedLate.edges.length).toBeGreaterThan(expectedEarly.edges.length);
    expect(expectedEarly.edges.length).toBeGreaterThan(0);

    const before = await neighbourhood(`as_of=${new Date(early).toISOString()}`);
    const after = await neighbourhood(`as_of=${new Date(late).toISOString()}`);
    expectEdges(before.edges, expectedEarly.edges, early);
    expectEdges(after.edges, expectedLate.edges, late);
    expect(before.as_of).toBe(new Date(early).toISOString());
    expect(before.truncated).toBe(false);
    expect(new Set(before.nodes.map((n) => n.id))).toEqual(new Set(expectedEarly.nodes.keys()));
    expect(before.nodes.find((n) => n.id === graph.centre.id)).toMatchObject({ depth: 0, type: 'host', value: 'web-1' });
    // Some edges were seen again after the early moment (approximate counts), some not (exact).
    expect(before.edges.some((e) => e.approximate)).toBe(true);
    expect(before.edges.some((e) => !e.approximate)).toBe(true);
  });

  it('takes as_of inclusively and defaults to now', async () => {
    const e = graph.edges.find((x) => x.source.id === graph.centre.id)!;
    const exactly = await neighbourhood(`as_of=${new Date(firstSeen(e)).toISOString()}`);
    expect(exactly.edges.map((x) => x.id)).toContain(e.id);
    const justBefore = await neighbourhood(`as_of=${new Date(firstSeen(e) - 1).toISOString()}`);
    expect(justBefore.edges.map((x) => x.id)).not.toContain(e.id);
    const now = await neighbourhood('');
    expectEdges(now.edges, expectedNeighbourhood(graph, Date.now(), 1).edges, Date.now());
  });

  it('goes one level farther at each depth', async () => {
    const asOf = T0 + 30 * DAY;
    const results = [];
    for (const depth of [1, 2, 3]) {
      const expected = expectedNeighbourhood(graph, asOf, depth);
      const out = await neighbourhood(`depth=${depth}&as_of=${new Date(asOf).toISOString()}`);
      expectEdges(out.edges, expected.edges, asOf);
      expect(new Map(out.nodes.map((n) => [n.id, n.depth]))).toEqual(expected.nodes);
      for (const edge of out.edges) {
        // Found at the level after its nearer end.
        expect(edge.depth).toBe(Math.min(expected.nodes.get(edge.source_id) ?? Infinity, expected.nodes.get(edge.target_id) ?? Infinity) + 1);
      }
      results.push(out);
    }
    expect(results[1]!.edges.length).toBeGreaterThan(results[0]!.edges.length);
    expect(results[2]!.edges.length).toBeGreaterThan(results[1]!.edges.length);
  });

  it('keeps only the node and edge types asked for', async () => {
    const asOf = T0 + 30 * DAY;
    const cases: [string, Filter][] = [
      ['IP', { nodeTypes: ['IP'] }],
      ['authenticated_as', { edgeTypes: ['authenticated_as'] }],
      ['IP,domain,communicates_with,resolved_to', { nodeTypes: ['IP', 'domain'], edgeTypes: ['communicates_with', 'resolved_to'] }],
    ];
    for (const [types, filter] of cases) {
      const expected = expectedNeighbourhood(graph, asOf, 2, filter);
      expect(expected.edges.length).toBeGreaterThan(0);
      expect(expected.edges.length).toBeLessThan(expectedNeighbourhood(graph, asOf, 2).edges.length);
      const out = await neighbourhood(`depth=2&as_of=${new Date(asOf).toISOString()}&types=${types}`);
      expectEdges(out.edges, expected.edges, asOf);
      expect(new Set(out.nodes.map((n) => n.id))).toEqual(new Set(expected.nodes.keys()));
    }
  });

  it('stops at limit, most recently seen first, and says it was truncated', async () => {
    const asOf = T0 + 30 * DAY;
    const level1 = expectedNeighbourhood(graph, asOf, 1).edges;
    const out = await neighbourhood(`depth=2&limit=3&as_of=${new Date(asOf).toISOString()}`);
    expect(out.truncated).toBe(true);
    expectFirstOf(out.edges, level1, lastSeen, 3);
    expect(out.nodes).toHaveLength(4);
    // Exactly enough room is not truncated.
    const all = expectedNeighbourhood(graph, asOf, 2).edges.length;
    expect((await neighbourhood(`depth=2&limit=${all}&as_of=${new Date(asOf).toISOString()}`)).truncated).toBe(false);
    expect((await neighbourhood(`depth=2&limit=${all - 1}&as_of=${new Date(asOf).toISOString()}`)).truncated).toBe(true);
  });

  it('answers 400 past its bounds and for malformed parameters', async () => {
    const token = api.token('all', orgId);
    const bad = ['depth=4', 'depth=0', 'depth=1.5', 'limit=2001', 'limit=0', 'types=IP,bogus', 'as_of=yesterday'];
    for (const query of bad) {
      const res = await api.request('GET', `/api/v1/graph/neighbourhood?node_id=${graph.centre.id}&${query}`, { token });
      expect(res.status, query).toBe(400);
      expect(res.body.error?.code).toBe('validation_error');
    }
    expect((await api.request('GET', '/api/v1/graph/neighbourhood?node_id=not-a-uuid', { token })).status).toBe(400);
    expect((await api.request('GET', '/api/v1/graph/neighbourhood', { token })).status).toBe(400);
  });

  it("never shows another organization's graph", async () => {
    const asOf = T0 + 30 * DAY;
    const out = await neighbourhood(`depth=3&as_of=${new Date(asOf).toISOString()}`);
    const foreign = new Set([...other.nodes.map((n) => n.id), ...other.edges.map((e) => e.id)]);
    expect(out.nodes.concat(out.edges as never[]).filter((x) => foreign.has(x.id))).toEqual([]);
    expectEdges(out.edges, expectedNeighbourhood(graph, asOf, 3).edges, asOf);
    // The other org's node is not found; its own token finds it.
    const path = `/api/v1/graph/neighbourhood?node_id=${other.nodes[1]!.id}`;
    const res = await api.request('GET', path, { token: api.token('all', orgId) });
    expect(res.status).toBe(404);
    expect(res.body.error?.code).toBe('not_found');
    expect((await get<Neighbourhood>(path, api.token('all', otherOrg))).nodes.length).toBeGreaterThan(1);
    // The permission is graph:read.
    expect((await api.request('GET', path, { token: api.token(['signals:read'], otherOrg) })).status).toBe(403);
    expect((await api.request('GET', path, { token: api.token(['graph:read'], otherOrg) })).status).toBe(200);
  });

  it('answers an empty neighbourhood when the node was first seen after as_of', async () => {
    const out = await neighbourhood(`as_of=${new Date(T0 - DAY).toISOString()}`);
    expect(out).toMatchObject({ nodes: [], edges: [], truncated: false });
  });
});

describe('GET /v1/graph/changes', () => {
  const [start, end] = [T0 + 8 * DAY, T0 + 12 * DAY];
  const range = `start=${new Date(start).toISOString()}&end=${new Date(end).toISOString()}`;
  const isNew = (ms: number) => ms >= start && ms < end;
  const nodeTimes = (rows: NodeSighting[]) => {
    const times = new Map<string, { first: number; last: number }>();
    for (const r of rows) {
      const t = times.get(r.id) ?? { first: Infinity, last: -Infinity };
      times.set(r.id, { first: Math.min(t.first, Date.parse(r.first_seen)), last: Math.max(t.last, Date.parse(r.last_seen)) });
    }
    return times;
  };
  const times = nodeTimes(graph.nodeRows);

  it('lists what was first seen in the range and what went quiet before it, organization-wide', async () => {
    const out = await get<Changes>(`/api/v1/graph/changes?${range}`);
    const newEdges = graph.edges.filter((e) => isNew(firstSeen(e)));
    const quietEdges = graph.edges.filter((e) => lastSeen(e) < start);
    expect(newEdges.length).toBeGreaterThan(0);
    expect(quietEdges.length).toBeGreaterThan(0);
    expectEdges(out.new.edges, newEdges, end - 1);
    expectEdges(out.quiet.edges, quietEdges, end - 1);
    const newNodes = [...times].filter(([, t]) => isNew(t.first)).map(([id]) => id);
    const quietNodes = [...times].filter(([, t]) => t.last < start).map(([id]) => id);
    expect(newNodes.length).toBeGreaterThan(0);
    expect(quietNodes.length).toBeGreaterThan(0);
    expect(new Set(out.new.nodes.map((n) => n.id))).toEqual(new Set(newNodes));
    expect(new Set(out.quiet.nodes.map((n) => n.id))).toEqual(new Set(quietNodes));
    // Newest first; each edge names its ends.
    const firsts = out.new.edges.map((e) => e.first_seen);
    expect(firsts).toEqual([...firsts].sort().reverse());
    const e = out.new.edges[0]!;
    expect(e.source).toEqual(graph.nodes.find((n) => n.id === e.source_id));
    expect(out.truncated).toBe(false);
  });

  it('lists the changes within depth of a node', async () => {
    for (const depth of [1, 2]) {
      const out = await get<Changes>(`/api/v1/graph/changes?${range}&node_id=${graph.centre.id}&depth=${depth}`);
      const around = distances(graph.edges, graph.centre, end, depth - 1);
      const touches = (e: TestEdge) => around.has(e.source.id) || around.has(e.target.id);
      const newEdges = graph.edges.filter((e) => touches(e) && isNew(firstSeen(e)));
      const quietEdges = graph.edges.filter((e) => touches(e) && lastSeen(e) < start);
      expect(newEdges.length + quietEdges.length).toBeGreaterThan(0);
      expectEdges(out.new.edges, newEdges, end - 1);
      expectEdges(out.quiet.edges, quietEdges, end - 1);
      const ends = (edges: TestEdge[]) => new Set(edges.flatMap((e) => [e.source.id, e.target.id]));
      expect(new Set(out.new.nodes.map((n) => n.id))).toEqual(new Set([...ends(newEdges)].filter((id) => isNew(times.get(id)!.first))));
      expect(new Set(out.quiet.nodes.map((n) => n.id))).toEqual(new Set([...ends(quietEdges)].filter((id) => times.get(id)!.last < start)));
    }
    // Depth 1 sees the neighbour that went quiet.
    const quiet = await get<Changes>(`/api/v1/graph/changes?${range}&node_id=${graph.centre.id}`);
    expect(quiet.quiet.edges.map((e) => e.id)).toContain(graph.edges[2]!.id);
  });

  it('keeps only the types asked for, and cuts each list at limit', async () => {
    const out = await get<Changes>(`/api/v1/graph/changes?${range}&types=IP`);
    const keptEdge = (e: TestEdge) => e.source.type === 'IP' && e.target.type === 'IP';
    expectEdges(out.new.edges, graph.edges.filter((e) => keptEdge(e) && isNew(firstSeen(e))), end - 1);
    expect(out.new.nodes.every((n) => n.type === 'IP')).toBe(true);
    expect(new Set(out.new.nodes.map((n) => n.id))).toEqual(new Set([...times].filter(([id, t]) => isNew(t.first) && graph.nodes.find((n) => n.id === id)!.type === 'IP').map(([id]) => id)));

    const newEdges = graph.edges.filter((e) => isNew(firstSeen(e)));
    expect(newEdges.length).toBeGreaterThan(1);
    const cut = await get<Changes>(`/api/v1/graph/changes?${range}&limit=1`);
    expect(cut.new.truncated).toBe(true);
    expect(cut.truncated).toBe(true);
    expect(cut.new.nodes).toHaveLength(1);
    expectFirstOf(cut.new.edges, newEdges, firstSeen, 1);
    // The edge that went quiet most recently.
    const quietEdges = graph.edges.filter((e) => lastSeen(e) < start);
    expect(quietEdges.length).toBeGreaterThan(1);
    expect(cut.quiet.truncated).toBe(true);
    expectFirstOf(cut.quiet.edges, quietEdges, lastSeen, 1);
  });

  it("answers 400 past its bounds, 404 for another organization's node, and never shows its changes", async () => {
    const token = api.token('all', orgId);
    const bad = [
      `start=${at(5)}&end=${at(5)}`,
      `start=${at(6)}&end=${at(5)}`,
      `start=${at(5)}`,
      `${range}&depth=2`, // depth without node_id
      `${range}&node_id=${graph.centre.id}&depth=4`,
      `${range}&limit=2001`,
      `${range}&types=nodes`,
    ];
    for (const query of bad) {
      const res = await api.request('GET', `/api/v1/graph/changes?${query}`, { token });
      expect(res.status, query).toBe(400);
    }
    const res = await api.request('GET', `/api/v1/graph/changes?${range}&node_id=${other.nodes[3]!.id}`, { token });
    expect(res.status).toBe(404);
    const out = await get<Changes>(`/api/v1/graph/changes?start=${at(-100)}&end=${at(100)}&limit=2000`);
    const ours = new Set([...graph.nodes.map((n) => n.id), ...graph.edges.map((e) => e.id)]);
    expect(out.new.nodes.length + out.new.edges.length).toBe(graph.nodes.length + graph.edges.length);
    expect([...out.new.nodes, ...out.new.edges].every((x) => ours.has(x.id))).toBe(true);
  });
});

describe('at the bounds', () => {
  it('answers a neighbourhood and its changes of 2000 edges, cut there', async () => {
    // A hub with 1,100 neighbours, each with one more edge: 2,200 edges within two of it, in an org of their own.
    const org = `org-${randomUUID().slice(0, 8)}`;
    const hub = { id: randomUUID(), type: 'host', value: 'hub' };
    const nodes: NodeSighting[] = [{ org_id: org, ...hub, first_seen: at(0), last_seen: at(5) }];
    const edges: EdgeSightingRow[] = [];
    for (let i = 0; i < 1100; i++) {
      const [near, far] = [randomUUID(), randomUUID()];
      nodes.push({ org_id: org, id: near, type: 'IP', value: `10.1.${i >> 8}.${i & 255}`, first_seen: at(1), last_seen: at(4) });
      nodes.push({ org_id: org, id: far, type: 'IP', value: `10.2.${i >> 8}.${i & 255}`, first_seen: at(2), last_seen: at(3) });
      edges.push({ org_id: org, id: randomUUID(), type: 'communicates_with', source_id: hub.id, target_id: near, artifact_id: randomUUID(), seen_at: at(1, i % 24) });
      edges.push({ org_id: org, id: randomUUID(), type: 'communicates_with', source_id: far, target_id: near, artifact_id: randomUUID(), seen_at: at(2, i % 24) });
    }
    await insertNodeSightings(api.runtime.store, nodes);
    await insertEdgeSightings(api.runtime.store, edges);
    const token = api.token('all', org);
    const out = await get<Neighbourhood>(`/api/v1/graph/neighbourhood?node_id=${hub.id}&depth=3&limit=2000`, token);
    expect(out.truncated).toBe(true);
    expect(out.edges).toHaveLength(2000);
    expect(out.nodes).toHaveLength(1 + 1100 + 900);
    const changes = await get<Changes>(`/api/v1/graph/changes?start=${at(2)}&end=${at(3)}&node_id=${hub.id}&depth=3&limit=2000`, token);
    // Within three of the hub as of day 3 (cut at 2000 edges), 1,100 edges were first seen on day 2: 2,000 is the bound, so all are there.
    expect(changes.new.edges).toHaveLength(1100);
    expect(changes.new.nodes).toHaveLength(1100);
    expect(changes.truncated).toBe(true);
  });
});

describe('the API document', () => {
  it('describes both routes with their permission and parameters', async () => {
    const doc = (await api.request('GET', '/api/v1/openapi.json')).body as unknown as { paths: Record<string, Record<string, { 'x-permission': string; parameters: { name: string }[] }>> };
    for (const [path, names] of [
      ['/api/v1/graph/neighbourhood', ['node_id', 'depth', 'as_of', 'types', 'limit']],
      ['/api/v1/graph/changes', ['start', 'end', 'node_id', 'depth', 'types', 'limit']],
    ] as const) {
      const op = doc.paths[path]!.get!;
      expect(op['x-permission']).toBe('graph:read');
      expect(op.parameters.map((p) => p.name)).toEqual(names);
    }
  });
});
