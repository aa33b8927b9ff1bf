// Reprocess stage: re-parsing jobs (POST /v1/reprocess) as tasks on
// reprocess.tasks, shared by the members of its consumer group, so that on
// Kafka every `cairn worker reprocess` (and `cairn start`) takes a share.
//
// A job goes: `plan` (one task) cuts its range into slices of the artifacts
// table's key (org_id, timestamp, id) of CAIRN_REPROCESS_SLICE artifacts,
// one partition (day of arrival) after another, and sends them a wave at a
// time, noting in the job row how far it got; `slice` tasks re-parse
// (reparse.ts, on worker threads) and write what changed, as patches
// (clickhouse/tables/events.ts replaceEventsStatement); the slice that
// finds its partition done folds the partition's patches, so that searches
// over it use their indexes again while the job goes on; the task that
// finds every slice done sends `finish`, which closes the job.
//
// Resumable: a task is committed only after its writes and its record
// (the job row, the slice row), so a crash or a SIGKILL redelivers it, and
// doing a task again gives the same rows. A slice already done is skipped;
// one that was writing keeps the counts of its first pass.
import os from 'node:os';
import { errorMessage } from '../../lib/errors.js';
import { insertEncoded } from '../../clickhouse/encoded-rows.js';
import { foldEventPatches, LARGE_STATEMENT_SETTINGS } from '../../clickhouse/tables/events.js';
import {
  artifactPartitions,
  getReprocessJob,
  getSlice,
  isFinished,
  jobProgress,
  keyAfter,
  NO_COUNTS,
  partitionProgress,
  saveReprocessJob,
  saveSlice,
  sliceArtifactsText,
  sliceEventsText,
  type KeyRange,
  type PlanCursor,
  type ReprocessJob,
} from '../../clickhouse/tables/reprocess.js';
import { reprocessTasks, type ReprocessTask } from '../../topics/index.js';
import { consume, publish } from '../bus/consume.js';
import type { HandlerContext } from '../bus/consume.js';
import { isTransientStageError, withCleanup, type Stage, type StageContext } from '../stage.js';
import type { StoredDecoder } from '../../clickhouse/tables/user-decoders.js';
import { userDecoderList } from '../parser/consumer.js';
import type { WatchedList } from '../state/watched-list.js';
import { createReparsePool, type ReparsePool } from './pool.js';

/**
 * Artifacts that arrived this long before a job was created and still have
 * no event are given one by the job; later ones may be on their way through
 * the pipeline, which writes their event itself (both would make two rows).
 */
export const SETTLE_MS = 5 * 60_000;

/** Slices the planner sends at a time, noting its cursor after each wave. */
const WAVE = 50;

type Slice = Extract<ReprocessTask, { kind: 'slice' }>;

function rangeOf(job: ReprocessJob): KeyRange {
  return { orgId: job.org_id, source: job.source, start: job.start, end: job.end };
}

/** Stage instances started in this process, for their names. */
let instances = 0;

class Reprocessor {
  /** Who handles the slices: recorded with each, so that how a job spread over the group's members shows. */
  private readonly member = `${os.hostname()}/${process.pid}/${++instances}`;

  constructor(
    private readonly ctx: StageContext,
    private readonly pool: ReparsePool,
    private readonly decoders: WatchedList<StoredDecoder>,
  ) {}

  private get store() {
    return this.ctx.store;
  }

  async handle(task: ReprocessTask, batch: HandlerContext): Promise<void> {
    const job = await getReprocessJob(this.store, task.org_id, task.job_id);
    // A job that left the table (its TTL) has nothing more to do.
    if (!job) return;
    try {
      if (task.kind === 'plan') await this.plan(job, batch);
      else if (task.kind === 'slice') await this.slice(job, task);
      else await this.finish(job);
    } catch (err) {
      if (isTransientStageError(err)) throw err;
      // Anything else would come back on every delivery: the job (or its slice) fails, saying why, and the stage goes on.
      this.ctx.logger.error({ job: job.id, task: task.kind, err }, 're-parsing task failed');
      if (task.kind === 'slice') {
        await saveSlice(this.store, { org_id: job.org_id, job_id: job.id, slice: task.slice, partition: task.partition, status: 'failed', counts: NO_COUNTS, partitions: [], member: this.member, error: errorMessage(err) });
        await this.foldWhenDone(job.org_id, job.id, task.partition);
        await this.finishWhenDone(job.org_id, job.id);
      } else {
        await this.update(job.org_id, job.id, (current) => ({ status: 'failed', error: errorMessage(err), finished_at: current.finished_at ?? new Date().toISOString() }));
      }
    }
  }

