// The graph explorer (/graph?node_id=<id>): a node's neighbourhood as it was
// at a moment (GET /v1/graph/neighbourhood, docs/graph.md), drawn by
// cytoscape (loaded only here, graph-canvas.ts) and given as two tables with
// the same data for keyboard and screen-reader users. Nodes are expanded
// (their own neighbourhood merged in), node and edge types filtered, the
// moment chosen with a slider, and "what changed" since a time marks what is
// new and what went quiet (GET /v1/graph/changes). Everything but the chosen
// node is in the URL. Without a node_id the page finds one by its value.
import { useSignal } from '@preact/signals';
import type { JSX } from 'preact';
import { useEffect, useMemo, useRef } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { navigate, place, withParams } from '../router.ts';
import { Time, fromLocalInput, toLocalInput } from '../time.tsx';
import { FlagList, nodeHref, Whereabouts, type GraphNode } from '../graph-node.tsx';
import { SeverityBadge } from '../severity.tsx';
import { EDGE_TYPES, NODE_TYPES } from '../../../topics/graph-types.ts';
import type { Incident } from './incidents.tsx';
import type { Change, DrawnEdge, DrawnNode, GraphView } from './graph-canvas.ts';

interface TimedNode extends Pick<GraphNode, 'id' | 'type' | 'value' | 'flags' | 'frameworks' | 'geo' | 'as'> {
  first_seen: string;
  last_seen: string;
}

