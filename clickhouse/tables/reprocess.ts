// Re-parsing jobs (POST /v1/reprocess, pipeline/reprocess): the jobs and
// their slices (migration 036), and the reads a slice and the planner make
// over the key range (org_id, timestamp, id) that artifacts and events share.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';
import type { KeyCursor } from '../../topics/index.js';

export const REPROCESS_STATUSES = ['queued', 'planning', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type ReprocessStatus = (typeof REPROCESS_STATUSES)[number];

/** Statuses after which a job does nothing more. */
export function isFinished(status: ReprocessStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled';
}

/** Where a job's planning is: a partition of the artifacts table (day of arrival, YYYYMMDD) and a key in it. */
export interface PlanCursor {
  partition: string;
  key: KeyCursor | null;
}

export interface ReprocessJob {
  id: string;
  org_id: string;
  status: ReprocessStatus;
  /** The artifacts' timestamps, [start, end). */
  start: string;
  end: string;
  /** Only artifacts of this source; null for every source. */
  source: string | null;
  created_by: string;
  created_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Artifacts in the range when the job was created. */
  artifacts_total: number;
  /** Slices sent so far; all of them once `planned`. */
  slices_planned: number;
  planned: boolean;
  /** Where planning resumes: the partition, and the first key of its next slice there (null: at its start); null: at the first partition. */
  plan_cursor: PlanCursor | null;
  /** Partitions planned whole, with their number of slices. */
  partition_slices: Record<string, number>;
  error: string;
  updated_at: string;
}

const Count = z.coerce.number();
const JobRow = z.object({
  id: z.string(),
  org_id: z.string(),
  status: z.enum(REPROCESS_STATUSES),
  range_start: z.string(),
  range_end: z.string(),
  source: z.string(),
  created_by: z.string(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  artifacts_total: Count,
  slices_planned: Count,
  planned: z.union([z.boolean(), z.number()]).transform(Boolean),
  plan_cursor_partition: z.string(),
  plan_cursor_time: z.string().nullable(),
  plan_cursor_id: z.string().nullable(),
  partition_slices: z.record(z.string(), Count),
  error: z.string(),
  updated_at: z.string(),
});

// UUIDs come out of JSONEachRow as text; a toString(id) AS id would shadow the column in WHERE.
const JOB_COLUMNS =
  'id, org_id, status, range_start, range_end, source, created_by, created_at, started_at, finished_at, artifacts_total, slices_planned, planned, plan_cursor_partition, plan_cursor_time, plan_cursor_id, partition_slices, error, updated_at';

const isoOrNull = (value: string | null) => (value ? toIsoTimestamp(value) : null);
const timeOrNull = (iso: string | null) => (iso ? toClickHouseTime(iso) : null);

function jobFromRow(row: unknown): ReprocessJob {
  const r = JobRow.parse(row);
  return {
    id: r.id,
    org_id: r.org_id,
    status: r.status,
    start: toIsoTimestamp(r.range_start),
    end: toIsoTimestamp(r.range_end),
    source: r.source || null,
    created_by: r.created_by,
    created_at: toIsoTimestamp(r.created_at),
    started_at: isoOrNull(r.started_at),
    finished_at: isoOrNull(r.finished_at),
    artifacts_total: r.artifacts_total,
    slices_planned: r.slices_planned,
    planned: r.planned,
    plan_cursor: r.plan_cursor_partition
      ? { partition: r.plan_cursor_partition, key: r.plan_cursor_time && r.plan_cursor_id ? { timestamp: toIsoTimestamp(r.plan_cursor_time), id: r.plan_cursor_id } : null }
      : null,
    partition_slices: r.partition_slices,
    error: r.error,
    updated_at: toIsoTimestamp(r.updated_at),
  };
}

/** Writes the job's current state as its newest version. */
export async function saveReprocessJob(store: Store, job: ReprocessJob): Promise<void> {
  await store.insert({
    table: 'reprocess_jobs',
    format: 'JSONEachRow',
    values: [
      {
        id: job.id,
        org_id: job.org_id,
        status: job.status,
        range_start: toClickHouseTime(job.start),
        range_end: toClickHouseTime(job.end),
        source: job.source ?? '',
        created_by: job.created_by,
        created_at: toClickHouseTime(job.created_at),
        started_at: timeOrNull(job.started_at),
        finished_at: timeOrNull(job.finished_at),
        artifacts_total: job.artifacts_total,
        slices_planned: job.slices_planned,
        planned: job.planned,
        plan_cursor_partition: job.plan_cursor?.partition ?? '',
        plan_cursor_time: timeOrNull(job.plan_cursor?.key?.timestamp ?? null),
        plan_cursor_id: job.plan_cursor?.key?.id ?? null,
        partition_slices: job.partition_slices,
        error: job.error,
        updated_at: toClickHouseTime(job.updated_at),
        version: nextVersion(),
      },
    ],
  });
}

export async function getReprocessJob(store: Store, orgId: string, id: string): Promise<ReprocessJob | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT ${JOB_COLUMNS} FROM reprocess_jobs FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')}`, params);
  return rows[0] ? jobFromRow(rows[0]) : null;
}

/** Newest first. */
export async function listReprocessJobs(store: Store, orgId: string, page: Page): Promise<{ jobs: ReprocessJob[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, {
    query: `SELECT ${JOB_COLUMNS} FROM reprocess_jobs FINAL WHERE org_id = ${params.add(orgId, 'String')}`,
    params,
    orderBy: 'created_at DESC, id DESC',
    page,
  });
  return { jobs: rows.map(jobFromRow), total };
}

/** The organization's job that has not finished, if any (there is at most one: POST /v1/reprocess). */
export async function activeReprocessJob(store: Store, orgId: string): Promise<ReprocessJob | null> {
  const params = new SqlParams();
  const rows = await queryRows(
    store,
    `SELECT ${JOB_COLUMNS} FROM reprocess_jobs FINAL WHERE org_id = ${params.add(orgId, 'String')} AND status NOT IN ('succeeded', 'failed', 'cancelled') ORDER BY created_at DESC LIMIT 1`,
    params,
  );
  return rows[0] ? jobFromRow(rows[0]) : null;
}

export const SLICE_STATUSES = ['applying', 'done', 'failed'] as const;
export type SliceStatus = (typeof SLICE_STATUSES)[number];

/** What re-parsing a slice's artifacts found, by artifact. */
export interface SliceCounts {
  artifacts: number;
  /** The event a parse gives today is the one stored. */
  unchanged: number;
  /** Its stored event was replaced. */
  changed: number;
  /** It had no event and has one now. */
  added: number;
  /** It had an event and no longer parses: the event was removed. */
  removed: number;
  /** It does not parse today (those that had an event are `removed` too). */
  unparsed: number;
  /** It has no event yet and arrived too shortly before the job to be sure the pipeline is done with it: left to the pipeline. */
  unsettled: number;
}

export const NO_COUNTS: SliceCounts = { artifacts: 0, unchanged: 0, changed: 0, added: 0, removed: 0, unparsed: 0, unsettled: 0 };
const COUNT_NAMES = Object.keys(NO_COUNTS) as (keyof SliceCounts)[];

export interface SliceRecord {
  org_id: string;
  job_id: string;
  slice: number;
  /** The artifacts partition it read. */
  partition: string;
  status: SliceStatus;
  counts: SliceCounts;
  /** Events partitions (toYYYYMMDD of created_at) its changes wrote patches to. */
  partitions: string[];
  /** The stage instance that handled it (host/pid/instance): on Kafka, slices spread over the group's members. */
  member: string;
  error: string;
}

export async function saveSlice(store: Store, record: SliceRecord): Promise<void> {
  await store.insert({
    table: 'reprocess_slices',
    format: 'JSONEachRow',
    values: [
      {
        org_id: record.org_id,
        job_id: record.job_id,
        slice: record.slice,
        partition: record.partition,
        status: record.status,
        ...record.counts,
        partitions: record.partitions,
        member: record.member,
        error: record.error,
        updated_at: toClickHouseTime(new Date().toISOString()),
        version: nextVersion(),
      },
    ],
  });
}

const SliceRow = z.object({
  slice: Count,
  partition: z.string(),
  status: z.enum(SLICE_STATUSES),
  partitions: z.array(z.string()),
  member: z.string(),
  error: z.string(),
  ...Object.fromEntries(COUNT_NAMES.map((name) => [name, Count])),
});

export async function getSlice(store: Store, orgId: string, jobId: string, slice: number): Promise<SliceRecord | null> {
  const params = new SqlParams();
  const rows = await queryRows(
    store,
    `SELECT * FROM reprocess_slices FINAL WHERE org_id = ${params.add(orgId, 'String')} AND job_id = ${params.add(jobId, 'UUID')} AND slice = ${params.add(slice, 'UInt32')}`,
    params,
  );
  if (!rows[0]) return null;
  const r = SliceRow.parse(rows[0]) as z.infer<typeof SliceRow> & SliceCounts;
  return { org_id: orgId, job_id: jobId, slice: r.slice, partition: r.partition, status: r.status, counts: Object.fromEntries(COUNT_NAMES.map((name) => [name, r[name]])) as unknown as SliceCounts, partitions: r.partitions, member: r.member, error: r.error };
}

export interface JobProgress {
  /** Slices done, and failed. */
  done: number;
  failed: number;
  counts: SliceCounts;
  partitions: string[];
  /** The first failed slice's reason. */
  error: string;
}

/** How many slices of a job's partition have finished (done or failed), and the events partitions they patched. */
export async function partitionProgress(store: Store, orgId: string, jobId: string, partition: string): Promise<{ finished: number; partitions: string[] }> {
  const params = new SqlParams();
  const [row] = (await queryRows(
    store,
    `SELECT countIf(status != 'applying') AS finished, groupUniqArrayArray(partitions) AS partitions FROM reprocess_slices FINAL
     WHERE org_id = ${params.add(orgId, 'String')} AND job_id = ${params.add(jobId, 'UUID')} AND partition = ${params.add(partition, 'String')}`,
    params,
  )) as { finished: string; partitions: string[] }[];
  return { finished: Number(row?.finished ?? 0), partitions: (row?.partitions ?? []).sort() };
}

/** Each job's slices summed: the finished ones (done or failed) and what they found. */
export async function jobProgress(store: Store, orgId: string, jobIds: string[]): Promise<Map<string, JobProgress>> {
  if (jobIds.length === 0) return new Map();
  const params = new SqlParams();
  const sums = COUNT_NAMES.map((name) => `sumIf(${name}, status != 'applying') AS ${name}`).join(', ');
  const rows = (await queryRows(
    store,
    `SELECT job_id, countIf(status = 'done') AS done, countIf(status = 'failed') AS failed, ${sums},
            groupUniqArrayArray(partitions) AS partitions, anyIf(error, status = 'failed') AS error
     FROM reprocess_slices FINAL
     WHERE org_id = ${params.add(orgId, 'String')} AND job_id IN ${params.add(jobIds, 'Array(UUID)')}
     GROUP BY job_id`,
    params,
  )) as Record<string, unknown>[];
  return new Map(
    rows.map((r) => [
      String(r.job_id),
      {
        done: Number(r.done),
        failed: Number(r.failed),
        counts: Object.fromEntries(COUNT_NAMES.map((name) => [name, Number(r[name])])) as unknown as SliceCounts,
        partitions: (r.partitions as string[]).sort(),
        error: String(r.error ?? ''),
      },
    ]),
  );
}

/** Artifacts of an organization in [start, end), of one source or all; of one partition (day of arrival, YYYYMMDD) or all. */
export interface KeyRange {
  orgId: string;
  source: string | null;
  start: string;
  end: string;
  partition?: string;
}

/** The UTC day a partition id (toYYYYMMDD of created_at) names, as [start, end) in ISO 8601. */
export function partitionDay(partition: string): { start: string; end: string } {
  const match = /^(\d{4})(\d{2})(\d{2})$/.exec(partition);
  if (!match) throw new Error(`not a partition: ${partition}`);
  const start = Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]));
  return { start: new Date(start).toISOString(), end: new Date(start + 86_400_000).toISOString() };
}

