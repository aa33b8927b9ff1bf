// The graph explorer's picture, drawn by cytoscape (canvas; smooth at a few
// thousand elements). This module is loaded with a dynamic import() by
// graph.tsx, so cytoscape is its own file, fetched only when the explorer
// opens: the console's initial JavaScript does not carry it. It knows
// nothing of Preact or the API: it draws the nodes and edges it is given,
// in the console's colours (its CSS variables, light or dark), and reports
// a node chosen (click) or to expand (double click).
import cytoscape from 'cytoscape';

/** new: first seen in the range of the "what changed" view; quiet: last seen before it. */
export type Change = 'new' | 'quiet' | null;

export interface DrawnNode {
  id: string;
  type: string;
  /** The value, with its country, AS and flags on a second line when it has them. */
  label: string;
  /** Edges from the centre: the ring it is drawn on. */
  depth: number;
  centre: boolean;
  change: Change;
}

export interface DrawnEdge {
  id: string;
  source: string;
  target: string;
  type: string;
  change: Change;
}

export interface GraphViewHandlers {
  select(nodeId: string | null): void;
  expand(nodeId: string): void;
}

export interface GraphView {
  /** Draws these elements, keeping those already drawn; a changed set is laid out again and fitted. */
  show(nodes: DrawnNode[], edges: DrawnEdge[]): void;
  /** Marks one node as chosen (the tables' Details button), or none. */
  select(nodeId: string | null): void;
  fit(): void;
  destroy(): void;
}

/** Above this many elements the picture trades detail for speed while panning and zooming. */
const MANY_ELEMENTS = 1000;

/** The most a fitted picture is zoomed: at it, node labels are read and edge labels just shown (their min-zoomed-font-size). */
const FIT_ZOOM_AT_MOST = 1.5;
const MIN_ZOOM = 0.02;
/** Room kept around the outermost ring, in model units, for the labels (about 160 wide, two lines under the node). */
const LABEL_ROOM = { x: 90, y: 50 };

/** Space between nodes on a ring, between the rings of one distance, and between distances, in model units (a node is 18 wide, its label two lines). */
const RING_SPACING = 34;
const SUB_RING_GAP = 44;
const LEVEL_GAP = 140;

/**
 * Rings by distance from the centre, each node type together: deterministic, and linear in the nodes (cytoscape's
 * force layouts are not, and its concentric layout measured each node's box: 0.5-1.3 s at 2000 nodes here). A
 * distance with more nodes than its ring holds fills further rings outwards, so 2000 neighbours make a disc that
 * still fits the view at a readable zoom, not one ring ten thousand units wide.
 */
function ringPositions(nodes: DrawnNode[]): { positions: Map<string, cytoscape.Position>; radius: number } {
  const levels = new Map<number, DrawnNode[]>();
  for (const n of nodes) levels.set(n.depth, [...(levels.get(n.depth) ?? []), n]);
  const positions = new Map<string, cytoscape.Position>();
  let outermost: number | null = null;
  for (const depth of [...levels.keys()].sort((a, b) => a - b)) {
    const level = levels.get(depth)!.sort((a, b) => a.type.localeCompare(b.type) || a.label.localeCompare(b.label));
    // The centre alone sits in the middle; any other level starts a ring further out.
    let radius: number = outermost === null ? (level.length === 1 ? 0 : LEVEL_GAP) : outermost + LEVEL_GAP;
    for (let placed = 0, ring = 0; placed < level.length; ring++) {
      const holds = radius === 0 ? 1 : Math.max(1, Math.floor((2 * Math.PI * radius) / RING_SPACING));
      const count = Math.min(holds, level.length - placed);
      // Every other ring turned by half a step, so that labels of neighbouring rings do not line up.
      const turn = ring % 2 ? Math.PI / count : 0;
      for (let i = 0; i < count; i++) {
        const angle = -Math.PI / 2 + turn + (2 * Math.PI * i) / count;
        positions.set(nodeKey(level[placed + i]!.id), { x: radius * Math.cos(angle), y: radius * Math.sin(angle) });
      }
      placed += count;
      outermost = radius;
      radius += SUB_RING_GAP;
    }
  }
  return { positions, radius: outermost ?? 0 };
}

