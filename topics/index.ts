// The catalogue: every topic cairn uses. Nothing else names a topic string.
import { artifactsRaw } from './artifacts.js';
import { artifactsEnriched, artifactsParsed } from './events.js';
import { leads } from './leads.js';
import { systemEvents } from './system-events.js';
import type { TopicDef } from './topic.js';

export { artifactsRaw, RawArtifact } from './artifacts.js';
export { artifactsEnriched, artifactsParsed, EDGE_TYPES, EdgeType, EnrichedEvent, Entity, FieldValue, NODE_TYPES, NodeType, ParsedEvent } from './events.js';
export { Lead, leads } from './leads.js';
export { SYSTEM_EVENT_TYPES, SystemEvent, systemEvents } from './system-events.js';
export { defineTopic, dlqName, type TopicDef } from './topic.js';

export const TOPICS: readonly Pick<TopicDef, 'name' | 'dlq' | 'consumers'>[] = [artifactsRaw, artifactsParsed, artifactsEnriched, leads, systemEvents];

/** Every topic and its dead-letter sibling, as the bus creates them. */
export function topicSpecs(): { name: string; consumers: readonly string[] }[] {
  return TOPICS.flatMap((t) => [
    { name: t.name, consumers: t.consumers },
    { name: t.dlq, consumers: [] },
  ]);
}
