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
 * A condition on artifacts (column `id`) that their parsed event has `field`
 * equal to `value` (ASCII case ignored; any value of a multi-valued field).
 */
export function artifactFieldCondition(field: string, value: string, scope: { orgId: string; start?: string; end?: string }, params: SqlParams): string {
  const conditions = [`org_id = ${params.add(scope.orgId, 'String')}`];
  if (scope.start) conditions.push(`timestamp >= ${params.add(toClickHouseTime(scope.start), 'DateTime64(3)')}`);
  if (scope.end) conditions.push(`timestamp < ${params.add(toClickHouseTime(scope.end), 'DateTime64(3)')}`);
  conditions.push(`has(arrayMap(x -> lower(x), fields[${params.add(field, 'String')}]), lower(${params.add(value, 'String')}))`);
  return `id IN (SELECT artifact_id FROM events WHERE ${conditions.join(' AND ')})`;
}
