// Backfill: a lead rule run over the stored events of a range of event time,
// raising the observations and leads it would have raised had it been
// enabled when they were ingested, dated by event time and marked as a
// backfill's (tag `backfill`, created_by `backfill:<job id>`).
//
// The evaluation is the rule stage's own: stored events become the enriched
// events ingest had (pipeline/enricher/stored.ts), then findMatches,
// evaluateMatches and firingRecords, the functions the stage runs. A firing
// has the identity it has at ingest ((rule, group, window), or (rule,
// artifact) without a threshold), so what the rule already raised, at ingest
// or in an earlier backfill, has the same id: it is left as it is, and a
// second run raises nothing new.
//
// Windows are evaluated in memory, per job, not in the live hot state: a
// backfill must neither count history into the windows live events are
// counting nor mark them emitted, and writing every historical event to
// Redis or the local journal would cost a write per event for state the job
// alone reads. The job's state expires on event time (the in-memory state's
// clock is the evaluation's), so what a rule remembers (a window, a firing
// mark) lasts as long in event time as it does live. Events are read in event
// time order and evaluated in batches of at most BATCH_MATCHES matches
// spanning at most BATCH_SPAN_MS, as ingest evaluates the events of a batch
// together. What the rule holds at a point depends on the events before it
// (a window straddling the range's start, a window open when the process
// stopped), so the job first evaluates the events of the rule's lookback
// before the point without writing their firings, then goes on writing. A
// job saves its progress and cursor after each page's firings are written;
// after a restart it resumes from the cursor, rebuilding the state from the
// lookback before it (pipeline/leads/backfill-jobs.ts runs the jobs).
import type { Store } from '../../clickhouse/client.js';
import type { SqlParams } from '../../clickhouse/sql.js';
import { backfillEventsAfter, countBackfillEvents, type BackfillEvent, type BackfillSelection } from '../../clickhouse/tables/backfill-events.js';
import { eventFieldValues } from '../../clickhouse/tables/events.js';
import { getLeadRule, type LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { saveBackfillJob, type BackfillCursor, type BackfillJob } from '../../clickhouse/tables/lead-rule-backfills.js';
import { observationMakers } from '../../clickhouse/tables/observations.js';
import { parseDuration } from '../../lib/duration.js';
import { parseQuery } from '../../query/parse.js';
import { eventCondition } from '../../query/store-condition.js';
import { JOINED_AUDIT_DATASET } from '../analysis/audit-join.js';
import type { Bus } from '../bus/types.js';
import { enrichedFromStored } from '../enricher/stored.js';
import type { FindingRecord } from '../stage.js';
import { LocalState } from '../state/local-state.js';
import { writeFindings } from './consumer.js';
import { evaluateMatches, findMatches, type Firing, type Match } from './evaluate.js';
import { firingRecords } from './firing-records.js';
import { compileRule, type CompiledRule } from './rules.js';

/** Events read per page: a page's firings are written, then the job's progress and cursor saved. */
export const DEFAULT_BACKFILL_PAGE_SIZE = 5000;
/** At most this many matches are evaluated together: the order of a batch at ingest. */
const BATCH_MATCHES = 2000;
/** A batch spans at most this much event time, the state's clock standing at its first event. */
const BATCH_SPAN_MS = 60_000;

export const BACKFILL_TAG = 'backfill';

/** created_by of the observations a job raises. */
export function backfillMaker(jobId: string): string {
  return `backfill:${jobId}`;
}

export interface BackfillDeps {
  store: Store;
  bus: Bus;
}

export interface BackfillOptions {
  /** Aborting stops the job after the page in hand; its row stays `running`, to be resumed. */
  signal?: AbortSignal;
  pageSize?: number;
  /** Called with the job's row each time its progress is saved. */
  onProgress?: (job: BackfillJob) => void;
}

/** A job ended by a cause that retrying cannot change (the rule is gone, its pattern does not compile). */
export class BackfillFailure extends Error {}

/**
 * How far before a point of event time the rule's state reaches: the events
 * of this span before the point decide what the rule holds at it. A
 * tumbling window holding the point began at most one window earlier, and
 * an ordered sequence ending after it began at most one window earlier; a
 * first_seen rule remembers values its `days`; a firing suppressing others
 * after the point began at most the suppression period before it, and its
 * own events go back a window further.
 */
export function stateLookbackMs(rule: LeadRule): number {
  const { window, first_seen, suppress } = rule.conditions;
  return (window ? parseDuration(window) : 0) + (first_seen ? first_seen.days * 86_400_000 : 0) + (suppress ? parseDuration(suppress) : 0);
}

/** Whether an event comes after a cursor in the order (event time, artifact id) events are read in. */
function isAfter(event: Pick<BackfillEvent, 'at' | 'artifact_id'>, cursor: BackfillCursor): boolean {
  return event.at > cursor.at || (event.at === cursor.at && event.artifact_id > cursor.artifactId);
}

/** The stored events that may match the rule: its pattern (and source) in SQL; the rule's matcher decides. Joined audit events are rows of the store only, which rules never see. */
function selectionFor(rule: LeadRule, from: number, end: number): BackfillSelection {
  const tree = parseQuery(rule.conditions.pattern);
  const scope = { orgId: rule.org_id, source: rule.conditions.source };
  return {
    ...scope,
    from,
    end,
    condition: (params: SqlParams) => `${eventCondition(tree, scope, params)} AND NOT has(${eventFieldValues('event.dataset', params)}, ${params.add(JOINED_AUDIT_DATASET, 'String')})`,
  };
}

interface Batch {
  matches: Match[];
  /** Whether the batch's firings are written (its events are past the write cursor). */
  writing: boolean;
}

/** Matches in event time order cut into the batches they are evaluated in. */
function batches(matches: Match[], writes: (match: Match) => boolean): Batch[] {
  const out: Batch[] = [];
  let current: Batch | null = null;
  for (const match of matches) {
    const writing = writes(match);
    if (!current || current.writing !== writing || current.matches.length >= BATCH_MATCHES || match.at - current.matches[0]!.at > BATCH_SPAN_MS) {
      current = { matches: [], writing };
      out.push(current);
    }
    current.matches.push(match);
  }
  return out;
}

/** A firing's records as a backfill writes them: marked, and said to be made by the job. */
export function backfillRecords(firing: Firing, jobId: string, now: string): FindingRecord {
  const records = firingRecords(firing, now);
  const observation = { ...records.observation, created_by: backfillMaker(jobId), tags: [...records.observation.tags, BACKFILL_TAG] };
  return { ...records, observation };
}

/**
 * Writes the firings the rule had not raised before, and this job's own
 * again (a window that grew); those raised at ingest or by another backfill
 * stay as they are. `skipped` remembers the ids left alone so far, to count
 * each once.
 */
async function writeFirings(deps: BackfillDeps, job: BackfillJob, firings: Firing[], skipped: Set<string>): Promise<{ raised: number; alreadyRaised: number }> {
  if (firings.length === 0) return { raised: 0, alreadyRaised: 0 };
  const makers = await observationMakers(deps.store, job.org_id, firings.map((f) => f.id));
  const own = backfillMaker(job.id);
  const now = new Date().toISOString();
  const records: FindingRecord[] = [];
  let raised = 0;
  let alreadyRaised = 0;
  for (const firing of firings) {
    const maker = makers.get(firing.id);
    if (maker === undefined) raised++;
    else if (maker !== own) {
      if (!skipped.has(firing.id)) alreadyRaised++;
      skipped.add(firing.id);
      continue;
    }
    records.push(backfillRecords(firing, job.id, now));
  }
  await writeFindings(deps, records);
  return { raised, alreadyRaised };
}

function compiled(rule: LeadRule): CompiledRule {
  try {
    return compileRule(rule);
  } catch (err) {
    throw new BackfillFailure(`the rule's conditions do not compile: ${(err as Error).message}`);
  }
}

/**
 * Runs a job from where its row says it got to, saving its progress after
 * each page, until its range is done (the row returned says `succeeded`) or
 * the signal stops it (the row stays `running`). Throws what stopped it
 * otherwise; BackfillFailure for a cause a retry cannot change.
 */
export async function runBackfill(deps: BackfillDeps, queued: BackfillJob, options: BackfillOptions = {}): Promise<BackfillJob> {
  const pageSize = options.pageSize ?? DEFAULT_BACKFILL_PAGE_SIZE;
  let job = queued;
  const save = async (next: BackfillJob) => {
    job = { ...next, updated_at: new Date().toISOString() };
    await saveBackfillJob(deps.store, job);
    options.onProgress?.(job);
  };

  const rule = await getLeadRule(deps.store, job.org_id, job.rule_id);
  if (!rule) throw new BackfillFailure('the rule was deleted');
  const compiledRule = compiled(rule);
  const start = Date.parse(job.start);
  const end = Date.parse(job.end);
  // Firings of events after this point are written; before it, the events only rebuild the rule's state.
  const writeFrom: BackfillCursor = job.cursor ?? { at: start, artifactId: '' };
  const selection = selectionFor(rule, writeFrom.at - stateLookbackMs(rule), end);
  if (job.events_total === null) {
    const total = await countBackfillEvents(deps.store, { ...selection, from: start });
    await save({ ...job, status: 'running', started_at: job.started_at ?? new Date().toISOString(), events_total: total });
  } else if (job.status !== 'running') {
    await save({ ...job, status: 'running', started_at: job.started_at ?? new Date().toISOString() });
  }

  let clock = selection.from;
  const state = LocalState.inMemory(() => clock);
  const skipped = new Set<string>();
  const rulesFor = (orgId: string) => (orgId === rule.org_id ? [compiledRule] : []);
  let after: BackfillCursor | null = null;
  try {
    for (;;) {
      if (options.signal?.aborted) return job;
      const page = await backfillEventsAfter(deps.store, selection, after, pageSize);
      if (page.length === 0) break;
      const last = page[page.length - 1]!;
      after = { at: last.at, artifactId: last.artifact_id };
      const writing = new Set(page.filter((e) => isAfter(e, writeFrom)).map((e) => e.artifact_id));
      const matches = findMatches(page.map((e) => enrichedFromStored(e, e.raw)), rulesFor);
      // One firing per id from the page, its last version: a window that grows over the page is written once.
      const firings = new Map<string, Firing>();
      for (const batch of batches(matches, (m) => writing.has(m.event.artifact_id))) {
        clock = batch.matches[0]!.at;
        const evaluation = await evaluateMatches(batch.matches, state);
        await evaluation.markEmitted();
        if (batch.writing) for (const firing of evaluation.firings) firings.set(firing.id, firing);
      }
      if (writing.size === 0) continue;
      const written = await writeFirings(deps, job, [...firings.values()], skipped);
      await save({
        ...job,
        events_done: job.events_done + writing.size,
        matched: job.matched + matches.filter((m) => writing.has(m.event.artifact_id)).length,
        raised: job.raised + written.raised,
        already_raised: job.already_raised + written.alreadyRaised,
        cursor: after,
      });
    }
  } finally {
    await state.close();
  }
  const finished = new Date().toISOString();
  await save({ ...job, status: 'succeeded', finished_at: finished, error: '' });
  return job;
}
