// Re-parsing jobs (docs/reprocess.md): stored artifacts
// of a range read again through today's parsers, decoders and enricher by
// the reprocess stage (pipeline/reprocess). The API records the job and puts
// its first task on the bus; the stage does the rest.
import { z } from 'zod';
import { errorMessage, isTransientError } from '../../lib/errors.js';
import { newId } from '../../lib/ids.js';
import {
  activeReprocessJob,
  countArtifactsInRange,
  getReprocessJob,
  isFinished,
  jobProgress,
  listReprocessJobs,
  NO_COUNTS,
  REPROCESS_STATUSES,
  saveReprocessJob,
  type JobProgress,
  type ReprocessJob,
} from '../../clickhouse/tables/reprocess.js';
import { publish } from '../../pipeline/bus/consume.js';
import { reprocessTasks, type ReprocessTask } from '../../topics/index.js';
import type { ApiDeps } from '../deps.js';
import { HttpError, notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';

const CreateBody = z
  .strictObject({
    start: Timestamp.describe('the artifacts\' timestamps from (inclusive)'),
    end: Timestamp.describe('up to (exclusive)'),
    source: z.string().trim().min(1, 'source must not be empty').max(128, 'source must be at most 128 characters').optional().describe('only artifacts of this source'),
  })
  .refine((b) => Date.parse(b.start) < Date.parse(b.end), { message: 'start must be before end', path: ['start'] });

const Counts = z.object({
  unchanged: z.number().int().describe('artifacts whose event a parse today gives as stored'),
  changed: z.number().int().describe('artifacts whose stored event was replaced'),
  added: z.number().int().describe('artifacts that had no event and have one now'),
  removed: z.number().int().describe('artifacts that had an event and no longer parse: the event was removed'),
  unparsed: z.number().int().describe('artifacts that do not parse today (removed among them)'),
  unsettled: z.number().int().describe('artifacts without an event that arrived less than 5 minutes before the job: left to the pipeline'),
});

const JobSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  status: z.enum(REPROCESS_STATUSES),
  start: Timestamp,
  end: Timestamp,
  source: z.string().nullable(),
  created_by: z.string(),
  created_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  error: z.string(),
  progress: z.object({
    artifacts_total: z.number().int().describe('artifacts in the range when the job was created'),
    artifacts_done: z.number().int().describe('artifacts of the slices done so far'),
    slices_planned: z.number().int(),
    planned: z.boolean().describe('every slice is planned: slices_planned is their number'),
    slices_done: z.number().int(),
    slices_failed: z.number().int(),
  }),
  counts: Counts,
});
type JobView = z.infer<typeof JobSchema>;

function view(job: ReprocessJob, progress: JobProgress | undefined): JobView {
  const { artifacts, ...counts } = progress?.counts ?? NO_COUNTS;
  return {
    id: job.id,
    org_id: job.org_id,
    status: job.status,
    start: job.start,
    end: job.end,
    source: job.source,
    created_by: job.created_by,
    created_at: job.created_at,
    started_at: job.started_at,
    finished_at: job.finished_at,
    error: job.error,
    progress: {
      artifacts_total: job.artifacts_total,
      artifacts_done: artifacts,
      slices_planned: job.slices_planned,
      planned: job.planned,
      slices_done: progress?.done ?? 0,
      slices_failed: progress?.failed ?? 0,
    },
    counts,
  };
}

async function jobView(deps: ApiDeps, orgId: string, id: string): Promise<JobView> {
  const job = await getReprocessJob(deps.store, orgId, id);
  if (!job) throw notFound(`re-parsing job ${id}`);
  return view(job, (await jobProgress(deps.store, orgId, [id])).get(id));
}

/** Puts a task on the bus; the bus refusing after its own retries is a 503 to try again. */
async function sendTask(deps: ApiDeps, task: ReprocessTask): Promise<void> {
  try {
    await publish(deps.bus, reprocessTasks, [task]);
  } catch (err) {
    if (!isTransientError(err)) throw err;
    deps.logger.warn({ err: errorMessage(err) }, 'the bus did not take a re-parsing task');
    throw new HttpError(503, 'unavailable', 'the message bus did not take the job; try again', null, { 'Retry-After': '5' });
  }
}

