// Running backfill jobs (pipeline/leads/backfill.ts) in the API's processes
// (`cairn start`, `cairn api`). A job is queued as a row; whichever process
// holds its lease in hot state runs it, renewing the lease as it goes. A
// process that stops aborts its jobs after the page in hand and gives their
// leases back; one that dies lets them lapse. Either way the job's row still
// says `running` with its cursor, and the next check of any API process
// (every CHECK_MS, and at once after a job is queued or ends) takes it up
// again from there: a job survives a restart. A few jobs run at once; the
// others wait queued, oldest first.
import { randomUUID } from 'node:crypto';
import type { LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { getBackfillJob, saveBackfillJob, unfinishedBackfillJobs, type BackfillJob, type BackfillTrigger } from '../../clickhouse/tables/lead-rule-backfills.js';
import type { Store } from '../../clickhouse/client.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import { runPeriodically } from '../../lib/periodic.js';
import type { Bus } from '../bus/types.js';
import { isTransientStageError } from '../stage.js';
import type { HotState } from '../state/index.js';
import { BackfillFailure, runBackfill } from './backfill.js';

const CHECK_MS = 15_000;

export interface BackfillRunnerDeps {
  store: Store;
  bus: Bus;
  state: HotState;
  logger: Logger;
}

export interface BackfillRunnerOptions {
  /** Events read per page (BackfillOptions.pageSize). */
  pageSize: number;
  /** Jobs this process runs at once. */
  concurrency: number;
  /** How long a lease lasts unrenewed: a job of a process that died is taken up again after this. */
  leaseMs: number;
}

export const DEFAULT_RUNNER_OPTIONS: Omit<BackfillRunnerOptions, 'pageSize'> = { concurrency: 2, leaseMs: 60_000 };

export interface BackfillRequest {
  start: string;
  end: string;
  trigger: BackfillTrigger;
  requestedBy: string;
}

/** A backfill asked of a rule that has one queued or running. */
export class BackfillConflict extends Error {
  constructor(readonly job: BackfillJob) {
    super(`the rule has a backfill ${job.status} (job ${job.id}); wait for it to finish`);
  }
}

/** A job's first row: queued, nothing counted yet. */
export function newBackfillJob(rule: LeadRule, request: BackfillRequest): BackfillJob {
  const now = new Date().toISOString();
  return {
    id: newId(),
    org_id: rule.org_id,
    rule_id: rule.id,
    rule_name: rule.name,
    trigger: request.trigger,
    requested_by: request.requestedBy,
    status: 'queued',
    start: request.start,
    end: request.end,
    queued_at: now,
    started_at: null,
    finished_at: null,
    events_total: null,
    events_done: 0,
    matched: 0,
    raised: 0,
    already_raised: 0,
    cursor: null,
    error: '',
    updated_at: now,
  };
}

function leaseKey(jobId: string): string {
  return `backfill:lease:${jobId}`;
}

export class BackfillRunner {
  /** Names this process's leases. */
  private readonly owner = randomUUID();
  private readonly running = new Map<string, { abort: AbortController; done: Promise<void> }>();
  private stopped = false;
  private checking: Promise<void> | null = null;
  private checkAgain = false;
  private stopSchedule: () => void = () => {};

  constructor(
    private readonly deps: BackfillRunnerDeps,
    private readonly options: BackfillRunnerOptions,
  ) {}

  /** Queues a backfill of the rule and starts it when a slot is free; refuses (BackfillConflict) while the rule has one unfinished. */
  async queue(rule: LeadRule, request: BackfillRequest): Promise<BackfillJob> {
    const [unfinished] = await unfinishedBackfillJobs(this.deps.store, { orgId: rule.org_id, ruleId: rule.id });
    if (unfinished) throw new BackfillConflict(unfinished);
    const job = newBackfillJob(rule, request);
    await saveBackfillJob(this.deps.store, job);
    void this.check();
    return job;
  }

  /**
   * Backfills of rules just enabled (new pack rules, imported Sigma rules)
   * over the `days` days before now, when `days` is above 0: one job each,
   * trigger `enable`. A rule with a backfill unfinished is left to it.
   */
  async queueOnEnable(rules: LeadRule[], days: number, requestedBy: string): Promise<Map<string, BackfillJob>> {
    const jobs = new Map<string, BackfillJob>();
    if (days <= 0) return jobs;
    const end = new Date();
    const start = new Date(end.getTime() - days * 86_400_000);
    for (const rule of rules.filter((r) => r.enabled)) {
      try {
        jobs.set(rule.id, await this.queue(rule, { start: start.toISOString(), end: end.toISOString(), trigger: 'enable', requestedBy }));
      } catch (err) {
        if (!(err instanceof BackfillConflict)) throw err;
      }
    }
    return jobs;
  }

  /** Checks for jobs to run every CHECK_MS (the API's processes call it; the first check takes up the jobs a restart interrupted). */
  start(): void {
    this.stopSchedule = runPeriodically(() => this.check(), {
      firstAfterMs: 1000,
      everyMs: CHECK_MS,
      onError: (err) => this.deps.logger.warn({ err }, 'backfill check failed'),
    });
  }

  /** Takes up queued jobs, and running ones whose lease lapsed, while this process has slots free; resolves once those are started. */
  check(): Promise<void> {
    if (this.checking) {
      this.checkAgain = true;
      return this.checking;
    }
    this.checking = (async () => {
      try {
        do {
          this.checkAgain = false;
          await this.takeUp();
        } while (this.checkAgain && !this.stopped);
      } finally {
        this.checking = null;
      }
    })();
    return this.checking;
  }

  private async takeUp(): Promise<void> {
    if (this.stopped || this.running.size >= this.options.concurrency) return;
    for (const job of await unfinishedBackfillJobs(this.deps.store)) {
      if (this.stopped || this.running.size >= this.options.concurrency) return;
      if (this.running.has(job.id)) continue;
      if (!(await this.deps.state.setIfAbsent(leaseKey(job.id), this.owner, this.options.leaseMs))) continue;
      // The list may be older than the lease: another process may have finished the job in between.
      const current = await getBackfillJob(this.deps.store, job.org_id, job.rule_id, job.id);
      if (current?.status === 'queued' || current?.status === 'running') this.launch(current);
      else await this.deps.state.delete(leaseKey(job.id));
    }
  }

  private launch(job: BackfillJob): void {
    const abort = new AbortController();
    const { logger, state } = this.deps;
    const key = leaseKey(job.id);
    const renew = setInterval(() => {
      void (async () => {
        if ((await state.get(key)) === this.owner) await state.set(key, this.owner, this.options.leaseMs);
      })().catch((err: unknown) => logger.warn({ err, job: job.id }, 'could not renew a backfill lease'));
    }, this.options.leaseMs / 3);
    renew.unref();
    let latest = job;
    const done = runBackfill(this.deps, job, { signal: abort.signal, pageSize: this.options.pageSize, onProgress: (j) => (latest = j) })
      .then((finished) => {
        if (finished.status === 'succeeded') logger.info({ job: job.id, rule: job.rule_id, raised: finished.raised, already_raised: finished.already_raised }, 'backfill finished');
      })
      .catch(async (err: unknown) => {
        if (!(err instanceof BackfillFailure) && isTransientStageError(err)) {
          // Left running: its lease is given back below, and the next check resumes it from its cursor.
          logger.warn({ err, job: job.id }, 'backfill interrupted by a transient error; it resumes at the next check');
          return;
        }
        logger.warn({ err, job: job.id, rule: job.rule_id }, 'backfill failed');
        const now = new Date().toISOString();
        await saveBackfillJob(this.deps.store, { ...latest, status: 'failed', error: (err as Error).message, finished_at: now, updated_at: now });
      })
      .catch((err: unknown) => logger.error({ err, job: job.id }, 'could not record the end of a backfill'))
      .finally(async () => {
        clearInterval(renew);
        this.running.delete(job.id);
        if ((await state.get(key).catch(() => null)) === this.owner) await state.delete(key).catch(() => {});
        if (!this.stopped) void this.check();
      });
    this.running.set(job.id, { abort, done });
  }

  /** The ids of the jobs this process is running. */
  runningJobs(): string[] {
    return [...this.running.keys()];
  }

  /** Stops checking, aborts the running jobs after their current page and gives their leases back; their rows stay running, for the next process. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopSchedule();
    for (const { abort } of this.running.values()) abort.abort();
    await Promise.all([...this.running.values()].map((r) => r.done));
    await this.checking;
  }
}
