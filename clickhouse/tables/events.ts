// The events table: parsed ECS fields of each artifact, for field:value search.
import type { ClickHouseSettings } from '@clickhouse/client';
import type { Store } from '../client.js';
import { toClickHouseTime, toIsoTimestamp } from '../client.js';
import { queryRows, SqlParams } from '../sql.js';
import { encodedRows, insertEncoded, type EncodedRows } from '../encoded-rows.js';
import { isoToMs, msToIso } from '../../lib/iso-time.js';
import { inlineQueryParams } from '../inline-params.js';
import { RowBinaryWriter, type RowColumns } from '../row-binary.js';
import { lookupTable, setOwn } from '../../lib/lookup-table.js';

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

/** An event's fields as the table holds them, every value an array of strings: what writeEvents writes, as data. */
export function storedFieldsOf(fields: Record<string, EventFieldValue>): Record<string, string[]> {
  const stored: Record<string, string[]> = {};
  for (const key in fields) {
    const value = fields[key]!;
    setOwn(stored, key, Array.isArray(value) ? value.map((item) => (typeof item === 'string' ? item : String(item))) : [typeof value === 'string' ? value : String(value)]);
  }
  return stored;
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

/**
 * An events row as a re-parse gives it (pipeline/reprocess), for the stored
 * row of the same artifact: where that row sits in the key (organization,
 * timestamp in epoch ms, artifact id) and the columns a parse decides.
 */
export interface EventReplacement {
  artifact_id: string;
  org_id: string;
  timestamp: number;
  parser: string;
  /** Epoch ms, or null when the line says no time of its own. */
  event_time: number | null;
  fields: Record<string, string[]>;
}

/** Where some events rows sit: their organization, the time span of their keys and their ids. */
function keysCondition(rows: readonly { artifact_id: string; org_id: string; timestamp: number }[]): { condition: string; params: Record<string, unknown> } {
  let from = Number.POSITIVE_INFINITY;
  let to = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    if (row.timestamp < from) from = row.timestamp;
    if (row.timestamp > to) to = row.timestamp;
  }
  const orgs = [...new Set(rows.map((r) => r.org_id))];
  return {
    // The time span lets the primary key skip every granule outside it; the ids pick the rows.
    condition: 'org_id IN {orgs:Array(String)} AND timestamp >= {from:DateTime64(3)} AND timestamp <= {to:DateTime64(3)} AND artifact_id IN {ids:Array(UUID)}',
    params: { orgs, from: toClickHouseTime(msToIso(from)), to: toClickHouseTime(msToIso(to)), ids: rows.map((r) => r.artifact_id) },
  };
}

/**
 * A lightweight UPDATE giving each row its replacement's parser, event time
 * and fields. The engine writes the new values of only these rows as a patch
 * part and applies it to every read from the moment the statement returns:
 * each artifact keeps one events row throughout, so nothing is counted
 * twice (migration 036). The promoted columns (migration 008) follow the
 * map. The values travel in the statement, written as literals (the same
 * for the embedded engine and a server, whose URL would not hold them as
 * parameters): each row's fields as JSON, read back by JSONExtract.
 */
export function replaceEventsStatement(rows: readonly EventReplacement[]): string {
  if (rows.length === 0) throw new Error('replaceEventsStatement needs at least one row');
  const { condition, params } = keysCondition(rows);
  const keyed = (values: string) => `transform(toString(artifact_id), {keys:Array(String)}, ${values}, '')`;
  const statement = `UPDATE events SET
      parser = ${keyed('{parsers:Array(String)}')},
      event_time = parseDateTime64BestEffortOrNull(${keyed('{times:Array(String)}')}, 3, 'UTC'),
      fields = JSONExtract(${keyed('{fields:Array(String)}')}, 'Map(String, Array(String))')
    WHERE ${condition}`;
  const inlined = inlineQueryParams(statement, {
    ...params,
    keys: rows.map((r) => r.artifact_id),
    parsers: rows.map((r) => r.parser),
    times: rows.map((r) => (r.event_time === null ? '' : toClickHouseTime(msToIso(r.event_time)))),
    fields: rows.map((r) => JSON.stringify(r.fields)),
  });
  if (inlined === null) throw new Error('the replacement statement did not take its values as literals');
  return inlined;
}

