// The events table: parsed ECS fields of each artifact, for field:value search.
import type { Store } from '../client.js';
import { toClickHouseTime } from '../client.js';
import type { SqlParams } from '../sql.js';

export type EventFieldValue = string | number | boolean | (string | number)[];

export interface EventRow {
  artifact_id: string;
  org_id: string;
  source: string;
  timestamp: string;
  event_time?: string;
  parser: string;
  fields: Record<string, EventFieldValue>;
  created_at: string;
}

function asStrings(value: EventFieldValue): string[] {
  return Array.isArray(value) ? value.map(String) : [String(value)];
}

export async function insertEvents(store: Store, events: EventRow[]): Promise<void> {
  if (events.length === 0) return;
  await store.insert({
    table: 'events',
    format: 'JSONEachRow',
    values: events.map((e) => ({
      artifact_id: e.artifact_id,
      org_id: e.org_id,
      source: e.source,
      timestamp: toClickHouseTime(e.timestamp),
      event_time: e.event_time ? toClickHouseTime(e.event_time) : null,
      parser: e.parser,
      fields: Object.fromEntries(Object.entries(e.fields).map(([k, v]) => [k, asStrings(v)])),
      created_at: toClickHouseTime(e.created_at),
    })),
  });
}

/**
 * Conditions on artifacts (column `id`) that their parsed event has a value
 * of a field passing a test: `valueTest` is a SQL expression of the lambda
 * variable `v` (one value of the field; multi-valued fields pass when any
 * value does), or null for "the field has a value". Scoped to the
 * organization and the time range searched.
 */
export function eventFieldSubquery(scope: { orgId: string; start?: string; end?: string }) {
  return (field: string, valueTest: string | null, params: SqlParams): string => {
    const conditions = [`org_id = ${params.add(scope.orgId, 'String')}`];
    if (scope.start) conditions.push(`timestamp >= ${params.add(toClickHouseTime(scope.start), 'DateTime64(3)')}`);
    if (scope.end) conditions.push(`timestamp < ${params.add(toClickHouseTime(scope.end), 'DateTime64(3)')}`);
    const values = `fields[${params.add(field, 'String')}]`;
    conditions.push(valueTest === null ? `length(${values}) > 0` : `arrayExists(v -> ${valueTest}, ${values})`);
    return `id IN (SELECT artifact_id FROM events WHERE ${conditions.join(' AND ')})`;
  };
}
