// The artifacts table: inserts by the store stage, search by the API.
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { queryRows, SqlParams, whereClause } from '../sql.js';
import { encodedRows, insertEncoded, type EncodedRows } from '../encoded-rows.js';
import { isoToMs } from '../../lib/iso-time.js';
import { RowBinaryWriter, type RowColumns } from '../row-binary.js';
import { eventFieldValues, eventScope, eventsOfArtifacts, type EventScope } from './events.js';

export interface Artifact {
  id: string;
  org_id: string;
  source: string;
  raw: string;
  /** ISO 8601 UTC */
  timestamp: string;
  metadata: Record<string, unknown>;
  created_at: string;
}

const ArtifactRow = z.object({
  id: z.string(),
  org_id: z.string(),
  source: z.string(),
  raw: z.string(),
  timestamp: z.string(),
  metadata: z.string(),
  created_at: z.string(),
});

const COLUMNS = 'id, org_id, source, raw, timestamp, metadata, created_at';

function fromRow(row: unknown): Artifact {
  const r = ArtifactRow.parse(row);
  return {
    ...r,
    metadata: JSON.parse(r.metadata || '{}') as Record<string, unknown>,
    timestamp: toIsoTimestamp(r.timestamp),
    created_at: toIsoTimestamp(r.created_at),
  };
}

/** The columns an artifacts row is written with. */
const ARTIFACT_COLUMNS: RowColumns = [
  ['id', 'UUID'],
  ['org_id', 'LowCardinality(String)'],
  ['source', 'LowCardinality(String)'],
  ['raw', 'String'],
  ['timestamp', "DateTime64(3, 'UTC')"],
  ['metadata', 'String'],
  ['created_at', "DateTime64(3, 'UTC')"],
];

export function encodeArtifacts(artifacts: Artifact[]): EncodedRows {
  const writer = new RowBinaryWriter();
  for (const a of artifacts) {
    writer.row().uuid(a.id).string(a.org_id).string(a.source).string(a.raw).dateTime64(isoToMs(a.timestamp));
    writer.string(JSON.stringify(a.metadata)).dateTime64(isoToMs(a.created_at));
  }
  return encodedRows('artifacts', ARTIFACT_COLUMNS, writer);
}

export async function insertArtifacts(store: Store, artifacts: Artifact[]): Promise<void> {
  await insertEncoded(store, encodeArtifacts(artifacts));
}

export interface ArtifactSearch {
  scope: EventScope;
  /** The table the conditions test: `events` when every match needs a parsed event (query/to-sql.ts answerableFromEvents). */
  on: 'artifacts' | 'events';
  /**
   * The search's conditions on rows of that table within a scope, values in
   * `params`. Called again with a narrower scope (see newestPage), so that
   * subqueries inside the conditions narrow with it.
   */
  conditions(scope: EventScope, params: SqlParams): string[];
  limit: number;
  offset: number;
  /** Count matches only up to this many (a large total costs a scan of everything it counts). */
  countLimit?: number;
}

/** What a search selects, without its paging: enough to count it over time. */
export type SearchSelection = Pick<ArtifactSearch, 'scope' | 'on' | 'conditions'>;

export interface ArtifactPage {
  artifacts: Artifact[];
  total: number;
  /** false when more than countLimit matched: `total` is then a lower bound. */
  totalExact: boolean;
}

/**
 * One page of a search, newest first, and how many match; `start`
 * inclusive, `end` exclusive. A search on events finds its page's keys
 * there and reads only those artifacts, by their place in the primary key.
 */
export async function searchArtifacts(store: Store, search: ArtifactSearch): Promise<ArtifactPage> {
  const { countLimit } = search;
  let rows: unknown[];
  let total: number;
  if (countLimit === undefined) {
    // Counted from an index or the primary key: cheap and exact, so alongside the page.
    [rows, total] = await Promise.all([searchPage(store, search, search.scope), countMatches(store, search)]);
  } else {
    // Counted row by row, so first: how many match decides how the page is best found.
    total = await countMatches(store, search, countLimit + 1);
    if (total === 0) rows = [];
    // Few: a parallel scan and a sort of what matched beats reading newest first through everything.
    else if (total <= countLimit) rows = await searchPage(store, search, search.scope, { optimize_read_in_order: 0 });
    else rows = await newestPage(store, search);
  }
  const artifacts = search.on === 'events' ? await artifactsByKey(store, search.scope.orgId, rows as ArtifactKey[]) : rows.map(fromRow);
  return countLimit !== undefined && total > countLimit ? { artifacts, total: countLimit, totalExact: false } : { artifacts, total, totalExact: true };
}