  /**
   * Writes changes to the job's newest row, read again first so that a
   * cancellation made meanwhile stands: only `finish` moves a cancelled job,
   * and only to set when it finished.
   */
  private async update(orgId: string, id: string, change: (current: ReprocessJob) => Partial<ReprocessJob>): Promise<ReprocessJob | null> {
    const current = await getReprocessJob(this.store, orgId, id);
    if (!current) return null;
    const changed = { ...current, ...change(current), updated_at: new Date().toISOString() };
    if (current.status === 'cancelled') changed.status = 'cancelled';
    await saveReprocessJob(this.store, changed);
    return changed;
  }

  /**
   * Cuts the range into slices, a partition (day of arrival) after another,
   * oldest first, and sends them a wave at a time. Planning resumes at the
   * cursor noted after the last wave sent; a crash between a wave and its
   * note sends the wave again, its slices keeping their numbers (a slice
   * done is not done twice).
   */
  private async plan(job: ReprocessJob, batch: HandlerContext): Promise<void> {
    if (isFinished(job.status)) return;
    let current: ReprocessJob | null = job;
    if (!job.planned) {
      if (job.status === 'queued') current = await this.update(job.org_id, job.id, () => ({ status: 'planning', started_at: new Date().toISOString() }));
      const size = this.ctx.config.pipeline.reprocessSlice;
      const range = rangeOf(job);
      const partitions = await artifactPartitions(this.store, range);
      const resumeAt = job.plan_cursor ? partitions.findIndex((p) => p >= job.plan_cursor!.partition) : 0;
      // Partitions from the resumed one on; the cursor's key holds where in it.
      const todo = resumeAt < 0 ? [] : partitions.slice(resumeAt);
      let cursor: PlanCursor | null = todo[0] ? { partition: todo[0], key: job.plan_cursor?.partition === todo[0] ? job.plan_cursor.key : null } : null;
      let slice = job.slices_planned;
      const partitionSlices = { ...job.partition_slices };
      // Slices of the cursor's partition sent before a restart.
      let inPartition = slice - Object.values(partitionSlices).reduce((a, b) => a + b, 0);
      while (current && current.status !== 'cancelled') {
        const wave: Slice[] = [];
        const completed: string[] = [];
        while (cursor && wave.length < WAVE) {
          const { partition } = cursor;
          const next = await keyAfter(this.store, { ...range, partition }, cursor.key, size);
          wave.push({ kind: 'slice', org_id: job.org_id, job_id: job.id, slice: slice++, partition, from: cursor.key, to: next });
          inPartition++;
          if (next) cursor = { partition, key: next };
          else {
            partitionSlices[partition] = inPartition;
            completed.push(partition);
            inPartition = 0;
            const following = todo[todo.indexOf(partition) + 1];
            cursor = following ? { partition: following, key: null } : null;
          }
        }
        if (wave.length > 0) await publish(this.ctx.bus, reprocessTasks, wave);
        const done = cursor === null;
        const noted: PlanCursor | null = cursor;
        current = await this.update(job.org_id, job.id, () => ({ slices_planned: slice, plan_cursor: noted, partition_slices: partitionSlices, planned: done, ...(done ? { status: 'running' as const } : {}) }));
        // A partition's slices may all be done before its planning is noted.
        for (const partition of completed) await this.foldWhenDone(job.org_id, job.id, partition);
        await batch.heartbeat();
        if (done) break;
      }
      this.ctx.logger.info({ job: job.id, slices: slice, partitions: Object.keys(partitionSlices).length }, 're-parsing job planned');
    }
    // Slices may all be done before planning ends.
    await this.finishWhenDone(job.org_id, job.id);
  }