/** Rows of `range` with keys in [from, to) (null: no bound beyond the range's), on a table keyed (org_id, timestamp, <id>) and partitioned by the day of created_at. */
function keyRangeConditions(range: KeyRange, from: KeyCursor | null, to: KeyCursor | null, idColumn: 'id' | 'artifact_id', params: SqlParams): string[] {
  const conditions = [
    `org_id = ${params.add(range.orgId, 'String')}`,
    `timestamp >= ${params.add(toClickHouseTime(range.start), 'DateTime64(3)')}`,
    `timestamp < ${params.add(toClickHouseTime(range.end), 'DateTime64(3)')}`,
  ];
  if (range.source) conditions.push(`source = ${params.add(range.source, 'String')}`);
  if (range.partition) {
    // Bounds on created_at, which the table is partitioned by: only that partition's parts are read.
    const day = partitionDay(range.partition);
    conditions.push(`created_at >= ${params.add(toClickHouseTime(day.start), 'DateTime64(3)')}`, `created_at < ${params.add(toClickHouseTime(day.end), 'DateTime64(3)')}`);
  }
  // The plain time bound beside each tuple bound is what the primary key prunes by.
  if (from) {
    const time = params.add(toClickHouseTime(from.timestamp), 'DateTime64(3)');
    conditions.push(`timestamp >= ${time}`, `(timestamp, ${idColumn}) >= (${time}, ${params.add(from.id, 'UUID')})`);
  }
  if (to) {
    const time = params.add(toClickHouseTime(to.timestamp), 'DateTime64(3)');
    conditions.push(`timestamp <= ${time}`, `(timestamp, ${idColumn}) < (${time}, ${params.add(to.id, 'UUID')})`);
  }
  return conditions;
}

