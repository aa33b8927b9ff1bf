// When syncs run: on demand (POST /v1/threatfeed/sync queues a job per
// subscription and runs it in the background) and on each subscription's
// poll interval, checked every 15 s by every API process (`cairn start`,
// `cairn api`); a hot-state mark per subscription and interval lets one
// process take each scheduled run. A job left running by a process that died
// is marked failed; the next run resumes from its cursor.
import { latestJobs, saveJob, saveJobs, type SyncJob } from '../clickhouse/tables/threatfeed-jobs.js';
import { listEnabledSubscriptions, type StoredSubscription } from '../clickhouse/tables/threatfeed-subscriptions.js';
import { newJob, runJob, type IntelDeps } from './sync.js';
import { runPeriodically } from '../lib/periodic.js';

const CHECK_MS = 15_000;
/** A running job whose row has not moved for this long belongs to a process that died. */
const STALE_MS = 20 * 60_000;

/** Queues a job per subscription and runs them in the background; resolves once they are queued. */
export async function queueSync(deps: IntelDeps, subscriptions: StoredSubscription[], trigger: SyncJob['trigger']): Promise<SyncJob[]> {
  const jobs = subscriptions.map((s) => newJob(s, trigger));
  await saveJobs(deps.store, jobs);
  subscriptions.forEach((subscription, i) => void runJob(deps, subscription, jobs[i]!));
  return jobs;
}

function isDue(subscription: StoredSubscription, last: SyncJob | null, now: number): boolean {
  if (!last) return true;
  if (last.status === 'queued' || last.status === 'running') return false;
  return Date.parse(last.queued_at) + subscription.poll_interval_seconds * 1000 <= now;
}

/** Queues a run of every enabled subscription whose poll interval has passed (at `now`), and fails the jobs of processes that died. */
export async function runDueSyncs(deps: IntelDeps, now = Date.now()): Promise<SyncJob[]> {
  const queued: SyncJob[] = [];
  const subscriptions = await listEnabledSubscriptions(deps.store);
  // After the subscriptions, not beside them: a new subscription's first job is queued just after the subscription is saved.
  const latest = await latestJobs(deps.store);
  for (const subscription of subscriptions) {
    let last = latest.get(subscription.id) ?? null;
    if (last && (last.status === 'running' || last.status === 'queued') && now - Date.parse(last.updated_at) > STALE_MS) {
      last = { ...last, status: 'failed', error: 'interrupted: the process running it stopped; the next run resumes from its last stored page', finished_at: new Date(now).toISOString(), updated_at: new Date(now).toISOString() };
      await saveJob(deps.store, last);
    }
    if (!isDue(subscription, last, now)) continue;
    const slot = Math.floor(now / (subscription.poll_interval_seconds * 1000));
    if (!(await deps.state.setIfAbsent(`threatintel:scheduled:${subscription.id}:${slot}`, '1', subscription.poll_interval_seconds * 1000))) continue;
    queued.push(...(await queueSync(deps, [subscription], 'schedule')));
  }
  return queued;
}

/** Starts the schedule; returns its stop function. */
export function startSyncSchedule(deps: IntelDeps): () => void {
  return runPeriodically(() => runDueSyncs(deps), {
    firstAfterMs: 5_000,
    everyMs: CHECK_MS,
    onError: (err) => deps.logger.warn({ err }, 'threat feed schedule check failed'),
  });
}
