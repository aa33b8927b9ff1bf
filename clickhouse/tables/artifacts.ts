// The artifacts table: inserts by the store stage, search by the API.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, SqlParams, whereClause } from '../sql.js';
import { eventScope } from './events.js';

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

export async function insertArtifacts(store: Store, artifacts: Artifact[]): Promise<void> {
  if (artifacts.length === 0) return;
  await store.insert({
    table: 'artifacts',
    format: 'JSONEachRow',
    values: artifacts.map((a) => ({
      ...a,
      metadata: JSON.stringify(a.metadata),
      timestamp: toClickHouseTime(a.timestamp),
      created_at: toClickHouseTime(a.created_at),
    })),
  });
}

/** Which of these artifacts are stored already (replays after a crash between insert and commit). */
export async function storedArtifactIds(store: Store, artifacts: Pick<Artifact, 'id' | 'org_id' | 'timestamp'>[]): Promise<Set<string>> {
  if (artifacts.length === 0) return new Set();
  let from = artifacts[0]!.timestamp;
  let to = from;
  for (const a of artifacts) {
    if (a.timestamp < from) from = a.timestamp;
    if (a.timestamp > to) to = a.timestamp;
  }
  const result = await store.query({
    query: `SELECT id FROM artifacts
            WHERE org_id IN {orgs:Array(String)} AND timestamp BETWEEN {from:DateTime64(3)} AND {to:DateTime64(3)}
              AND id IN {ids:Array(UUID)}`,
    query_params: { orgs: [...new Set(artifacts.map((a) => a.org_id))], from: toClickHouseTime(from), to: toClickHouseTime(to), ids: artifacts.map((a) => a.id) },
    format: 'JSONEachRow',
  });
  return new Set((await result.json<{ id: string }>()).map((r) => r.id));
}

export interface ArtifactSearch {
  orgId: string;
  source?: string;
  start?: string;
  end?: string;
  /** Further conditions over the columns (e.g. compiled from a query), with their parameters in `params`. */
  conditions: string[];
  params: SqlParams;
  limit: number;
  offset: number;
  /** Count matches only up to this many (a large total costs a scan of everything it counts). */
  countLimit?: number;
}

export interface ArtifactPage {
  artifacts: Artifact[];
  total: number;
  /** false when more than countLimit matched: `total` is then a lower bound. */
  totalExact: boolean;
}

/** Newest first; `start` inclusive, `end` exclusive. */
export async function searchArtifacts(store: Store, search: ArtifactSearch): Promise<ArtifactPage> {
  const { params } = search;
  const conditions = [...eventScope(search, params), ...search.conditions];
  const { rows, total, totalExact } = await queryPage(store, {
    query: `SELECT ${COLUMNS} FROM artifacts ${whereClause(conditions)}`,
    params,
    orderBy: 'timestamp DESC, id DESC',
    page: search,
    countLimit: search.countLimit,
  });
  return { artifacts: rows.map(fromRow), total, totalExact };
}

/**
 * The same search answered from the events table: `conditions` are on events
 * rows (query/to-sql.ts answerableFromEvents; their text terms a subquery on
 * the artifacts), so the count and the page are found there, and only the
 * page's artifacts are read, by their place in the
 * primary key. Newest first; `start` inclusive, `end` exclusive.
 */
export async function searchArtifactsByEvents(store: Store, search: ArtifactSearch): Promise<ArtifactPage> {
  const { params } = search;
  const conditions = [...eventScope(search, params), ...search.conditions];
  const { rows, total, totalExact } = await queryPage(store, {
    query: `SELECT toString(artifact_id) AS id, timestamp FROM events ${whereClause(conditions)}`,
    params,
    orderBy: 'timestamp DESC, artifact_id DESC',
    page: search,
    countLimit: search.countLimit,
    scanWhenFew: true,
  });
  const page = rows as ArtifactKey[];
  return { artifacts: await artifactsByKey(store, search.orgId, page), total, totalExact };
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