/** How many artifacts the range holds. */
export async function countArtifactsInRange(store: Store, range: KeyRange): Promise<number> {
  const params = new SqlParams();
  const [row] = (await queryRows(store, `SELECT count() AS n FROM artifacts ${whereClause(keyRangeConditions(range, null, null, 'id', params))}`, params)) as { n: string }[];
  return Number(row?.n ?? 0);
}

/** The partitions (days of arrival) holding artifacts of the range, oldest first. */
export async function artifactPartitions(store: Store, range: KeyRange): Promise<string[]> {
  const params = new SqlParams();
  const rows = (await queryRows(
    store,
    `SELECT toString(toYYYYMMDD(created_at)) AS day FROM artifacts ${whereClause(keyRangeConditions(range, null, null, 'id', params))} GROUP BY day ORDER BY day`,
    params,
  )) as { day: string }[];
  return rows.map((r) => r.day);
}

/** The key `size` artifacts after `from` in the range (the first key of the next slice), or null when fewer are left. */
export async function keyAfter(store: Store, range: KeyRange, from: KeyCursor | null, size: number): Promise<KeyCursor | null> {
  const params = new SqlParams();
  const rows = (await queryRows(
    store,
    `SELECT timestamp, id FROM artifacts ${whereClause(keyRangeConditions(range, from, null, 'id', params))}
     ORDER BY timestamp, id LIMIT 1 OFFSET ${params.add(size, 'UInt64')}`,
    params,
  )) as { timestamp: string; id: string }[];
  return rows[0] ? { timestamp: toIsoTimestamp(rows[0].timestamp), id: rows[0].id } : null;
}

