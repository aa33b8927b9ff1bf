// `cairn reprocess --since 7d [--source x]`: re-parses stored artifacts
// through a running cairn's API (POST /v1/reprocess) and follows the job
// with a progress bar until it ends; Ctrl-C stops following, not the job.
// `--cancel <id>` cancels a job.
import { Command, InvalidArgumentError } from 'commander';
import { sleep } from '../../lib/backoff.js';
import { apiTarget, callApiData, withApiTargetOptions, type ApiTarget, type ApiTargetOptions } from '../api-target.js';
import { progressBar } from '../progress-bar.js';
import { durationMs } from './options.js';

interface ReprocessOptions extends ApiTargetOptions {
  since?: number;
  start?: string;
  end?: string;
  source?: string;
  detach?: boolean;
  cancel?: string;
}

/** What the command reads of a job (api/routes/reprocess.ts). */
interface Job {
  id: string;
  status: string;
  error: string;
  progress: { artifacts_total: number; artifacts_done: number; slices_planned: number; planned: boolean; slices_done: number; slices_failed: number };
  counts: Record<string, number>;
}

const FINISHED = new Set(['succeeded', 'failed', 'cancelled']);
const POLL_MS = 1000;

function isoTime(value: string): string {
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new InvalidArgumentError('must be an ISO 8601 time, e.g. 2026-01-02T00:00:00Z');
  return new Date(ms).toISOString();
}


function summary(job: Job): string {
  const c = job.counts;
  return `${job.progress.artifacts_done} artifact(s): ${c.changed} changed, ${c.added} added, ${c.removed} removed, ${c.unchanged} unchanged, ${c.unparsed} unparsed, ${c.unsettled} left to the pipeline`;
}

/** Polls the job until it ends, drawing its progress; Ctrl-C stops following (the job goes on in cairn). */
async function follow(target: ApiTarget, job: Job): Promise<Job> {
  const bar = progressBar('{bar} {percentage}% | {value}/{total} artifacts | {slices} slices | {status} | ETA {eta_formatted}');
  let interrupted = false;
  const onSigint = () => (interrupted = true);
  process.once('SIGINT', onSigint);
  bar.start(Math.max(job.progress.artifacts_total, 1), 0, { slices: '0/?', status: job.status });
  try {
    let current = job;
    while (!FINISHED.has(current.status) && !interrupted) {
      await sleep(POLL_MS);
      current = await callApiData<Job>(target, 'GET', `/v1/reprocess/${job.id}`);
      const { progress } = current;
      // Artifacts stored into the range after the job was counted make the total grow.
      bar.setTotal(Math.max(progress.artifacts_total, progress.artifacts_done, 1));
      bar.update(progress.artifacts_done, { slices: `${progress.slices_done}/${progress.planned ? progress.slices_planned : `${progress.slices_planned}+`}`, status: current.status });
    }
    if (interrupted) process.stderr.write(`\nstopped following; the job goes on: cairn reprocess --cancel ${job.id} to cancel it\n`);
    return current;
  } finally {
    bar.stop();
    process.removeListener('SIGINT', onSigint);
  }
}

export function reprocessCommand(): Command {
  const command = new Command('reprocess')
    .description("re-parse stored artifacts through today's parsers, decoders and enricher (a job in a running cairn), following its progress")
    .option('--since <duration>', 'artifacts of the last <duration>, e.g. 7d or 12h (the range ends now)', durationMs)
    .option('--start <time>', 'artifacts from this time (ISO 8601), instead of --since', isoTime)
    .option('--end <time>', 'up to this time (ISO 8601, exclusive; default now)', isoTime)
    .option('--source <name>', 'only artifacts of this source')
    .option('--detach', 'start the job and print its id without following it')
    .option('--cancel <id>', 'cancel a job instead of starting one');
  return withApiTargetOptions(command, 'signals:manage').action(async (options: ReprocessOptions, cmd: Command) => {
    if (!options.cancel && (options.since === undefined) === (options.start === undefined)) cmd.error('cairn: give --since or --start (one of them)', { exitCode: 2, code: 'cairn.usage' });
    const target = await apiTarget(options, { subject: 'cairn-reprocess', permissions: ['signals:manage', 'signals:read'] });
    if (options.cancel) {
      const job = await callApiData<Job>(target, 'POST', `/v1/reprocess/${encodeURIComponent(options.cancel)}/cancel`);
      console.log(`job ${job.id} ${job.status}: ${summary(job)}`);
      return;
    }
    const end = options.end ?? new Date().toISOString();
    const start = options.start ?? new Date(Date.parse(end) - options.since!).toISOString();
    const created = await callApiData<Job>(target, 'POST', '/v1/reprocess', { start, end, ...(options.source ? { source: options.source } : {}) });
    console.log(`job ${created.id}: ${created.progress.artifacts_total} artifact(s) from ${start} to ${end}${options.source ? ` of source ${options.source}` : ''}`);
    if (options.detach) return;
    const job = await follow(target, created);
    if (!FINISHED.has(job.status)) return;
    console.log(`job ${job.id} ${job.status}: ${summary(job)}${job.error ? ` (${job.error})` : ''}`);
    if (job.status !== 'succeeded') process.exitCode = 1;
  });
}
