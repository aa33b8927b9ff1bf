// The catalogue: every topic cairn uses. Nothing else names a topic string.
import { artifactsRaw } from './artifacts.js';
import { artifactsEnriched, artifactsParsed } from './events.js';
import { leads } from './leads.js';
import { reprocessTasks } from './reprocess.js';
import { systemEvents } from './system-events.js';
import type { TopicDef } from './topic.js';

export { artifactsRaw, MAX_RAW_BYTES, RawArtifact } from './artifacts.js';
export { artifactsEnriched, artifactsParsed, EDGE_TYPES, EdgeType, EnrichedEvent, Entity, FieldValue, NODE_TYPES, NodeType, ParsedEvent } from './events.js';
export { Lead, leads } from './leads.js';
export { KeyCursor, ReprocessTask, reprocessTasks } from './reprocess.js';
export { SYSTEM_EVENT_TYPES, SystemEvent, systemEvents } from './system-events.js';
export { defineTopic, dlqName, type TopicDef } from './topic.js';

export const TOPICS: readonly Pick<TopicDef, 'name' | 'dlq'>[] = [artifactsRaw, artifactsParsed, artifactsEnriched, leads, systemEvents, reprocessTasks];