interface TimedEdge {
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

interface Neighbourhood {
  node_id: string;
  as_of: string;
  truncated: boolean;
  nodes: Array<TimedNode & { depth: number }>;
  edges: TimedEdge[];
}

interface ChangeList {
  nodes: TimedNode[];
  edges: TimedEdge[];
  truncated: boolean;
}

interface Changes {
  truncated: boolean;
  new: ChangeList;
  quiet: ChangeList;
}

const DEPTHS = [1, 2, 3] as const;
const LIMITS = [200, 500, 1000, 2000] as const;
const DEFAULT_LIMIT = 200;
/** Nodes expanded at once: each is one more request per moment shown. */
const MAX_EXPANSIONS = 20;
/** Slider positions: 0 .. STEPS - 1 span the centre's first to last sighting; STEPS is now (the latest). */
const STEPS = 100;
/** The slider asks the API this long after it stops moving, not at each step it passes. */
const SLIDER_SETTLE_MS = 300;

interface GraphState {
  nodeId: string;
  depth: number;
  /** ISO time; null: now (the latest). */
  asOf: string | null;
  /** The API's `types`: node and edge types kept; a kind not named keeps all of its types. */
  types: string[];
  limit: number;
  /** Nodes whose own neighbourhoods are merged in, in the order expanded. */
  expand: string[];
  /** The start of the "what changed" view (to the moment shown); null: not shown. */
  since: string | null;
}

function stateFrom(params: URLSearchParams): GraphState {
  const list = (name: string) => (params.get(name) ?? '').split(',').filter(Boolean);
  const depth = Number(params.get('depth'));
  const limit = Number(params.get('limit'));
  return {
    nodeId: params.get('node_id') ?? '',
    depth: (DEPTHS as readonly number[]).includes(depth) ? depth : 1,
    asOf: params.get('as_of'),
    types: list('types').filter((t) => (NODE_TYPES as readonly string[]).includes(t) || (EDGE_TYPES as readonly string[]).includes(t)),
    limit: (LIMITS as readonly number[]).includes(limit) ? limit : DEFAULT_LIMIT,
    expand: list('expand').slice(0, MAX_EXPANSIONS),
    since: params.get('since'),
  };
}

export function graphUrl(state: Partial<GraphState> & { nodeId: string }): string {
  return withParams('/graph', {
    node_id: state.nodeId,
    depth: state.depth && state.depth !== 1 ? state.depth : undefined,
    as_of: state.asOf,
    types: state.types?.join(','),
    limit: state.limit && state.limit !== DEFAULT_LIMIT ? state.limit : undefined,
    expand: state.expand?.join(','),
    since: state.since,
  });
}

/** Rows a table shows at once: a browser lays out a few hundred quickly, and a screen reader reads them in one go. */
const TABLE_PAGE = 200;

/** A table's page of rows, back to the first when the rows change, and the buttons between pages. */
function useRowsPage<T>(rows: T[], noun: string): { shown: T[]; pager: JSX.Element | null } {
  const offset = useSignal(0);
  useEffect(() => void (offset.value = 0), [rows]);
  const start = Math.min(offset.value, Math.max(0, rows.length - 1));
  if (rows.length <= TABLE_PAGE) return { shown: rows, pager: null };
  const end = Math.min(rows.length, start + TABLE_PAGE);
  return {
    shown: rows.slice(start, end),
    pager: (
      <div class="pager">
        <button type="button" class="secondary" disabled={start === 0} onClick={() => (offset.value = Math.max(0, start - TABLE_PAGE))}>
          Previous {TABLE_PAGE} {noun}
        </button>
        <span>
          {noun[0]!.toUpperCase() + noun.slice(1)} {(start + 1).toLocaleString()}–{end.toLocaleString()} of {rows.length.toLocaleString()}
        </span>
        <button type="button" class="secondary" disabled={end >= rows.length} onClick={() => (offset.value = start + TABLE_PAGE)}>
          Next {TABLE_PAGE} {noun}
        </button>
      </div>
    ),
  };
}

const errorText = (err: unknown) => (err instanceof ApiError ? err.message : String(err));
const words = (type: string) => type.replace(/_/g, ' ');

/** The moment at a slider position (ms), or null for now; the ends are the sightings themselves, between them whole seconds. */
function momentAt(position: number, first: number, last: number): number | null {
  if (position >= STEPS) return null;
  if (position <= 0 || last <= first) return first;
  if (position === STEPS - 1) return last;
  return Math.round((first + ((last - first) * position) / (STEPS - 1)) / 1000) * 1000;
}

function positionOf(asOf: string | null, first: number, last: number): number {
  if (!asOf) return STEPS;
  if (last <= first) return 0;
  const position = Math.round(((Date.parse(asOf) - first) / (last - first)) * (STEPS - 1));
  return Math.min(STEPS - 1, Math.max(0, position));
}

const momentText = (ms: number | null) => (ms === null ? 'Now (the latest)' : new Date(ms).toLocaleString());

/** The merged picture: the centre's neighbourhood and each expanded node's, nodes at their least distance from the centre. */
interface Picture {
  /** The moment the API answered for (its now when none was asked). */
  asOf: string;
  nodes: Array<TimedNode & { depth: number }>;
  edges: TimedEdge[];
  truncated: boolean;
}

function mergePicture(answers: Neighbourhood[]): Picture {
  const nodes = new Map<string, TimedNode & { depth: number }>();
  const edges = new Map<string, TimedEdge>();
  for (const answer of answers) {
    // An expanded node's neighbours are one step farther from the centre than it is.
    const base = nodes.get(answer.node_id)?.depth ?? 0;
    for (const n of answer.nodes) {
      const depth = base + n.depth;
      const known = nodes.get(n.id);
      if (!known || depth < known.depth) nodes.set(n.id, { ...n, depth });
    }
    for (const e of answer.edges) edges.set(e.id, e);
  }
  return {
    asOf: answers[0]!.as_of,
    nodes: [...nodes.values()].sort((a, b) => a.depth - b.depth || a.type.localeCompare(b.type) || a.value.localeCompare(b.value)),
    edges: [...edges.values()].sort((a, b) => b.first_seen.localeCompare(a.first_seen) || a.id.localeCompare(b.id)),
    truncated: answers.some((a) => a.truncated),
  };
}

/** What changed, as sets of ids, merged over the centre and each expanded node. */
interface ChangeMarks {
  start: string;
  end: string;
  newIds: Set<string>;
  quietIds: Set<string>;
  counts: { newNodes: number; newEdges: number; quietNodes: number; quietEdges: number };
  truncated: boolean;
}

function mergeChanges(start: string, end: string, answers: Changes[]): ChangeMarks {
  const ids = (list: Array<{ id: string }>) => list.map((x) => x.id);
  const newNodes = new Set(answers.flatMap((a) => ids(a.new.nodes)));
  const newEdges = new Set(answers.flatMap((a) => ids(a.new.edges)));
  const quietNodes = new Set(answers.flatMap((a) => ids(a.quiet.nodes)));
  const quietEdges = new Set(answers.flatMap((a) => ids(a.quiet.edges)));
  return {
    start,
    end,
    newIds: new Set([...newNodes, ...newEdges]),
    quietIds: new Set([...quietNodes, ...quietEdges]),
    counts: { newNodes: newNodes.size, newEdges: newEdges.size, quietNodes: quietNodes.size, quietEdges: quietEdges.size },
    truncated: answers.some((a) => a.truncated),
  };
}

const NO_ROWS: never[] = [];

const changeOf = (marks: ChangeMarks | null, id: string): Change => (marks?.newIds.has(id) ? 'new' : marks?.quietIds.has(id) ? 'quiet' : null);

function ChangeCell({ change }: { change: Change }) {
  if (change === 'new') return <span class="change change-new">New</span>;
  if (change === 'quiet') return <span class="change change-quiet">Went quiet</span>;
  return <span class="empty">—</span>;
}

/** The second line of a node's label in the picture: where an address is registered, and its flags. */
function nodeLabel(node: TimedNode, change: Change): string {
  const where = [node.geo?.country_iso_code, node.as ? `AS${node.as.number}` : null].filter(Boolean).join(' · ');
  const flags = Object.entries(node.flags)
    .filter(([, on]) => on)
    .map(([name]) => name)
    .join(', ');
  const details = [where, flags, change === 'quiet' ? 'went quiet' : change].filter(Boolean).join(' · ');
  return details ? `${node.value}\n${details}` : node.value;
}

/** The graph module (and cytoscape in it), fetched once, when the explorer first draws. */
let graphModule: Promise<typeof import('./graph-canvas.ts')> | null = null;

function GraphPicture(props: { nodes: DrawnNode[]; edges: DrawnEdge[]; selected: string | null; label: string; onSelect(id: string | null): void; onExpand(id: string): void }) {
  const container = useRef<HTMLDivElement>(null);
  const view = useRef<GraphView | null>(null);
  const ready = useSignal(false);
  const failed = useSignal<string | null>(null);
  // The view calls back the latest handlers, not those of its first render.
  const handlers = useRef(props);
  handlers.current = props;

  useEffect(() => {
    let cancelled = false;
    graphModule ??= import('./graph-canvas.ts');
    graphModule
      .then((module) => {
        if (cancelled || !container.current) return;
        view.current = module.createGraphView(container.current, { select: (id) => handlers.current.onSelect(id), expand: (id) => handlers.current.onExpand(id) });
        ready.value = true;
      })
      .catch((err: unknown) => {
        graphModule = null;
        failed.value = `The picture could not be loaded (${errorText(err)}); the tables below hold the same data.`;
      });
    return () => {
      cancelled = true;
      view.current?.destroy();
      view.current = null;
    };
  }, []);

  useEffect(() => {
    if (!ready.value || !view.current) return;
    view.current.show(props.nodes, props.edges);
    view.current.select(props.selected);
    container.current?.setAttribute('data-drawn', `${props.nodes.length} ${props.edges.length}`);
  }, [ready.value, props.nodes, props.edges]);

  useEffect(() => view.current?.select(props.selected), [props.selected]);

  return (
    <div class="graph-picture">
      {failed.value && (
        <p class="error" role="alert">
          {failed.value}
        </p>
      )}
      <div ref={container} class="graph-canvas" role="img" aria-label={props.label} aria-describedby="graph-legend" />
      <div class="row">
        <button type="button" class="secondary" onClick={() => view.current?.fit()} disabled={!ready.value}>
          Fit the picture
        </button>
        <p id="graph-legend" class="graph-legend">
          Shapes: IP circle, domain diamond, host rounded square, user triangle, email tag. The centre has a thick outline. Click a node for its details, double-click
          to expand it. <span class="change change-new">New</span> elements have a double outline (nodes) or a thick line (edges) in the changes colour;{' '}
          <span class="change change-quiet">Went quiet</span> ones are faded and dashed.
        </p>
      </div>
    </div>
  );
}

/** The chosen node: its facts, the incidents holding it, and where to go from it. */
function NodeDetails({ node, state, expanded, onExpand }: { node: TimedNode & { depth: number }; state: GraphState; expanded: boolean; onExpand(): void }) {
  const incidents = useSignal<{ items: Incident[]; total: number } | null>(null);
  const error = useSignal<string | null>(null);
  useEffect(() => {
    const controller = new AbortController();
    incidents.value = null;
    error.value = null;
    api<{ incidents: Incident[]; total: number }>('GET', '/v1/incidents', { query: { node_id: node.id, limit: 10 }, signal: controller.signal })
      .then(({ data }) => (incidents.value = { items: data.incidents, total: data.total }))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = errorText(err);
      });
    return () => controller.abort();
  }, [node.id]);

  return (
    <aside class="graph-details" aria-labelledby="graph-details-title">
      <h2 id="graph-details-title">
        <span class="node-type">{node.type}</span> <code>{node.value}</code>
      </h2>
      <dl class="facts">
        <dt>Distance</dt>
        <dd>{node.depth === 0 ? 'the centre' : `${node.depth} edge${node.depth === 1 ? '' : 's'}`}</dd>
        <dt>Country and AS</dt>
        <dd>
          <Whereabouts node={node} />
        </dd>
        <dt>Flags</dt>
        <dd>
          <FlagList node={node} />
        </dd>
        <dt>First seen</dt>
        <dd>
          <Time iso={node.first_seen} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time iso={node.last_seen} />
        </dd>
      </dl>
      <div class="row">
        <button type="button" onClick={onExpand} disabled={expanded}>
          {expanded ? 'Expanded' : 'Expand'}
        </button>
        <a href={nodeHref(node.id)}>Open its page</a>
        {node.id !== state.nodeId && <a href={graphUrl({ ...state, nodeId: node.id, expand: [] })}>Centre the graph here</a>}
      </div>
      <h3>Incidents</h3>
      {error.value && (
        <p class="error" role="alert">
          {error.value}
        </p>
      )}
      {incidents.value && incidents.value.items.length === 0 && <p class="empty">This node is in no incident.</p>}
      {incidents.value && incidents.value.items.length > 0 && (
        <ul class="plain" aria-label={`Incidents holding ${node.value}`}>
          {incidents.value.items.map((i) => (
            <li key={i.id}>
              <SeverityBadge severity={i.severity} /> <a href={`/incidents/${encodeURIComponent(i.id)}`}>{i.title}</a> <span class="empty">· {i.status_name}</span>
            </li>
          ))}
        </ul>
      )}
      {incidents.value && incidents.value.total > incidents.value.items.length && (
        <p class="status">
          The newest {incidents.value.items.length} of {incidents.value.total}; <a href={nodeHref(node.id)}>all on its page</a>.
        </p>
      )}
    </aside>
  );
}

