// Backfills of lead rules (cairn extension, docs/backfill.md): a rule run
// over the stored events of a range of event time as a job, raising what it
// would have raised at ingest without repeating what it already raised.
import { z } from 'zod';
import { getLeadRule, type LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { BACKFILL_STATUSES, BACKFILL_TRIGGERS, getBackfillJob, listBackfillJobs, type BackfillJob } from '../../clickhouse/tables/lead-rule-backfills.js';
import { BackfillConflict, type BackfillRunner } from '../../pipeline/leads/backfill-jobs.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';

const TAG = 'Lead rules';

const BackfillBody = z
  .object({
    start: Timestamp.describe('first event time evaluated (inclusive)'),
    end: Timestamp.optional().describe('event time the range ends at (exclusive); default: now'),
  })
  .refine((b) => !b.end || Date.parse(b.start) < Date.parse(b.end), { message: 'start must be before end', path: ['start'] });

export const BackfillJobSchema = z.object({
  id: z.uuid(),
  rule_id: z.uuid(),
  rule_name: z.string(),
  trigger: z.enum(BACKFILL_TRIGGERS).describe('manual: asked for; enable: the rule was imported or enabled with backfill on (CAIRN_RULES_BACKFILL_DAYS, backfill_days)'),
  requested_by: z.string(),
  status: z.enum(BACKFILL_STATUSES).describe('queued, running (also while waiting to be resumed after a restart), succeeded or failed'),
  start: Timestamp,
  end: Timestamp,
  queued_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  progress: z.number().min(0).max(1).describe('events_done / events_total (1 once succeeded)'),
  events_total: z.number().int().nullable().describe('stored events in the range the rule\'s pattern selects; null until counted'),
  events_done: z.number().int().describe('of those, how many were evaluated'),
  evaluated_to: Timestamp.nullable().describe('event time of the last event whose firings are written'),
  matched: z.number().int().describe('events the rule matched'),
  raised: z.number().int().describe('firings written as new observations and leads (tag `backfill`, created_by `backfill:<job id>`)'),
  already_raised: z.number().int().describe('firings the rule had already raised (at ingest or in an earlier backfill): left as they were'),
  error: z.string().describe('why the job failed; empty otherwise'),
  updated_at: Timestamp,
});

function present(job: BackfillJob): z.input<typeof BackfillJobSchema> {
  const { cursor, org_id: _org, ...rest } = job;
  const progress = job.status === 'succeeded' ? 1 : job.events_total ? Math.min(1, job.events_done / job.events_total) : 0;
  return { ...rest, progress, evaluated_to: cursor ? new Date(cursor.at).toISOString() : null };
}

async function findRule(deps: ApiDeps, orgId: string, id: string): Promise<LeadRule> {
  const rule = await getLeadRule(deps.store, orgId, id);
  if (!rule) throw notFound('lead rule');
  return rule;
}

/** Queues a backfill; a rule with one unfinished answers 409. */
async function queueBackfill(backfills: BackfillRunner, rule: LeadRule, range: { start: string; end: string }, requestedBy: string): Promise<BackfillJob> {
  try {
    return await backfills.queue(rule, { ...range, trigger: 'manual', requestedBy });
  } catch (err) {
    if (err instanceof BackfillConflict) throw new HttpError(409, 'conflict', err.message, { job_id: err.job.id });
    throw err;
  }
}

export const leadRuleBackfillRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/lead-rules/:id/backfill',
    summary: 'Run a lead rule over stored events (cairn extension): a job raising what the rule would have raised at ingest',
    description:
      'Queues a job that evaluates the rule, as the rule stage does, over the stored events whose event time is in [start, end) (end defaults to now), and answers 202 with it; follow it at GET /v1/lead-rules/{id}/backfill/{job}. Firings are written as observations and leads dated by event time, tagged `backfill`, with `created_by: backfill:<job id>`; one the rule already raised (same (rule, group, window) identity, at ingest or in an earlier backfill) is left as it was, so running it again raises nothing new. A rule with a backfill queued or running answers 409. The job survives a restart of cairn and resumes where it was.',
    tag: TAG,
    permission: 'signals:manage',
    params: IdParams,
    body: BackfillBody,
    response: BackfillJobSchema,
    successStatus: 202,
    errors: [404, 409],
    async handler({ params, body, auth, deps }) {
      const rule = await findRule(deps, auth.orgId, params.id);
      const end = body.end ?? new Date().toISOString();
      if (Date.parse(body.start) >= Date.parse(end)) throw badRequest('invalid body: start must be before end');
      const job = await queueBackfill(deps.backfills, rule, { start: new Date(body.start).toISOString(), end: new Date(end).toISOString() }, auth.email ?? auth.subject);
      return { message: `Backfill of "${rule.name}" queued`, data: present(job), audit: { targetId: rule.id, after: present(job) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/lead-rules/:id/backfill',
    summary: "A lead rule's backfill jobs, newest first (cairn extension)",
    tag: TAG,
    permission: 'signals:read',
    params: IdParams,
    query: Pagination,
    response: listData('jobs', BackfillJobSchema),
    errors: [404],
    async handler({ params, query, auth, deps }) {
      await findRule(deps, auth.orgId, params.id);
      const { jobs, total } = await listBackfillJobs(deps.store, auth.orgId, params.id, query);
      return { message: `${total} backfill job(s)`, data: { jobs: jobs.map(present), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/lead-rules/:id/backfill/:job',
    summary: 'One backfill job of a lead rule, with its progress (cairn extension)',
    tag: TAG,
    permission: 'signals:read',
    params: IdParams.extend({ job: z.uuid({ message: 'job must be a UUID' }) }),
    response: BackfillJobSchema,
    errors: [404],
    async handler({ params, auth, deps }) {
      const job = await getBackfillJob(deps.store, auth.orgId, params.id, params.job);
      if (!job) throw notFound('backfill job');
      const done = job.events_total === null ? '' : `: ${job.events_done} of ${job.events_total} events`;
      return { message: `Backfill ${job.status}${done}`, data: present(job) };
    },
  }),
];