/** The search's rows within a scope: whole artifacts, or the keys of the events' artifacts. */
function matchingRows(search: SearchSelection, scope: EventScope, params: SqlParams): string {
  const where = whereClause([...eventScope(scope, params), ...search.conditions(scope, params)]);
  return search.on === 'events' ? `SELECT toString(artifact_id) AS id, timestamp FROM events ${where}` : `SELECT ${COLUMNS} FROM artifacts ${where}`;
}

function searchPage(store: Store, search: ArtifactSearch, scope: EventScope, settings?: Record<string, number>): Promise<unknown[]> {
  const params = new SqlParams();
  const id = search.on === 'events' ? 'artifact_id' : 'id';
  const query = `${matchingRows(search, scope, params)} ORDER BY timestamp DESC, ${id} DESC LIMIT ${params.add(search.limit, 'UInt32')} OFFSET ${params.add(search.offset, 'UInt64')}`;
  return queryRows(store, query, params, settings);
}

async function countMatches(store: Store, search: ArtifactSearch, upTo?: number): Promise<number> {
  const params = new SqlParams();
  const limited = upTo === undefined ? '' : ` LIMIT ${params.add(upTo, 'UInt64')}`;
  const [row] = (await queryRows(store, `SELECT count() AS total FROM (${matchingRows(search, search.scope, params)}${limited})`, params)) as { total: string }[];
  return Number(row?.total ?? 0);
}

/**
 * The newest page of a search with many matches (more than its count
 * limit). They are rarely all old, so the page is looked for in the newest
 * slice of the time range first, one expected to hold a few pages if the
 * matches were spread evenly, then in slices eight times wider: a slice
 * reads (and builds the subqueries' sets over) only its own rows, where the
 * whole range costs a pass over everything that matches. Matches newer
 * than a slice's start are all in it, so a full page from a slice is the
 * page the whole range gives.
 */
async function newestPage(store: Store, search: ArtifactSearch): Promise<unknown[]> {
  const range = await timeRange(store, search);
  let fraction = (4 * (search.offset + search.limit)) / search.countLimit!;
  while (range && fraction < 1) {
    const start = new Date(Math.floor(range.end - fraction * (range.end - range.start))).toISOString();
    const rows = await searchPage(store, search, { ...search.scope, start });
    if (rows.length === search.limit) return rows;
    fraction *= 8;
  }
  return searchPage(store, search, search.scope);
}

/** The scope's time range in epoch ms, [start, end), bounded by the oldest and newest rows of its table where it is open; null when it holds none. */
async function timeRange(store: Store, search: SearchSelection): Promise<{ start: number; end: number } | null> {
  const { scope } = search;
  if (scope.start && scope.end) return { start: Date.parse(scope.start), end: Date.parse(scope.end) };
  const params = new SqlParams();
  const where = whereClause(eventScope(scope, params));
  // Each end is one read through the primary key (org_id, timestamp, ...).
  const edge = (order: 'ASC' | 'DESC') => `(SELECT timestamp FROM ${search.on} ${where} ORDER BY timestamp ${order} LIMIT 1)`;
  const [row] = (await queryRows(store, `SELECT toString(${edge('ASC')}) AS oldest, toString(${edge('DESC')}) AS newest`, params)) as { oldest: string; newest: string }[];
  if (!row?.newest) return null;
  return {
    start: scope.start ? Date.parse(scope.start) : Date.parse(toIsoTimestamp(row.oldest)),
    end: scope.end ? Date.parse(scope.end) : Date.parse(toIsoTimestamp(row.newest)) + 1,
  };
}

/** Calendar-free bucket widths a histogram picks from (seconds): the smallest that gives at most the buckets asked for. */
const HISTOGRAM_INTERVALS = [1, 5, 10, 30, 60, 300, 600, 1800, 3600, 3 * 3600, 6 * 3600, 12 * 3600, 86_400, 7 * 86_400, 30 * 86_400, 365 * 86_400];

export interface ArtifactHistogram {
  /** The range counted, [start, end): the scope's, or the oldest and newest match's where the scope leaves it open; null when nothing is stored in it. */
  start: string | null;
  end: string | null;
  intervalSeconds: number;
  /** Buckets that hold matches, oldest first; `start` is the bucket's start (aligned to the interval from the Unix epoch, UTC). */
  buckets: Array<{ start: string; count: number }>;
}

