// artifacts.parsed and artifacts.enriched: an artifact as a normalized event
// with ECS fields, and the same event with the graph entities found in it.
import { z } from 'zod';
import { EDGE_TYPES, NODE_TYPES } from './graph-types.js';
import { defineTopic } from './topic.js';

export { EDGE_TYPES, NODE_TYPES };

export type FieldValue = string | number | boolean | (string | number)[];

/**
 * A field value, checked by hand: events carry dozens of fields, and a zod
 * union per field cost more than parsing the event itself.
 */
export const FieldValue = z.custom<FieldValue>(
  (v) =>
    typeof v === 'string' ||
    typeof v === 'number' ||
    typeof v === 'boolean' ||
    (Array.isArray(v) && v.every((item) => typeof item === 'string' || typeof item === 'number')),
  { message: 'a field value must be a string, number, boolean or an array of strings and numbers' },
);

export const ParsedEvent = z.object({
  artifact_id: z.uuid(),
  org_id: z.string().min(1),
  source: z.string(),
  /** The artifact's timestamp (ISO 8601), which artifact search filters on. */
  timestamp: z.string(),
  /** When cairn received the artifact. */
  received_at: z.string(),
  /** The format parser that read it. */
  parser: z.string(),
  /** The raw text, for full-text terms of lead-rule patterns. */
  raw: z.string(),
  /** Flat ECS fields: "source.ip", "event.outcome", ... */
  fields: z.record(z.string(), FieldValue),
});
export type ParsedEvent = z.infer<typeof ParsedEvent>;

export const NodeType = z.enum(NODE_TYPES);
export type NodeType = z.infer<typeof NodeType>;

export const EdgeType = z.enum(EDGE_TYPES);
export type EdgeType = z.infer<typeof EdgeType>;

export const Entity = z.object({
  id: z.uuid(),
  type: NodeType,
  value: z.string(),
  /** The field it came from, e.g. "source.ip". */
  role: z.string(),
});
export type Entity = z.infer<typeof Entity>;

export const EnrichedEvent = ParsedEvent.extend({ entities: z.array(Entity) });
export type EnrichedEvent = z.infer<typeof EnrichedEvent>;

export const artifactsParsed = defineTopic<ParsedEvent>({
  name: 'artifacts.parsed',
  schema: ParsedEvent,
  key: (e) => e.artifact_id,
});

export const artifactsEnriched = defineTopic<EnrichedEvent>({
  name: 'artifacts.enriched',
  schema: EnrichedEvent,
  key: (e) => e.artifact_id,
});