/**
 * A slice's artifacts as JSONEachRow text (id, org_id, source, raw, and the
 * timestamp `t` and arrival `c` in epoch ms): the text goes to a worker
 * thread as it is, which reads it (pipeline/reprocess/reparse.ts).
 */
export async function sliceArtifactsText(store: Store, range: KeyRange, from: KeyCursor | null, to: KeyCursor | null): Promise<string> {
  const params = new SqlParams();
  const result = await store.query({
    query: `SELECT id, org_id, source, raw, toUnixTimestamp64Milli(timestamp) AS t, toUnixTimestamp64Milli(created_at) AS c
            FROM artifacts ${whereClause(keyRangeConditions(range, from, to, 'id', params))}`,
    query_params: params.values,
    format: 'JSONEachRow',
  });
  return result.text();
}

/**
 * The stored events of the slice's artifacts (whatever partition they are
 * in) as JSONEachRow text (artifact id, parser, event time `e` in epoch ms
 * or null, fields, and the partition `p` the row is in). An event shares
 * its artifact's key, so the slice's own span of timestamps bounds the read:
 * the slice's key bounds alone would not, as the first slice of a partition
 * starts at the range's start and would read every earlier day's events.
 */
export async function sliceEventsText(store: Store, range: KeyRange, from: KeyCursor | null, to: KeyCursor | null): Promise<string> {
  const params = new SqlParams();
  const artifacts = whereClause(keyRangeConditions(range, from, to, 'id', params));
  const events = keyRangeConditions({ ...range, partition: undefined }, from, to, 'artifact_id', params);
  const result = await store.query({
    query: `WITH slice AS (SELECT timestamp, id FROM artifacts ${artifacts})
            SELECT artifact_id AS id, parser, toUnixTimestamp64Milli(event_time) AS e, fields, toString(toYYYYMMDD(created_at)) AS p
            FROM events ${whereClause([...events, 'timestamp >= (SELECT min(timestamp) FROM slice)', 'timestamp <= (SELECT max(timestamp) FROM slice)', 'artifact_id IN (SELECT id FROM slice)'])}`,
    query_params: params.values,
    format: 'JSONEachRow',
  });
  return result.text();
}