/** How many artifacts a search selects per time bucket: the same rows a search counts, so the buckets add up to its exact total. */
export async function artifactHistogram(store: Store, search: SearchSelection, maxBuckets: number): Promise<ArtifactHistogram> {
  const range = await timeRange(store, search);
  if (!range) return { start: null, end: null, intervalSeconds: HISTOGRAM_INTERVALS[0]!, buckets: [] };
  const spanSeconds = Math.max(1, (range.end - range.start) / 1000);
  const intervalSeconds = HISTOGRAM_INTERVALS.find((s) => spanSeconds / s <= maxBuckets) ?? HISTOGRAM_INTERVALS.at(-1)!;
  const params = new SqlParams();
  const scope = { ...search.scope, start: new Date(range.start).toISOString(), end: new Date(range.end).toISOString() };
  const interval = params.add(intervalSeconds, 'UInt32');
  const rows = (await queryRows(
    store,
    `SELECT toString(toUnixTimestamp(toStartOfInterval(timestamp, toIntervalSecond(${interval})))) AS bucket, count() AS matches FROM (${matchingRows(search, scope, params)}) GROUP BY bucket ORDER BY toUInt64(bucket)`,
    params,
  )) as { bucket: string; matches: string }[];
  return {
    start: scope.start,
    end: scope.end,
    intervalSeconds,
    buckets: rows.map((r) => ({ start: new Date(Number(r.bucket) * 1000).toISOString(), count: Number(r.matches) })),
  };
}

/** The conditions on events rows that their artifact is one a search selects. */
function selectedEvents(search: SearchSelection, params: SqlParams): string[] {
  const conditions = eventScope(search.scope, params);
  const own = search.conditions(search.scope, params);
  if (search.on === 'events') return [...conditions, ...own];
  return own.length ? [...conditions, eventsOfArtifacts(search.scope)(own.join(' AND '), params)] : conditions;
}

/** The parsed fields the artifacts a search selects hold, most common first, with how many hold each. */
export async function fieldsOfSearch(store: Store, search: SearchSelection, limit: number): Promise<Array<{ field: string; count: number }>> {
  const params = new SqlParams();
  const rows = (await queryRows(
    store,
    `SELECT field, count() AS holding FROM events ARRAY JOIN mapKeys(fields) AS field ${whereClause(selectedEvents(search, params))} GROUP BY field ORDER BY holding DESC, field ASC LIMIT ${params.add(limit, 'UInt32')}`,
    params,
  )) as { field: string; holding: string }[];
  return rows.map((r) => ({ field: r.field, count: Number(r.holding) }));
}

/** The commonest values of one parsed field among the artifacts a search selects, with how many artifacts hold each. */
export async function fieldValuesOfSearch(store: Store, search: SearchSelection, field: string, limit: number): Promise<Array<{ value: string; count: number }>> {
  const params = new SqlParams();
  const values = eventFieldValues(field, params);
  const rows = (await queryRows(
    store,
    `SELECT value, count() AS holding FROM events ARRAY JOIN arrayDistinct(${values}) AS value ${whereClause(selectedEvents(search, params))} GROUP BY value ORDER BY holding DESC, value ASC LIMIT ${params.add(limit, 'UInt32')}`,
    params,
  )) as { value: string; holding: string }[];
  return rows.map((r) => ({ value: r.value, count: Number(r.holding) }));
}

/** Where an artifact sits in the primary key: its id and timestamp (as the store writes it). */
export interface ArtifactKey {
  id: string;
  timestamp: string;
}

/** The artifacts at these keys, in the order given, read through the primary key. */
export async function artifactsByKey(store: Store, orgId: string, keys: ArtifactKey[]): Promise<Artifact[]> {
  if (keys.length === 0) return [];
  const result = await store.query({
    query: `SELECT ${COLUMNS} FROM artifacts
            WHERE org_id = {org:String} AND timestamp IN {times:Array(DateTime64(3))} AND id IN {ids:Array(UUID)}`,
    query_params: { org: orgId, times: [...new Set(keys.map((k) => k.timestamp))], ids: keys.map((k) => k.id) },
    format: 'JSONEachRow',
  });
  const byId = new Map((await result.json()).map(fromRow).map((a) => [a.id, a]));
  return keys.flatMap((k) => byId.get(k.id) ?? []);
}
