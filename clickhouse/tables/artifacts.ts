// The artifacts table: inserts by the store stage, search by the API.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, SqlParams, whereClause } from '../sql.js';

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
}

/** Newest first; `start` inclusive, `end` exclusive. */
export async function searchArtifacts(store: Store, search: ArtifactSearch): Promise<{ artifacts: Artifact[]; total: number }> {
  const { params } = search;
  const conditions = [`org_id = ${params.add(search.orgId, 'String')}`];
  if (search.source) conditions.push(`source = ${params.add(search.source, 'String')}`);
  if (search.start) conditions.push(`timestamp >= ${params.add(toClickHouseTime(search.start), 'DateTime64(3)')}`);
  if (search.end) conditions.push(`timestamp < ${params.add(toClickHouseTime(search.end), 'DateTime64(3)')}`);
  conditions.push(...search.conditions);
  const { rows, total } = await queryPage(store, {
    query: `SELECT ${COLUMNS} FROM artifacts ${whereClause(conditions)}`,
    params,
    orderBy: 'timestamp DESC, id DESC',
    page: search,
  });
  return { artifacts: rows.map(fromRow), total };
}
