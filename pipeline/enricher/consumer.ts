// Enricher stage: parsed events to graph nodes and edges (ClickHouse), and
// to artifacts.enriched with the entities each event names.
import { insertEdgeSightings, type EdgeSightingRow } from '../../clickhouse/tables/edges.js';
import { insertNodeSightings, type NodeSighting } from '../../clickhouse/tables/nodes.js';
import { artifactsEnriched, artifactsParsed, type EnrichedEvent, type ParsedEvent } from '../../topics/index.js';
import { consume, publish } from '../bus/consume.js';
import { isTransientStageError, type Stage } from '../stage.js';
import { extractGraph } from './extract.js';

export interface EnrichedBatch {
  nodes: NodeSighting[];
  sightings: EdgeSightingRow[];
  events: EnrichedEvent[];
}

/**
 * Folds events' entities into one sighting per node (earliest and latest
 * time), over a batch given at once or in slices (pipeline/analysis/analyse.ts).
 */
export class GraphFold {
  readonly nodes = new Map<string, NodeSighting>();

  /** The events with the entities each names, and the sightings of their edges. */
  add(batch: ParsedEvent[]): { events: EnrichedEvent[]; sightings: EdgeSightingRow[] } {
    const sightings: EdgeSightingRow[] = [];
    const events: EnrichedEvent[] = [];
    for (const event of batch) {
      const graph = extractGraph(event);
      for (const entity of graph.entities) {
        const node = this.nodes.get(entity.id);
        if (!node) {
          this.nodes.set(entity.id, { org_id: event.org_id, id: entity.id, type: entity.type, value: entity.value, first_seen: graph.seenAt, last_seen: graph.seenAt });
        } else {
          if (graph.seenAt < node.first_seen) node.first_seen = graph.seenAt;
          if (graph.seenAt > node.last_seen) node.last_seen = graph.seenAt;
        }
      }
      for (const edge of graph.edges) sightings.push({ org_id: event.org_id, ...edge });
      events.push({ ...event, entities: graph.entities });
    }
    return { events, sightings };
  }
}

/** Folds a batch's entities into one sighting per node. */
export function enrichBatch(batch: ParsedEvent[]): EnrichedBatch {
  const fold = new GraphFold();
  const { events, sightings } = fold.add(batch);
  return { nodes: [...fold.nodes.values()], sightings, events };
}

export const enricherStage: Stage = {
  name: 'enricher',
  description: 'extracts graph entities and relationships from parsed events',
  input: artifactsParsed.name,
  async start(ctx) {
    return consume({
      bus: ctx.bus,
      topic: artifactsParsed,
      group: 'enricher',
      logger: ctx.logger,
      maxBatchSize: 5000,
      maxWaitMs: 50,
      isTransient: isTransientStageError,
      handle: async (batch) => {
        const { nodes, sightings, events } = enrichBatch(batch.map((e) => e.value));
        await insertNodeSightings(ctx.store, nodes);
        await insertEdgeSightings(ctx.store, sightings);
        await publish(ctx.bus, artifactsEnriched, events);
      },
    });
  },
};