/** The node and edge type filters: checkboxes that keep the API's `types` in the URL. */
function TypeFilters({ state }: { state: GraphState }) {
  const kinds = [
    { legend: 'Node types', all: NODE_TYPES as readonly string[] },
    { legend: 'Edge types', all: EDGE_TYPES as readonly string[] },
  ];
  return (
    <>
      {kinds.map(({ legend, all }) => {
        const named = state.types.filter((t) => all.includes(t));
        const checked = named.length ? named : [...all];
        const toggle = (type: string, on: boolean) => {
          const next = on ? [...checked, type] : checked.filter((t) => t !== type);
          // Every type of a kind checked is the same as naming none of it.
          const kept = next.length === all.length ? [] : all.filter((t) => next.includes(t));
          navigate(graphUrl({ ...state, types: [...state.types.filter((t) => !all.includes(t)), ...kept] }));
        };
        return (
          <fieldset key={legend} class="graph-types">
            <legend>{legend}</legend>
            {all.map((type) => {
              const on = checked.includes(type);
              // At least one type of each kind stays: the API cannot be asked for none.
              const last = on && checked.length === 1;
              return (
                <label key={type} class="inline" title={last ? 'At least one type stays chosen' : undefined}>
                  <input type="checkbox" checked={on} disabled={last} onChange={(e) => toggle(type, e.currentTarget.checked)} />
                  {words(type)}
                </label>
              );
            })}
          </fieldset>
        );
      })}
    </>
  );
}