/**
 * The whole picture in view, its centre node in the middle of it: the rings are round the origin, so no bounding box
 * is measured (cytoscape's fit measures every label). Small pictures are not blown up past FIT_ZOOM_AT_MOST.
 */
function fitRings(graph: cytoscape.Core, radius: number): void {
  const [width, height] = [graph.width(), graph.height()];
  const zoom = Math.min(FIT_ZOOM_AT_MOST, width / (2 * (radius + LABEL_ROOM.x)), height / (2 * (radius + LABEL_ROOM.y)));
  graph.viewport({ zoom: Math.max(MIN_ZOOM, zoom), pan: { x: width / 2, y: height / 2 } });
}

/** Cytoscape's ids: a node's and an edge's UUIDs never meet, but their own namespaces keep that obvious. */
const nodeKey = (id: string) => `n${id}`;
const edgeKey = (id: string) => `e${id}`;

/** The shape of each node type, so a type is told by more than its colour. */
const SHAPES: Record<string, cytoscape.Css.NodeShape> = {
  IP: 'ellipse',
  domain: 'diamond',
  host: 'round-rectangle',
  user: 'triangle',
  email: 'round-tag',
};

function cssVariable(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

/** The console's colours now (styles.css: light, or dark when the system says so). */
function stylesheet(): cytoscape.StylesheetJson {
  const colour = {
    bg: cssVariable('--bg'),
    fg: cssVariable('--fg'),
    soft: cssVariable('--fg-soft'),
    border: cssVariable('--border'),
    focus: cssVariable('--focus'),
    changed: cssVariable('--graph-new'),
  };
  const typeColours = Object.keys(SHAPES).map((type) => ({
    selector: `node.t-${type}`,
    style: { 'background-color': cssVariable(`--graph-${type.toLowerCase()}`), shape: SHAPES[type]! },
  }));
  return [
    {
      selector: 'node',
      style: {
        width: 18,
        height: 18,
        'background-color': colour.soft,
        'border-width': 1,
        'border-color': colour.bg,
        label: 'data(label)',
        color: colour.fg,
        'font-size': 9,
        'min-zoomed-font-size': 7,
        'text-valign': 'bottom',
        'text-margin-y': 3,
        'text-wrap': 'wrap',
        'text-max-width': '160px',
        'text-background-color': colour.bg,
        'text-background-opacity': 0.75,
        'text-background-padding': '1px',
      },
    },
    ...typeColours,
    { selector: 'node.centre', style: { width: 30, height: 30, 'border-width': 3, 'border-color': colour.fg, 'font-weight': 'bold' } },
    {
      selector: 'edge',
      style: {
        width: 1.5,
        'line-color': colour.border,
        'target-arrow-color': colour.border,
        'target-arrow-shape': 'triangle',
        'arrow-scale': 0.7,
        'curve-style': 'straight',
        label: 'data(label)',
        color: colour.soft,
        'font-size': 7,
        'min-zoomed-font-size': 8,
        'text-rotation': 'autorotate',
        'text-background-color': colour.bg,
        'text-background-opacity': 0.75,
      },
    },
    // Past MANY_ELEMENTS edges drop their arrows: haystack edges are the fastest cytoscape draws.
    { selector: 'edge.many', style: { 'curve-style': 'haystack', 'target-arrow-shape': 'none' } },
    { selector: 'node.new', style: { 'border-width': 4, 'border-color': colour.changed, 'border-style': 'double' } },
    { selector: 'edge.new', style: { width: 3, 'line-color': colour.changed, 'target-arrow-color': colour.changed } },
    { selector: 'node.quiet', style: { opacity: 0.5, 'border-width': 2, 'border-style': 'dashed', 'border-color': colour.soft } },
    { selector: 'edge.quiet', style: { opacity: 0.6, 'line-style': 'dashed' } },
    { selector: 'node:selected', style: { 'overlay-color': colour.focus, 'overlay-opacity': 0.3, 'overlay-padding': 6 } },
  ];
}

const classesOf = (parts: Array<string | false | null>) => parts.filter(Boolean).join(' ');

export function createGraphView(container: HTMLElement, handlers: GraphViewHandlers): GraphView {
  // Cytoscape puts a <style> in the page to give its container `position: relative`; the console's CSP allows no
  // inline style, so the browser would refuse it (and say so). An element with that style's id tells cytoscape it
  // is there already, and styles.css gives .graph-canvas the position instead.
  if (!document.getElementById('__________cytoscape_stylesheet')) {
    const marker = document.createElement('meta');
    marker.id = '__________cytoscape_stylesheet';
    document.head.append(marker);
  }

  /** Made at the first picture, and made again when it crosses MANY_ELEMENTS: those options are fixed at creation. */
  let cy: cytoscape.Core | null = null;
  let manyMode = false;
  /** The outermost ring drawn, for "Fit the picture". */
  let drawnRadius = 0;
  function create(many: boolean): cytoscape.Core {
    cy?.destroy();
    manyMode = many;
    const made = cytoscape({
      container,
      style: stylesheet(),
      minZoom: MIN_ZOOM,
      maxZoom: 4,
      boxSelectionEnabled: false,
      selectionType: 'single',
      // Speed over detail while moving a large picture: a bitmap of it is panned, its edges hidden.
      textureOnViewport: many,
      hideEdgesOnViewport: many,
    });
    made.on('tap', 'node', (event) => handlers.select((event.target as cytoscape.NodeSingular).id().slice(1)));
    made.on('tap', (event) => {
      if (event.target === made) handlers.select(null);
    });
    made.on('dbltap', 'node', (event) => handlers.expand((event.target as cytoscape.NodeSingular).id().slice(1)));
    return made;
  }

  // The colours follow the system's light or dark setting as the rest of the console does.
  const scheme = matchMedia('(prefers-color-scheme: dark)');
  const restyle = () => cy?.style(stylesheet());
  scheme.addEventListener('change', restyle);

  return {
    show(nodes, edges) {
      if (!cy && nodes.length === 0) return;
      const many = nodes.length + edges.length > MANY_ELEMENTS;
      const graph = cy && many === manyMode ? cy : (cy = create(many));
      const wanted = new Set([...nodes.map((n) => nodeKey(n.id)), ...edges.map((e) => edgeKey(e.id))]);
      const { positions, radius } = ringPositions(nodes);
      const added: cytoscape.ElementDefinition[] = [];
      let removed = false;
      graph.batch(() => {
        const gone = graph.elements().filter((el) => !wanted.has(el.id()));
        removed = gone.nonempty();
        gone.remove();
        for (const n of nodes) {
          const data = { id: nodeKey(n.id), label: n.label };
          const classes = classesOf([`t-${n.type}`, n.centre && 'centre', n.change]);
          const existing = graph.getElementById(data.id);
          if (existing.nonempty()) existing.data(data).classes(classes);
          else added.push({ group: 'nodes', data, classes, position: positions.get(data.id)! });
        }
        const drawnNodes = new Set(nodes.map((n) => n.id));
        for (const e of edges) {
          const data = { id: edgeKey(e.id), source: nodeKey(e.source), target: nodeKey(e.target), label: e.type.replace(/_/g, ' ') };
          const classes = classesOf([e.change, many && 'many']);
          const existing = graph.getElementById(data.id);
          if (existing.nonempty()) existing.classes(classes);
          else if (drawnNodes.has(e.source) && drawnNodes.has(e.target)) added.push({ group: 'edges', data, classes });
        }
        // One add for all: cytoscape indexes a collection at once much faster than element by element.
        if (added.length) graph.add(added);
        // A changed set is laid out again: the rings are drawn for the nodes there are now.
        if (removed || added.length) graph.nodes().positions((node) => positions.get(node.id())!);
      });
      if (!removed && added.length === 0) return;
      drawnRadius = radius;
      fitRings(graph, radius);
    },
    select(nodeId) {
      if (!cy) return;
      const graph = cy;
      graph.batch(() => {
        graph.$(':selected').unselect();
        if (nodeId) graph.getElementById(nodeKey(nodeId)).select();
      });
    },
    fit() {
      if (cy) fitRings(cy, drawnRadius);
    },
    destroy() {
      scheme.removeEventListener('change', restyle);
      cy?.destroy();
      cy = null;
    },
  };
}
