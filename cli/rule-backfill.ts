// `cairn rules backfill`: queues a backfill of a lead rule through a running
// cairn's API (POST /v1/lead-rules/:id/backfill), then follows the job
// (GET .../backfill/:job) with a progress bar until it ends.
import { sleep } from '../lib/backoff.js';
import { callApiData, type ApiTarget } from './api-target.js';
import { progressBar } from './progress-bar.js';

const POLL_MS = 500;

export interface BackfillJobView {
  id: string;
  rule_name: string;
  status: 'queued' | 'running' | 'succeeded' | 'failed';
  events_total: number | null;
  events_done: number;
  matched: number;
  raised: number;
  already_raised: number;
  error: string;
}


export interface BackfillRun {
  ruleId: string;
  start: string;
  end?: string;
  /** Follow the job until it ends (with a bar when `progress`), or return it queued. */
  wait: boolean;
  progress: boolean;
}

/** Queues the backfill and, when asked, follows it to its end; returns the job as it last stood. */
export async function backfillRule(target: ApiTarget, run: BackfillRun): Promise<BackfillJobView> {
  const path = `/v1/lead-rules/${encodeURIComponent(run.ruleId)}/backfill`;
  let job = await callApiData<BackfillJobView>(target, 'POST', path, { start: run.start, ...(run.end ? { end: run.end } : {}) });
  if (!run.wait) return job;
  const bar = run.progress
    ? progressBar('{bar} {percentage}% | {value}/{total} events | {matched} matched | {raised} raised, {already} already raised | ETA {eta_formatted}')
    : null;
  let started = false;
  try {
    for (;;) {
      const values = { matched: job.matched, raised: job.raised, already: job.already_raised };
      if (bar && job.events_total !== null) {
        // Nothing to evaluate is done from the start: a bar of 0 of 0 would never show 100%.
        const total = Math.max(job.events_total, 1);
        const done = job.status === 'succeeded' ? total : Math.min(job.events_done, total);
        if (!started) bar.start(total, done, values);
        else bar.update(done, values);
        started = true;
      }
      if (job.status === 'succeeded' || job.status === 'failed') break;
      await sleep(POLL_MS);
      job = await callApiData<BackfillJobView>(target, 'GET', `${path}/${job.id}`);
    }
  } finally {
    // The bar redraws on a timer: stopped on failure too, or it keeps the process alive.
    bar?.stop();
  }
  return job;
}

export function describeJob(job: BackfillJobView): string {
  if (job.status === 'queued' || job.status === 'running') return `backfill ${job.id} of "${job.rule_name}" ${job.status}`;
  const outcome = `${job.events_done} event(s) evaluated, ${job.matched} matched, ${job.raised} raised, ${job.already_raised} already raised`;
  return `backfill ${job.id} of "${job.rule_name}" ${job.status}: ${outcome}${job.error ? ` (${job.error})` : ''}`;
}