/** The moment shown: a slider over the centre's sightings, with now at its right end. */
function TimeSlider({ state, first, last }: { state: GraphState; first: number; last: number }) {
  const moving = useSignal<number | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  const position = moving.value ?? positionOf(state.asOf, first, last);
  const moment = moving.value === null ? (state.asOf ? Date.parse(state.asOf) : null) : momentAt(moving.value, first, last);

  const settle = (to: number) => {
    moving.value = to;
    clearTimeout(timer.current);
    timer.current = setTimeout(() => {
      const ms = momentAt(to, first, last);
      moving.value = null;
      navigate(graphUrl({ ...state, asOf: ms === null ? null : new Date(ms).toISOString() }), { replace: true });
    }, SLIDER_SETTLE_MS);
  };

  return (
    <div class="graph-time">
      <label for="graph-as-of">As of</label>
      <input
        id="graph-as-of"
        type="range"
        min={0}
        max={STEPS}
        step={1}
        value={position}
        aria-valuetext={momentText(moment)}
        onInput={(e) => settle(Number(e.currentTarget.value))}
      />
      <output for="graph-as-of" class="graph-moment">
        {momentText(moment)}
      </output>
      <button type="button" class="secondary" disabled={!state.asOf} onClick={() => navigate(graphUrl({ ...state, asOf: null }), { replace: true })}>
        Now
      </button>
      <span class="status">
        from <Time iso={new Date(first).toISOString()} /> (first seen)
      </span>
    </div>
  );
}