/** A lightweight DELETE of the events rows at these keys, written as a patch part as replacements are. */
export function deleteEventsStatement(rows: readonly { artifact_id: string; org_id: string; timestamp: number }[]): string {
  if (rows.length === 0) throw new Error('deleteEventsStatement needs at least one row');
  const { condition, params } = keysCondition(rows);
  const inlined = inlineQueryParams(`DELETE FROM events WHERE ${condition} SETTINGS lightweight_delete_mode = 'lightweight_update'`, params);
  if (inlined === null) throw new Error('the delete statement did not take its values as literals');
  return inlined;
}

/** Statements that carry their rows' values: larger than the engine's default limit on a statement's text. */
export const LARGE_STATEMENT_SETTINGS: ClickHouseSettings = { max_query_size: String(1 << 30) };

/**
 * Folds the patch parts of these events partitions (toYYYYMMDD of
 * created_at) into their parts, in the background. Until then a read
 * applies the patches itself, and a part with a pending patch is read
 * without the skip indexes of the patched columns (the text index of field
 * pairs among them), so searches over it are slower; merges fold patches
 * too, but a large part may wait long for one.
 */
export async function foldEventPatches(store: Store, partitions: readonly string[]): Promise<void> {
  for (const partition of partitions) {
    if (!/^\d{8}$/.test(partition)) throw new Error(`not an events partition: ${partition}`);
    await store.command({ query: `ALTER TABLE events APPLY PATCHES IN PARTITION ID '${partition}'` });
  }
}

/** The parsed event of one artifact (its fields as the parser made them); null when it has none (not parsed yet, or no parser knew it). */
export async function eventOfArtifact(store: Store, orgId: string, artifactId: string): Promise<StoredEvent | null> {
  const params = new SqlParams();
  const [row] = (await queryRows(
    store,
    `SELECT artifact_id, org_id, source, timestamp, event_time, parser, fields, created_at FROM events
     WHERE org_id = ${params.add(orgId, 'String')} AND artifact_id = ${params.add(artifactId, 'UUID')} LIMIT 1`,
    params,
  )) as StoredEvent[];
  return row ? { ...row, timestamp: toIsoTimestamp(row.timestamp), event_time: row.event_time ? toIsoTimestamp(row.event_time) : null, created_at: toIsoTimestamp(row.created_at) } : null;
}

/**
 * Some parsed fields of a page of artifacts (a search's chosen columns), by
 * artifact id: only the fields named, each a list of values. The page's
 * times bound the read to the part of the key that holds them.
 */
export async function fieldsOfArtifacts(store: Store, orgId: string, artifacts: ReadonlyArray<{ id: string; timestamp: string }>, names: string[]): Promise<Map<string, Record<string, string[]>>> {
  if (artifacts.length === 0 || names.length === 0) return new Map();
  const times = artifacts.map((a) => a.timestamp).sort();
  const params = new SqlParams();
  const rows = (await queryRows(
    store,
    `SELECT toString(artifact_id) AS id, mapFilter((k, v) -> has(${params.add(names, 'Array(String)')}, k), fields) AS chosen FROM events
     WHERE org_id = ${params.add(orgId, 'String')}
       AND timestamp >= ${params.add(toClickHouseTime(times[0]!), "DateTime64(3, 'UTC')")} AND timestamp <= ${params.add(toClickHouseTime(times.at(-1)!), "DateTime64(3, 'UTC')")}
       AND artifact_id IN ${params.add(artifacts.map((a) => a.id), 'Array(UUID)')}`,
    params,
  )) as { id: string; chosen: Record<string, string[]> }[];
  return new Map(rows.map((r) => [r.id, r.chosen]));
}