  private async slice(job: ReprocessJob, task: Slice): Promise<void> {
    if (job.status === 'cancelled' || isFinished(job.status)) return;
    const before = await getSlice(this.store, job.org_id, job.id, task.slice);
    if (before?.status === 'done' || before?.status === 'failed') return this.finishWhenDone(job.org_id, job.id);
    const range = { ...rangeOf(job), partition: task.partition };
    const [artifacts, events] = await Promise.all([
      sliceArtifactsText(this.store, range, task.from, task.to),
      sliceEventsText(this.store, range, task.from, task.to),
      // The organization's decoders as they are now, as the live pipeline parses with them.
      this.decoders.ensureCurrent(),
    ]);
    const result = await this.pool.run({ artifacts, events, timezone: this.ctx.config.logTimezone, decoders: this.decoders.snapshot(), settledBefore: Date.parse(job.created_at) - SETTLE_MS });
    // After a crash mid-write, part of the slice is written: what this pass finds changed is less than what the
    // first pass found, whose counts the slice keeps.
    const counts = before?.counts ?? result.counts;
    const partitions = [...new Set([...(before?.partitions ?? []), ...result.partitions])].sort();
    const record = { org_id: job.org_id, job_id: job.id, slice: task.slice, partition: task.partition, counts, partitions, member: this.member, error: '' };
    const changes = result.replace !== null || result.remove !== null || result.counts.added > 0;
    if (!before && changes) await saveSlice(this.store, { ...record, status: 'applying' });
    await Promise.all([
      result.replace && this.store.command({ query: result.replace, clickhouse_settings: LARGE_STATEMENT_SETTINGS }),
      result.remove && this.store.command({ query: result.remove, clickhouse_settings: LARGE_STATEMENT_SETTINGS }),
      ...result.inserts.map((rows) => insertEncoded(this.store, rows)),
    ]);
    await saveSlice(this.store, { ...record, status: 'done' });
    await this.foldWhenDone(job.org_id, job.id, task.partition, partitions);
    await this.finishWhenDone(job.org_id, job.id);
  }

  /**
   * Folds the patches of a partition's slices once they are all done (and
   * the partition is planned whole): searches over it use their indexes
   * again while the job goes on with the next partitions. Each slice writes
   * its record before it looks, so of the last two slices done at once, at
   * least the later folds.
   */
  private async foldWhenDone(orgId: string, id: string, partition: string, patched: string[] = []): Promise<void> {
    const job = await getReprocessJob(this.store, orgId, id);
    // A cancelled job's partitions are never done, and its finish may have run before this slice wrote.
    if (job?.status === 'cancelled') return foldEventPatches(this.store, patched);
    const planned = job?.partition_slices[partition];
    if (planned === undefined) return;
    const { finished, partitions } = await partitionProgress(this.store, orgId, id, partition);
    if (finished >= planned) await foldEventPatches(this.store, partitions);
  }

  /** Sends `finish` once the job is planned and every slice is done (or the job was cancelled: see finish). */
  private async finishWhenDone(orgId: string, id: string): Promise<void> {
    const job = await getReprocessJob(this.store, orgId, id);
    if (!job || isFinished(job.status) || !job.planned) return;
    const progress = (await jobProgress(this.store, orgId, [id])).get(id);
    if ((progress?.done ?? 0) + (progress?.failed ?? 0) < job.slices_planned) return;
    await publish(this.ctx.bus, reprocessTasks, [{ kind: 'finish', org_id: orgId, job_id: id }]);
  }

  private async finish(job: ReprocessJob): Promise<void> {
    if (job.finished_at) return;
    const progress = (await jobProgress(this.store, job.org_id, [job.id])).get(job.id);
    await foldEventPatches(this.store, progress?.partitions ?? []);
    const failed = (progress?.failed ?? 0) > 0;
    const finished = await this.update(job.org_id, job.id, (current) => ({
      status: current.status === 'cancelled' ? 'cancelled' : failed ? 'failed' : 'succeeded',
      error: failed ? `${progress!.failed} slice(s) failed: ${progress!.error}` : current.error,
      finished_at: new Date().toISOString(),
    }));
    this.ctx.logger.info({ job: job.id, status: finished?.status, ...progress?.counts }, 're-parsing job finished');
  }
}

export const reprocessStage: Stage = {
  name: 'reprocess',
  description: 're-parses stored artifacts for re-parsing jobs (POST /v1/reprocess), a slice of the key range at a time, on worker threads',
  input: reprocessTasks.name,
  async start(ctx) {
    const pool = createReparsePool(ctx.config.pipeline.workers);
    const decoders = userDecoderList(ctx);
    await decoders.start();
    const reprocessor = new Reprocessor(ctx, pool, decoders);
    const subscription = await consume({
      bus: ctx.bus,
      topic: reprocessTasks,
      group: 'reprocess',
      logger: ctx.logger,
      // A slice per worker thread at once, and one more, whose reads and writes overlap the others' parsing;
      // the batch commits when all are written.
      maxBatchSize: ctx.config.pipeline.workers + 1,
      maxWaitMs: 50,
      isTransient: isTransientStageError,
      handle: async (batch, context) => {
        await Promise.all(batch.map(({ value }) => reprocessor.handle(value, context)));
      },
    });
    return withCleanup(subscription, async () => {
      decoders.stop();
      await pool.close();
    });
  },
};