export const reprocessRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/reprocess',
    summary: "Re-parse the stored artifacts of a range through today's parsers, decoders and enricher, as a job",
    description:
      'Every artifact with a timestamp in [start, end) (of one source, if given) is parsed again. An event a parse gives ' +
      'differently replaces the stored one in place, so searches never count both; nodes and edges gain what the new events ' +
      'name. Lead rules do not see re-parsed events (a rule backfill runs rules over history). The organization\'s own decoders apply, ' +
      'as in live parsing. Answers 202 with the job; GET /v1/reprocess/{id} follows its progress. ' +
      'One job per organization runs at a time (409 while one is unfinished).',
    tag: 'Parsing',
    permission: 'signals:manage',
    body: CreateBody,
    response: JobSchema,
    successStatus: 202,
    errors: [409, 503],
    async handler({ body, auth, deps }) {
      const active = await activeReprocessJob(deps.store, auth.orgId);
      if (active) throw new HttpError(409, 'conflict', `re-parsing job ${active.id} is ${active.status}; wait for it or cancel it first`, { job_id: active.id });
      const now = new Date().toISOString();
      const range = { orgId: auth.orgId, source: body.source ?? null, start: new Date(body.start).toISOString(), end: new Date(body.end).toISOString() };
      const job: ReprocessJob = {
        id: newId(),
        org_id: auth.orgId,
        status: 'queued',
        start: range.start,
        end: range.end,
        source: range.source,
        created_by: auth.email ?? auth.subject,
        created_at: now,
        started_at: null,
        finished_at: null,
        artifacts_total: await countArtifactsInRange(deps.store, range),
        slices_planned: 0,
        planned: false,
        plan_cursor: null,
        partition_slices: {},
        error: '',
        updated_at: now,
      };
      await saveReprocessJob(deps.store, job);
      try {
        await sendTask(deps, { kind: 'plan', org_id: job.org_id, job_id: job.id });
      } catch (err) {
        await saveReprocessJob(deps.store, { ...job, status: 'failed', error: 'the message bus did not take the job', finished_at: new Date().toISOString() });
        throw err;
      }
      const queued = view(job, undefined);
      return { message: `re-parsing job ${job.id} queued: ${job.artifacts_total} artifact(s) in range`, data: queued, audit: { targetId: job.id, after: queued } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/reprocess',
    summary: 'List re-parsing jobs, newest first, with their progress',
    tag: 'Parsing',
    permission: 'signals:read',
    query: Pagination,
    response: listData('jobs', JobSchema),
    async handler({ query, auth, deps }) {
      const { jobs, total } = await listReprocessJobs(deps.store, auth.orgId, query);
      const progress = await jobProgress(deps.store, auth.orgId, jobs.map((j) => j.id));
      return { message: `${total} re-parsing job(s)`, data: { jobs: jobs.map((j) => view(j, progress.get(j.id))), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/reprocess/:id',
    summary: 'A re-parsing job: its status, progress and what it found so far',
    description:
      'progress counts the artifacts and slices done (a slice is CAIRN_REPROCESS_SLICE artifacts of the range, a day of arrival at a time); ' +
      'counts say, by artifact, what the slices done so far found: unchanged, changed (replaced in place), added, removed, unparsed, ' +
      'unsettled (left to the pipeline). A job resumes after a crash of the process running it. 404 for a job of another organization.',
    tag: 'Parsing',
    permission: 'signals:read',
    params: IdParams,
    response: JobSchema,
    errors: [404],
    async handler({ params, auth, deps }) {
      const job = await jobView(deps, auth.orgId, params.id);
      return { message: `re-parsing job ${job.id} is ${job.status}`, data: job };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/reprocess/:id/cancel',
    summary: 'Cancel a re-parsing job: slices not yet started are skipped; what is re-parsed stays',
    description: 'The patches the slices done so far wrote are folded and the job ends cancelled. 409 when it has already finished.',
    tag: 'Parsing',
    permission: 'signals:manage',
    params: IdParams,
    response: JobSchema,
    errors: [404, 409, 503],
    async handler({ params, auth, deps }) {
      const job = await getReprocessJob(deps.store, auth.orgId, params.id);
      if (!job) throw notFound(`re-parsing job ${params.id}`);
      if (isFinished(job.status)) throw new HttpError(409, 'conflict', `re-parsing job ${job.id} is already ${job.status}`);
      await saveReprocessJob(deps.store, { ...job, status: 'cancelled', updated_at: new Date().toISOString() });
      // The finish task folds the patches the slices done so far wrote and records when the job ended.
      await sendTask(deps, { kind: 'finish', org_id: job.org_id, job_id: job.id });
      const cancelled = await jobView(deps, auth.orgId, job.id);
      return { message: `re-parsing job ${job.id} cancelled`, data: cancelled, audit: { before: job, after: cancelled } };
    },
  }),
];
