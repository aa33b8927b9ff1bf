// Backfill jobs of lead rules (pipeline/leads/backfill.ts): each step of a
// job is a new version of its row (queued, running with its progress and
// cursor, succeeded or failed), so a job read after a restart says where to
// resume.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export const BACKFILL_STATUSES = ['queued', 'running', 'succeeded', 'failed'] as const;
export type BackfillStatus = (typeof BACKFILL_STATUSES)[number];
/** manual: asked for (the API, `cairn rules backfill`); enable: a rule imported or enabled with backfill on. */
export const BACKFILL_TRIGGERS = ['manual', 'enable'] as const;
export type BackfillTrigger = (typeof BACKFILL_TRIGGERS)[number];

/** Where a job has got to: the last event (in the order event time, artifact id) whose firings are written. */
export interface BackfillCursor {
  at: number;
  artifactId: string;
}

export interface BackfillJob {
  id: string;
  org_id: string;
  rule_id: string;
  rule_name: string;
  trigger: BackfillTrigger;
  requested_by: string;
  status: BackfillStatus;
  /** The range of event time, [start, end). */
  start: string;
  end: string;
  queued_at: string;
  started_at: string | null;
  finished_at: string | null;
  /** Stored events the rule's pattern selects in the range; null until counted. */
  events_total: number | null;
  /** Of those, how many were evaluated. */
  events_done: number;
  /** Events the rule matched. */
  matched: number;
  /** Firings written as new observations and leads. */
  raised: number;
  /** Firings the rule had already raised (at ingest, or an earlier backfill), left as they were. */
  already_raised: number;
  cursor: BackfillCursor | null;
  error: string;
  updated_at: string;
}

const Count = z.coerce.number();
const Row = z.object({
  id: z.string(),
  org_id: z.string(),
  rule_id: z.string(),
  rule_name: z.string(),
  trigger: z.enum(BACKFILL_TRIGGERS),
  requested_by: z.string(),
  status: z.enum(BACKFILL_STATUSES),
  range_start: z.string(),
  range_end: z.string(),
  queued_at: z.string(),
  started_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  events_total: Count.nullable(),
  events_done: Count,
  matched: Count,
  raised: Count,
  already_raised: Count,
  cursor_time: Count.nullable(),
  cursor_id: z.string(),
  error: z.string(),
  updated_at: z.string(),
});

const COLUMNS =
  'id, org_id, rule_id, rule_name, trigger, requested_by, status, range_start, range_end, queued_at, started_at, finished_at, events_total, events_done, matched, raised, already_raised, cursor_time, cursor_id, error, updated_at';

function fromRow(row: unknown): BackfillJob {
  const { range_start, range_end, cursor_time, cursor_id, ...r } = Row.parse(row);
  return {
    ...r,
    start: toIsoTimestamp(range_start),
    end: toIsoTimestamp(range_end),
    queued_at: toIsoTimestamp(r.queued_at),
    started_at: r.started_at ? toIsoTimestamp(r.started_at) : null,
    finished_at: r.finished_at ? toIsoTimestamp(r.finished_at) : null,
    cursor: cursor_time === null ? null : { at: cursor_time, artifactId: cursor_id },
    updated_at: toIsoTimestamp(r.updated_at),
  };
}

const time = (iso: string | null) => (iso ? toClickHouseTime(iso) : null);

/** Writes the job's current state as its newest version. */
export async function saveBackfillJob(store: Store, job: BackfillJob): Promise<void> {
  const { start, end, cursor, ...rest } = job;
  await store.insert({
    table: 'lead_rule_backfills',
    format: 'JSONEachRow',
    values: [
      {
        ...rest,
        range_start: time(start),
        range_end: time(end),
        queued_at: time(job.queued_at),
        started_at: time(job.started_at),
        finished_at: time(job.finished_at),
        cursor_time: cursor?.at ?? null,
        cursor_id: cursor?.artifactId ?? '',
        updated_at: time(job.updated_at),
        version: nextVersion(),
      },
    ],
  });
}

export async function getBackfillJob(store: Store, orgId: string, ruleId: string, id: string): Promise<BackfillJob | null> {
  const params = new SqlParams();
  const rows = await queryRows(
    store,
    `SELECT ${COLUMNS} FROM lead_rule_backfills FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')} AND rule_id = ${params.add(ruleId, 'UUID')}`,
    params,
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/** A rule's jobs, newest first. */
export async function listBackfillJobs(store: Store, orgId: string, ruleId: string, page: Page): Promise<{ jobs: BackfillJob[]; total: number }> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`, `rule_id = ${params.add(ruleId, 'UUID')}`];
  const { rows, total } = await queryPage(store, { query: `SELECT ${COLUMNS} FROM lead_rule_backfills FINAL ${whereClause(where)}`, params, orderBy: 'queued_at DESC, id DESC', page });
  return { jobs: rows.map(fromRow), total };
}

/** Jobs not finished (queued, or running in a process that may have stopped), of every organization or of one rule; oldest first. */
export async function unfinishedBackfillJobs(store: Store, rule?: { orgId: string; ruleId: string }): Promise<BackfillJob[]> {
  const params = new SqlParams();
  const where = [`status IN ('queued', 'running')`];
  if (rule) where.push(`org_id = ${params.add(rule.orgId, 'String')}`, `rule_id = ${params.add(rule.ruleId, 'UUID')}`);
  const rows = await queryRows(store, `SELECT ${COLUMNS} FROM lead_rule_backfills FINAL ${whereClause(where)} ORDER BY queued_at, id`, params);
  return rows.map(fromRow);
}
