// The events table: parsed ECS fields of each artifact, for field:value search.
import type { Store } from '../client.js';
import { toClickHouseTime } from '../client.js';
import { queryRows, SqlParams } from '../sql.js';
import { encodedRows, insertEncoded, type EncodedRows } from '../encoded-rows.js';
import { isoToMs } from '../../lib/iso-time.js';
import { RowBinaryWriter, type RowColumns } from '../row-binary.js';
import { lookupTable } from '../../lib/lookup-table.js';

/**
 * What some value of a field must pass (compiled by query/to-sql.ts):
 * `lambda`, a SQL expression of the variable `v`, or null for "the field has
 * a value"; for an equality test also the ASCII-lowered value, which an
 * index may look up.
 */
export interface FieldTest {
  lambda: string | null;
  equals?: string;
}

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

/** An events row as read back: every field a list of strings. */
export interface StoredEvent {
  artifact_id: string;
  org_id: string;
  source: string;
  timestamp: string;
  event_time: string | null;
  parser: string;
  fields: Record<string, string[]>;
  created_at: string;
}

/** The columns an events row is written with (the promoted ones are filled from the map by the engine). */
export const EVENT_COLUMNS: RowColumns = [
  ['artifact_id', 'UUID'],
  ['org_id', 'LowCardinality(String)'],
  ['source', 'LowCardinality(String)'],
  ['timestamp', "DateTime64(3, 'UTC')"],
  ['event_time', "Nullable(DateTime64(3, 'UTC'))"],
  ['parser', 'LowCardinality(String)'],
  ['fields', 'Map(LowCardinality(String), Array(String))'],
  ['created_at', "DateTime64(3, 'UTC')"],
];

/** Appends events as rows of the events table (EVENT_COLUMNS). Plain loops: this runs for every event. */
export function writeEvents(writer: RowBinaryWriter, events: EventRow[]): void {
  for (let n = 0; n < events.length; n++) {
    const e = events[n]!;
    writer.row().uuid(e.artifact_id).string(e.org_id).string(e.source).dateTime64(isoToMs(e.timestamp));
    if (e.event_time) writer.nullFlag(false).dateTime64(isoToMs(e.event_time));
    else writer.nullFlag(true);
    writer.string(e.parser);
    let keys = 0;
    for (const key in e.fields) keys++;
    writer.varUInt(keys);
    for (const key in e.fields) {
      writer.string(key);
      const value = e.fields[key]!;
      if (Array.isArray(value)) {
        writer.varUInt(value.length);
        for (const item of value) writer.string(typeof item === 'string' ? item : String(item));
      } else {
        writer.varUInt(1).string(typeof value === 'string' ? value : String(value));
      }
    }
    writer.dateTime64(isoToMs(e.created_at));
  }
}

/** Events as rows of the events table, ready to insert (insertEncoded). */
export function encodeEvents(events: EventRow[]): EncodedRows {
  const writer = new RowBinaryWriter();
  writeEvents(writer, events);
  return encodedRows('events', EVENT_COLUMNS, writer);
}

export async function insertEvents(store: Store, events: EventRow[]): Promise<void> {
  await insertEncoded(store, encodeEvents(events));
}

/**
 * Fields analysts filter on most, each also kept in a column of its own
 * (migration 008, MATERIALIZED from the map at insert): a test on one reads
 * that column, not the whole map, which is what keeps CIDR, range and
 * wildcard searches fast over millions of events. Other fields are read from
 * the map. Adding one is a migration plus an entry here.
 */
export const PROMOTED_FIELDS = lookupTable<string>({
  'source.ip': 'f_source_ip',
  'source.port': 'f_source_port',
  'destination.ip': 'f_destination_ip',
  'destination.port': 'f_destination_port',
  'user.name': 'f_user_name',
  'host.hostname': 'f_host_hostname',
  'process.name': 'f_process_name',
  'service.name': 'f_service_name',
  'event.action': 'f_event_action',
  'event.category': 'f_event_category',
  'event.outcome': 'f_event_outcome',
  'event.dataset': 'f_event_dataset',
  'network.transport': 'f_network_transport',
  'url.original': 'f_url_original',
  'url.path': 'f_url_path',
  'url.domain': 'f_url_domain',
  'http.request.method': 'f_http_request_method',
  'http.response.status_code': 'f_http_response_status_code',
  'user_agent.original': 'f_user_agent_original',
  'dns.question.name': 'f_dns_question_name',
  'rule.name': 'f_rule_name',
});

