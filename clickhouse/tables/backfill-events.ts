// Stored events for a lead-rule backfill (pipeline/leads/backfill.ts): the
// events of one organization in a range of event time that a condition
// selects, read in pages in the order (event time, artifact id) after a
// cursor, each with its artifact's raw text, so that the rule sees what it
// would have seen at ingest. Event time is the rule stage's (EVENT_TIME), not
// the artifact's timestamp the table is sorted by: a log file ingested today
// holds events of last month.
import { toIsoTimestamp, type Store } from '../client.js';
import { queryRows, SqlParams } from '../sql.js';
import { artifactsByKey } from './artifacts.js';
import { EVENT_TIME, type StoredEvent } from './events.js';

export interface BackfillSelection {
  orgId: string;
  /** Only events of this source. */
  source?: string;
  /** Event time, ms: [from, end). */
  from: number;
  end: number;
  /** A condition on events rows, its values added to the params given. */
  condition: (params: SqlParams) => string;
}

export interface BackfillEvent extends StoredEvent {
  /** Event time, ms (the order read in). */
  at: number;
  raw: string;
}

const AT = `toUnixTimestamp64Milli(${EVENT_TIME})`;

function where(selection: BackfillSelection, params: SqlParams): string {
  const conditions = [`org_id = ${params.add(selection.orgId, 'String')}`];
  if (selection.source) conditions.push(`source = ${params.add(selection.source, 'String')}`);
  conditions.push(`${AT} >= ${params.add(selection.from, 'Int64')}`, `${AT} < ${params.add(selection.end, 'Int64')}`, `(${selection.condition(params)})`);
  return conditions.join(' AND ');
}

/** How many events the selection holds (each artifact once). */
export async function countBackfillEvents(store: Store, selection: BackfillSelection): Promise<number> {
  const params = new SqlParams();
  const rows = (await queryRows(store, `SELECT uniqExact(artifact_id) AS n FROM events WHERE ${where(selection, params)}`, params)) as { n: string | number }[];
  return Number(rows[0]?.n ?? 0);
}

/** The next `limit` events of the selection after `after` (event time, then artifact id), each once, with their raw text. */
export async function backfillEventsAfter(store: Store, selection: BackfillSelection, after: { at: number; artifactId: string } | null, limit: number): Promise<BackfillEvent[]> {
  const params = new SqlParams();
  const conditions = [where(selection, params)];
  // Artifact ids compare as text, here and in the order, as they do in JavaScript (the caller compares cursors).
  if (after) conditions.push(`(${AT}, toString(artifact_id)) > (${params.add(after.at, 'Int64')}, ${params.add(after.artifactId, 'String')})`);
  const rows = (await queryRows(
    store,
    `SELECT toString(artifact_id) AS id, org_id, source, timestamp, event_time, parser, fields, created_at, ${AT} AS at
     FROM events WHERE ${conditions.join(' AND ')}
     ORDER BY at, id LIMIT 1 BY at, id LIMIT ${params.add(limit, 'UInt32')}`,
    params,
  )) as (Omit<StoredEvent, 'artifact_id'> & { id: string; at: string | number })[];
  const artifacts = await artifactsByKey(store, selection.orgId, rows.map((r) => ({ id: r.id, timestamp: r.timestamp })));
  const raw = new Map(artifacts.map((a) => [a.id, a.raw]));
  return rows.map(({ id, ...r }) => ({
    ...r,
    artifact_id: id,
    timestamp: toIsoTimestamp(r.timestamp),
    event_time: r.event_time ? toIsoTimestamp(r.event_time) : null,
    created_at: toIsoTimestamp(r.created_at),
    at: Number(r.at),
    raw: raw.get(id) ?? '',
  }));
}