/** "What changed" since a time, up to the moment shown. */
function ChangesForm({ state, picture, marks, error }: { state: GraphState; picture: Picture | null; marks: ChangeMarks | null; error: string | null }) {
  const since = useSignal(toLocalInput(state.since));
  const problem = useSignal<string | null>(null);
  useEffect(() => {
    since.value = toLocalInput(state.since ?? (picture ? new Date(Date.parse(picture.asOf) - 86_400_000).toISOString() : null));
  }, [state.since, picture?.asOf]);

  const submit = (event: Event) => {
    event.preventDefault();
    const start = fromLocalInput(since.value);
    if (!start) return void (problem.value = 'Give the time to compare from.');
    if (picture && Date.parse(start) > Date.parse(picture.asOf)) return void (problem.value = 'Since must be before the moment shown.');
    problem.value = null;
    navigate(graphUrl({ ...state, since: start }));
  };

  return (
    <form class="graph-changes" aria-labelledby="graph-changes-title" onSubmit={submit}>
      <h2 id="graph-changes-title">What changed</h2>
      <label for="graph-since">Since</label>
      <input id="graph-since" type="datetime-local" value={since.value} onInput={(e) => (since.value = e.currentTarget.value)} />
      <span>to the moment shown</span>
      <button type="submit">Show changes</button>
      {state.since && (
        <button type="button" class="secondary" onClick={() => navigate(graphUrl({ ...state, since: null }))}>
          Hide changes
        </button>
      )}
      {(problem.value || error) && (
        <p class="error" role="alert">
          {problem.value ?? error}
        </p>
      )}
      {marks && (
        <p class="status" role="status">
          From <Time iso={marks.start} /> to <Time iso={marks.end} />: {marks.counts.newNodes} new node{marks.counts.newNodes === 1 ? '' : 's'} and {marks.counts.newEdges} new edge
          {marks.counts.newEdges === 1 ? '' : 's'}; {marks.counts.quietNodes} node{marks.counts.quietNodes === 1 ? '' : 's'} and {marks.counts.quietEdges} edge
          {marks.counts.quietEdges === 1 ? '' : 's'} went quiet{marks.truncated ? ' (cut at the limit)' : ''}.
        </p>
      )}
    </form>
  );
}

