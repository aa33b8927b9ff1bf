// Sync jobs of threat feed subscriptions: each step of a job is a new
// version of its row (queued, running with its counts so far, succeeded or
// failed); the cursor the next run resumes from travels with them.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export const JOB_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
export const JOB_TRIGGERS = ['schedule', 'manual'] as const;

export interface JobCounts {
  fetched: number;
  added: number;
  updated: number;
  expired: number;
  removed: number;
  rejected: number;
  retro_sightings: number;
}

export interface SyncJob extends JobCounts {
  id: string;
  org_id: string;
  subscription_id: string;
  subscription_name: string;
  trigger: (typeof JOB_TRIGGERS)[number];
  status: JobStatus;
  queued_at: string;
  started_at: string | null;
  finished_at: string | null;
  error: string;
  /** Where the subscription's next run resumes (empty: from the beginning). */
  cursor: string;
  updated_at: string;
}

const Count = z.coerce.number();
const Row = z.object({
  id: z.string(),
  org_id: z.string(),
  subscription_id: z.string(),
  subscription_name: z.string(),
  trigger: z.enum(JOB_TRIGGERS),
  status: z.enum(JOB_STATUSES),
  queued_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  fetched: Count,
  added: Count,
  updated: Count,
  expired: Count,
  removed: Count,
  rejected: Count,
  retro_sightings: Count,
  error: z.string(),
  cursor: z.string(),
  updated_at: z.string(),
});

const COLUMNS = 'id, org_id, subscription_id, subscription_name, trigger, status, queued_at, started_at, finished_at, fetched, added, updated, expired, removed, rejected, retro_sightings, error, cursor, updated_at';

function fromRow(row: unknown): SyncJob {
  const r = Row.parse(row);
  return {
    ...r,
    queued_at: toIsoTimestamp(r.queued_at),
    started_at: r.started_at ? toIsoTimestamp(r.started_at) : null,
    finished_at: r.finished_at ? toIsoTimestamp(r.finished_at) : null,
    updated_at: toIsoTimestamp(r.updated_at),
  };
}

const time = (iso: string | null) => (iso ? toClickHouseTime(iso) : null);

/** Writes the job's current state as its newest version. */
export async function saveJob(store: Store, job: SyncJob): Promise<void> {
  await saveJobs(store, [job]);
}

/** Writes each job's current state as its newest version, in one insert. */
export async function saveJobs(store: Store, jobs: SyncJob[]): Promise<void> {
  if (jobs.length === 0) return;
  await store.insert({
    table: 'threatfeed_jobs',
    format: 'JSONEachRow',
    values: jobs.map((job) => ({ ...job, queued_at: time(job.queued_at), started_at: time(job.started_at), finished_at: time(job.finished_at), updated_at: time(job.updated_at), version: nextVersion() })),
  });
}

export interface JobFilter extends Page {
  subscriptionId?: string;
  status?: JobStatus;
}

/** Newest first. */
export async function listJobs(store: Store, orgId: string, filter: JobFilter): Promise<{ jobs: SyncJob[]; total: number }> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.subscriptionId) where.push(`subscription_id = ${params.add(filter.subscriptionId, 'UUID')}`);
  if (filter.status) where.push(`status = ${params.add(filter.status, 'String')}`);
  const { rows, total } = await queryPage(store, { query: `SELECT ${COLUMNS} FROM threatfeed_jobs FINAL ${whereClause(where)}`, params, orderBy: 'queued_at DESC, id DESC', page: filter });
  return { jobs: rows.map(fromRow), total };
}

/** Each subscription's most recent job (by queue time), by subscription id (a UUID, unique across organizations): one query for the schedule. */
export async function latestJobs(store: Store): Promise<Map<string, SyncJob>> {
  const rows = await queryRows(store, `SELECT ${COLUMNS} FROM threatfeed_jobs FINAL ORDER BY queued_at DESC, id DESC LIMIT 1 BY org_id, subscription_id`, new SqlParams());
  return new Map(rows.map(fromRow).map((job) => [job.subscription_id, job]));
}

/** Where the subscription's next run resumes: the cursor of its latest job that stored one. */
export async function resumeCursor(store: Store, orgId: string, subscriptionId: string): Promise<{ cursor: string; since: string | null }> {
  const params = new SqlParams();
  const rows = await queryRows(
    store,
    `SELECT cursor, started_at FROM threatfeed_jobs FINAL WHERE org_id = ${params.add(orgId, 'String')} AND subscription_id = ${params.add(subscriptionId, 'UUID')} AND cursor != '' ORDER BY queued_at DESC, id DESC LIMIT 1`,
    params,
  );
  const row = rows[0] as { cursor: string; started_at: string | null } | undefined;
  return { cursor: row?.cursor ?? '', since: row?.started_at ? toIsoTimestamp(row.started_at) : null };
}