/** When the event happened, as the rule stage takes it (pipeline/event-time.ts): its own time unless it lies more than a day ahead. */
export const EVENT_TIME = `if(event_time IS NOT NULL AND event_time <= now64(3) + INTERVAL 1 DAY, assumeNotNull(event_time), timestamp)`;

/** The values of `field` in an events row (an Array(String) expression): its own column when promoted, else from the map. */
export function eventFieldValues(field: string, params: SqlParams): string {
  return PROMOTED_FIELDS[field] ?? `fields[${params.add(field, 'String')}]`;
}

/**
 * Every (field, lower-cased value) pair of an events row, as the text index
 * of migration 010 holds them; the expression must stay the same as there.
 */
const FIELD_VALUE_PAIRS =
  "arrayFlatten(arrayMap((k, vs) -> arrayMap(v -> concat(toString(length(k)), ':', k, '=', lower(v)), vs), mapKeys(fields), mapValues(fields)))";

/** A pair as FIELD_VALUE_PAIRS writes it (ClickHouse's length() counts bytes). */
function fieldValuePair(field: string, lowerValue: string): string {
  return `${Buffer.byteLength(field)}:${field}=${lowerValue}`;
}

/**
 * The condition on one events row that some value of `field` passes the
 * test (multi-valued fields pass when any value does).
 */
export function eventFieldCondition(field: string, test: FieldTest, params: SqlParams): string {
  if (test.equals !== undefined) {
    // The same test as lower(v) = value, as a lookup in the text index of every pair (migration 010): it lists
    // the rows holding the pair, and neither the map nor a promoted column is read.
    return `has(${FIELD_VALUE_PAIRS}, ${params.add(fieldValuePair(field, test.equals), 'String')})`;
  }
  const values = eventFieldValues(field, params);
  return test.lambda === null ? `notEmpty(${values})` : `arrayExists(v -> ${test.lambda}, ${values})`;
}

export interface EventScope {
  orgId: string;
  /** Only artifacts of this source. */
  source?: string;
  start?: string;
  end?: string;
}

/**
 * Conditions for an organization, a source and a time range [start, end),
 * the same on the events and the artifacts table: an event carries its
 * artifact's organization, source and timestamp.
 */
export function eventScope(scope: EventScope, params: SqlParams): string[] {
  const conditions = [`org_id = ${params.add(scope.orgId, 'String')}`];
  if (scope.source) conditions.push(`source = ${params.add(scope.source, 'String')}`);
  if (scope.start) conditions.push(`timestamp >= ${params.add(toClickHouseTime(scope.start), 'DateTime64(3)')}`);
  if (scope.end) conditions.push(`timestamp < ${params.add(toClickHouseTime(scope.end), 'DateTime64(3)')}`);
  return conditions;
}

/**
 * Conditions on artifacts (column `id`) that their parsed event has a value
 * of a field passing a test (see eventFieldCondition), scoped to the
 * organization and the time range searched.
 */
export function eventFieldSubquery(scope: EventScope) {
  return (field: string, test: FieldTest, params: SqlParams, within?: string): string => {
    const conditions = [...eventScope(scope, params)];
    // Only events of artifacts the rest of the query keeps.
    if (within) conditions.push(eventsOfArtifacts(scope)(within, params));
    conditions.push(eventFieldCondition(field, test, params));
    return `id IN (SELECT artifact_id FROM events WHERE ${conditions.join(' AND ')})`;
  };
}

/** On events rows: that their artifact, in the same scope, passes a condition on the artifacts table. */
export function eventsOfArtifacts(scope: EventScope) {
  return (artifactCondition: string, params: SqlParams): string =>
    `artifact_id IN (SELECT id FROM artifacts WHERE ${[...eventScope(scope, params), `(${artifactCondition})`].join(' AND ')})`;
}

/** The parsed event of one artifact (its fields as the parser made them); null when it has none (not parsed yet, or no parser knew it). */
export async function eventOfArtifact(store: Store, orgId: string, artifactId: string): Promise<{ parser: string; fields: Record<string, string[]> } | null> {
  const params = new SqlParams();
  const [row] = (await queryRows(
    store,
    `SELECT parser, fields FROM events WHERE org_id = ${params.add(orgId, 'String')} AND artifact_id = ${params.add(artifactId, 'UUID')} LIMIT 1`,
    params,
  )) as { parser: string; fields: Record<string, string[]> }[];
  return row ?? null;
}