/** Finds a node by its value (GET /v1/nodes, a case-insensitive part of it) when the page is opened without one. */
function NodeFinder() {
  const params = place.value.params;
  const find = params.get('find') ?? '';
  const type = params.get('type') ?? '';
  const typed = useSignal(find);
  const found = useSignal<{ nodes: GraphNode[]; total: number } | null>(null);
  const error = useSignal<string | null>(null);
  useEffect(() => {
    found.value = null;
    error.value = null;
    if (!find) return;
    const controller = new AbortController();
    api<{ nodes: GraphNode[]; total: number }>('GET', '/v1/nodes', { query: { value: find, type, limit: 25 }, signal: controller.signal })
      .then(({ data }) => (found.value = data))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) error.value = errorText(err);
      });
    return () => controller.abort();
  }, [find, type]);

  return (
    <section aria-labelledby="page-title">
      <h1 id="page-title">Graph explorer</h1>
      <p>Choose the node at the centre: an address, a host, a user, a domain or an email address.</p>
      <form
        class="filters"
        aria-label="Find a node"
        onSubmit={(e) => {
          e.preventDefault();
          navigate(withParams('/graph', { find: typed.value.trim(), type }));
        }}
      >
        <label for="graph-find">Value</label>
        <input id="graph-find" value={typed.value} onInput={(e) => (typed.value = e.currentTarget.value)} />
        <label for="graph-find-type">Type</label>
        <select id="graph-find-type" value={type} onChange={(e) => navigate(withParams('/graph', { find, type: e.currentTarget.value }))}>
          <option value="">Any</option>
          {NODE_TYPES.map((t) => (
            <option key={t} value={t}>
              {t}
            </option>
          ))}
        </select>
        <button type="submit">Find</button>
      </form>
      {error.value && (
        <p class="error" role="alert">
          {error.value}
        </p>
      )}
      {found.value && found.value.nodes.length === 0 && <p class="empty">No node holds “{find}”.</p>}
      {found.value && found.value.nodes.length > 0 && (
        <ul class="plain" aria-label="Nodes found">
          {found.value.nodes.map((n) => (
            <li key={n.id}>
              <span class="node-type">{n.type}</span> <a href={graphUrl({ nodeId: n.id })}>{n.value}</a> <span class="empty">· {n.edge_count} edges</span>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function GraphPage() {
  const state = stateFrom(place.value.params);
  return state.nodeId ? <Explorer state={state} /> : <NodeFinder />;
}

function Explorer({ state }: { state: GraphState }) {
  const centre = useSignal<TimedNode | null>(null);
  const centreError = useSignal<string | null>(null);
  const picture = useSignal<Picture | null>(null);
  const pictureError = useSignal<string | null>(null);
  const loading = useSignal(false);
  const marks = useSignal<ChangeMarks | null>(null);
  const changesError = useSignal<string | null>(null);
  const selected = useSignal<string | null>(null);
  const types = state.types.join(',');
  const expandKey = state.expand.join(',');

  // The centre as it is now: its first and last sighting bound the slider.
  useEffect(() => {
    const controller = new AbortController();
    centre.value = null;
    centreError.value = null;
    selected.value = null;
    api<Neighbourhood>('GET', '/v1/graph/neighbourhood', { query: { node_id: state.nodeId, limit: 1 }, signal: controller.signal })
      .then(({ data }) => (centre.value = data.nodes.find((n) => n.id === state.nodeId) ?? null))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) centreError.value = errorText(err);
      });
    return () => controller.abort();
  }, [state.nodeId]);

  // The picture at the moment asked: the centre's neighbourhood and each expanded node's.
  const pictureKey = [state.nodeId, state.depth, state.asOf, types, state.limit, expandKey].join('|');
  useEffect(() => {
    const controller = new AbortController();
    loading.value = true;
    pictureError.value = null;
    const roots = [state.nodeId, ...state.expand.filter((id) => id !== state.nodeId)];
    Promise.all(
      roots.map((root) =>
        api<Neighbourhood>('GET', '/v1/graph/neighbourhood', {
          query: { node_id: root, depth: root === state.nodeId ? state.depth : 1, as_of: state.asOf, types, limit: state.limit },
          signal: controller.signal,
        }).then(({ data }) => data),
      ),
    )
      .then((answers) => (picture.value = mergePicture(answers)))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) pictureError.value = errorText(err);
      })
      .finally(() => {
        if (!controller.signal.aborted) loading.value = false;
      });
    return () => controller.abort();
  }, [pictureKey]);

  // What changed from `since` to the moment shown, around the same nodes. The moment is inclusive (first seen at or
  // before it) and a range's end is not, so the range ends a millisecond after it.
  const asOfShown = picture.value?.asOf ?? null;
  useEffect(() => {
    marks.value = null;
    changesError.value = null;
    if (!state.since || !asOfShown || loading.value) return;
    const start = state.since;
    const end = new Date(Date.parse(asOfShown) + 1).toISOString();
    if (Date.parse(start) >= Date.parse(end)) {
      changesError.value = 'Since must be before the moment shown.';
      return;
    }
    const controller = new AbortController();
    const roots = [state.nodeId, ...state.expand.filter((id) => id !== state.nodeId)];
    Promise.all(
      roots.map((root) =>
        api<Changes>('GET', '/v1/graph/changes', {
          query: { start, end, node_id: root, depth: root === state.nodeId ? state.depth : 1, types, limit: state.limit },
          signal: controller.signal,
        }).then(({ data }) => data),
      ),
    )
      .then((answers) => (marks.value = mergeChanges(start, end, answers)))
      .catch((err: unknown) => {
        if (!controller.signal.aborted) changesError.value = errorText(err);
      });
    return () => controller.abort();
  }, [state.since, asOfShown, loading.value, pictureKey]);

  const expand = (id: string) => {
    if (id === state.nodeId || state.expand.includes(id)) return;
    if (state.expand.length >= MAX_EXPANSIONS) return void (pictureError.value = `At most ${MAX_EXPANSIONS} nodes are expanded at once.`);
    navigate(graphUrl({ ...state, expand: [...state.expand, id] }));
  };
  const isExpanded = (id: string) => id === state.nodeId || state.expand.includes(id);

  const shown = picture.value;
  const changes = marks.value;
  const valueOf = useMemo(() => new Map(shown?.nodes.map((n) => [n.id, n]) ?? []), [shown]);
  const drawnNodes = useMemo<DrawnNode[]>(
    () =>
      shown?.nodes.map((n) => {
        const change = changeOf(changes, n.id);
        return { id: n.id, type: n.type, label: nodeLabel(n, change), depth: n.depth, centre: n.id === state.nodeId, change };
      }) ?? [],
    [shown, changes],
  );
  const drawnEdges = useMemo<DrawnEdge[]>(
    () => shown?.edges.map((e) => ({ id: e.id, source: e.source_id, target: e.target_id, type: e.type, change: changeOf(changes, e.id) })) ?? [],
    [shown, changes],
  );

  const nodeRows = useRowsPage(shown?.nodes ?? NO_ROWS, 'nodes');
  const edgeRows = useRowsPage(shown?.edges ?? NO_ROWS, 'edges');

  const centreNode = centre.value;
  if (centreError.value) {
    return (
      <section aria-labelledby="page-title">
        <h1 id="page-title">Graph explorer</h1>
        <p class="error" role="alert">
          {centreError.value}
        </p>
        <p>
          <a href="/graph">Find another node</a>
        </p>
      </section>
    );
  }
  const chosen = selected.value ? valueOf.get(selected.value) : undefined;
  const moment = shown ? new Date(shown.asOf).toLocaleString() : '';
  const nodeLink = (id: string) => {
    const node = valueOf.get(id);
    return (
      <a href={nodeHref(id)}>
        <code>{node?.value || id}</code>
      </a>
    );
  };

  return (
    <section aria-labelledby="page-title" class="graph-page" aria-busy={loading.value}>
      <h1 id="page-title">
        Graph around{' '}
        {centreNode ? (
          <>
            <span class="node-type">{centreNode.type}</span> <code>{centreNode.value}</code>
          </>
        ) : (
          '…'
        )}
      </h1>
      <p>
        <a href={nodeHref(state.nodeId)}>The node's page</a> · <a href="/graph">Find another node</a>
      </p>

      <form class="graph-controls" aria-label="What the graph shows" onSubmit={(e) => e.preventDefault()}>
        <div class="row">
          <label for="graph-depth">Depth</label>
          <select id="graph-depth" value={state.depth} onChange={(e) => navigate(graphUrl({ ...state, depth: Number(e.currentTarget.value) }))}>
            {DEPTHS.map((d) => (
              <option key={d} value={d}>
                {d} edge{d === 1 ? '' : 's'} away
              </option>
            ))}
          </select>
          <label for="graph-limit">Edges at most</label>
          <select id="graph-limit" value={state.limit} onChange={(e) => navigate(graphUrl({ ...state, limit: Number(e.currentTarget.value) }))}>
            {LIMITS.map((l) => (
              <option key={l} value={l}>
                {l}
              </option>
            ))}
          </select>
          {state.expand.length > 0 && (
            <button type="button" class="secondary" onClick={() => navigate(graphUrl({ ...state, expand: [] }))}>
              Collapse the {state.expand.length} expanded
            </button>
          )}
        </div>
        <TypeFilters state={state} />
        {centreNode && <TimeSlider state={state} first={Date.parse(centreNode.first_seen)} last={Date.parse(centreNode.last_seen)} />}
      </form>

      <ChangesForm state={state} picture={shown} marks={changes} error={changesError.value} />

      {pictureError.value && (
        <p class="error" role="alert">
          {pictureError.value}
        </p>
      )}
      <p class="status" role="status">
        {shown
          ? `${shown.nodes.length} node${shown.nodes.length === 1 ? '' : 's'} and ${shown.edges.length} edge${shown.edges.length === 1 ? '' : 's'} as of ${moment}${loading.value ? ' (updating…)' : ''}`
          : 'Loading…'}
        {shown?.truncated && ` More edges than ${state.limit}: the farthest level is cut.`}
      </p>

      <div class={chosen ? 'graph-layout with-details' : 'graph-layout'}>
        <GraphPicture
          nodes={drawnNodes}
          edges={drawnEdges}
          selected={selected.value}
          label={
            shown && centreNode
              ? `The graph around ${centreNode.type} ${centreNode.value} as of ${moment}: ${shown.nodes.length} nodes and ${shown.edges.length} edges, also listed in the Nodes and Edges tables below.`
              : 'The graph, loading'
          }
          onSelect={(id) => (selected.value = id)}
          onExpand={expand}
        />
        {chosen && <NodeDetails node={chosen} state={state} expanded={isExpanded(chosen.id)} onExpand={() => expand(chosen.id)} />}
      </div>

      {shown && (
        <>
          <h2 id="graph-nodes-title">Nodes</h2>
          <table class="graph-table" aria-labelledby="graph-nodes-title">
            <thead>
              <tr>
                <th scope="col">Node</th>
                <th scope="col" class="number">
                  Distance
                </th>
                <th scope="col">Country and AS</th>
                <th scope="col">Flags</th>
                <th scope="col">First seen</th>
                <th scope="col">Last seen</th>
                {changes && <th scope="col">Change</th>}
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {nodeRows.shown.map((n) => (
                <tr key={n.id} aria-selected={n.id === selected.value ? 'true' : undefined}>
                  <th scope="row">
                    <span class="node-type">{n.type}</span> {nodeLink(n.id)}
                  </th>
                  <td class="number">{n.depth}</td>
                  <td>
                    <Whereabouts node={n} />
                  </td>
                  <td>
                    <FlagList node={n} />
                  </td>
                  <td class="nowrap">
                    <Time iso={n.first_seen} />
                  </td>
                  <td class="nowrap">
                    <Time iso={n.last_seen} />
                  </td>
                  {changes && (
                    <td>
                      <ChangeCell change={changeOf(changes, n.id)} />
                    </td>
                  )}
                  <td class="nowrap">
                    <button type="button" class="secondary" aria-label={`Details of ${n.value}`} onClick={() => (selected.value = n.id)}>
                      Details
                    </button>{' '}
                    <button type="button" class="secondary" aria-label={`Expand ${n.value}`} disabled={isExpanded(n.id)} onClick={() => expand(n.id)}>
                      {isExpanded(n.id) ? 'Expanded' : 'Expand'}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>

          {nodeRows.pager}

          <h2 id="graph-edges-title">Edges</h2>
          {shown.edges.length === 0 ? (
            <p class="empty">No edge at this moment with these types.</p>
          ) : (
            <table class="graph-table" aria-labelledby="graph-edges-title">
              <thead>
                <tr>
                  <th scope="col">Relation</th>
                  <th scope="col">From</th>
                  <th scope="col">To</th>
                  <th scope="col">First seen</th>
                  <th scope="col">Last seen</th>
                  <th scope="col" class="number">
                    Artifacts
                  </th>
                  {changes && <th scope="col">Change</th>}
                </tr>
              </thead>
              <tbody>
                {edgeRows.shown.map((e) => (
                  <tr key={e.id}>
                    <th scope="row">{words(e.type)}</th>
                    <td>{nodeLink(e.source_id)}</td>
                    <td>{nodeLink(e.target_id)}</td>
                    <td class="nowrap">
                      <Time iso={e.first_seen} />
                    </td>
                    <td class="nowrap">
                      <Time iso={e.last_seen} />
                      {e.approximate && <span class="tag">seen again later</span>}
                    </td>
                    <td class="number" title={e.approximate ? 'Includes artifacts after the moment shown: at most this many then' : undefined}>
                      {e.approximate ? `at most ${e.artifact_count.toLocaleString()}` : e.artifact_count.toLocaleString()}
                    </td>
                    {changes && (
                      <td>
                        <ChangeCell change={changeOf(changes, e.id)} />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          {edgeRows.pager}
        </>
      )}
    </section>
  );
}
