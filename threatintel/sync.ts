// Sync jobs: read a feed, store what changed in the library page by page,
// withdraw what the feed revoked (or, for a snapshot feed, no longer lists),
// then retro-hunt the new and changed indicators. Each page is stored before
// the job's cursor moves past it, so a job that dies leaves the library as
// of its last stored page and the next run resumes there (TAXII
// added_after). One run per subscription at a time, across processes (a
// hot-state lock). An unreachable or broken feed fails the job with the
// reason; it is never an error of the API.
import { createHash } from 'node:crypto';
import type { Config } from '../config/env.js';
import type { Store } from '../clickhouse/client.js';
import { claimsOfSubscription, countExpired, deleteClaims, saveClaims, type ClaimRow, type ExistingClaim } from '../clickhouse/tables/threatfeed-indicators.js';
import { resumeCursor, saveJob, type SyncJob } from '../clickhouse/tables/threatfeed-jobs.js';
import { getSubscription, type StoredSubscription } from '../clickhouse/tables/threatfeed-subscriptions.js';
import { sleep } from '../lib/backoff.js';
import { errorMessage } from '../lib/errors.js';
import { newId } from '../lib/ids.js';
import type { Logger } from '../lib/logger.js';
import { OutboundError, type OutboundClient } from '../lib/outbound/client.js';
import type { SecretBox } from '../lib/secret-box.js';
import type { Bus } from '../pipeline/bus/types.js';
import { announceChange } from '../pipeline/state/change-notices.js';
import type { HotState } from '../pipeline/state/types.js';
import { feedSettings, openFeedSettings } from './feeds.js';
import { indicatorId } from './indicator.js';
import { rowClaimInput } from './matcher.js';
import { retroHunt } from './retro-hunt.js';
import { FeedError, readFeed, type FeedClaim, type FeedRead } from './sources/index.js';

export interface IntelDeps {
  config: Config;
  store: Store;
  bus: Bus;
  state: HotState;
  logger: Logger;
  outbound: OutboundClient;
  box: SecretBox;
}

const LOCK_MS = 15 * 60_000;
/** A claim the feed lists again unchanged is rewritten (its decay restarted) only when older than this share of its lifetime. */
const REFRESH_SHARE = 0.1;

export function newJob(subscription: StoredSubscription, trigger: SyncJob['trigger']): SyncJob {
  const now = new Date().toISOString();
  return {
    id: newId(),
    org_id: subscription.org_id,
    subscription_id: subscription.id,
    subscription_name: subscription.name,
    trigger,
    status: 'queued',
    queued_at: now,
    started_at: null,
    finished_at: null,
    fetched: 0,
    added: 0,
    updated: 0,
    expired: 0,
    removed: 0,
    rejected: 0,
    retro_sightings: 0,
    error: '',
    cursor: '',
    updated_at: now,
  };
}

/** A claim of the feed as a library row, with the subscription's defaults where the feed is silent. */
function claimRow(subscription: StoredSubscription, claim: FeedClaim, now: string, firstSeen: string | undefined): ClaimRow {
  const asserted = claim.assertedAt ?? now;
  const validFrom = claim.validFrom ?? claim.assertedAt ?? firstSeen ?? now;
  const assertedAt = Date.parse(asserted) < Date.parse(validFrom) ? validFrom : asserted;
  const expiresAt = claim.validUntil ?? new Date(Date.parse(assertedAt) + subscription.lifetime_seconds * 1000).toISOString();
  const row: Omit<ClaimRow, 'content_hash'> = {
    org_id: subscription.org_id,
    indicator_id: indicatorId(subscription.org_id, claim.type, claim.value),
    subscription_id: subscription.id,
    type: claim.type,
    value: claim.value,
    matchable: claim.matchable,
    note: claim.note,
    source_ref: claim.ref.slice(0, 500),
    confidence: Math.round(claim.confidence ?? subscription.confidence),
    labels: claim.labels.slice(0, 50).map((l) => l.slice(0, 200)),
    valid_from: new Date(validFrom).toISOString(),
    valid_until: claim.validUntil ? new Date(claim.validUntil).toISOString() : null,
    asserted_at: new Date(assertedAt).toISOString(),
    expires_at: new Date(expiresAt).toISOString(),
    decay_speed: subscription.decay_speed,
    score_threshold: subscription.score_threshold,
    first_seen_at: firstSeen ?? now,
    updated_at: now,
  };
  // What the feed said, without the times cairn fills in itself: unchanged when the feed says the same again.
  const { updated_at: _u, first_seen_at: _f, ...said } = row;
  const hashed = claim.assertedAt ? said : { ...said, asserted_at: '', expires_at: claim.validUntil ?? '', valid_from: claim.validFrom ?? '' };
  return { ...row, content_hash: createHash('sha256').update(JSON.stringify(hashed)).digest('base64url').slice(0, 22) };
}

/** Claims of one feed, as stored, by indicator and by the feed's own reference. */
class Holdings {
  readonly byId = new Map<string, ExistingClaim>();
  readonly byRef = new Map<string, Set<string>>();

  constructor(existing: ExistingClaim[]) {
    for (const claim of existing) this.hold(claim);
  }

  hold(claim: ExistingClaim): void {
    this.byId.set(claim.indicator_id, claim);
    const ids = this.byRef.get(claim.source_ref) ?? new Set();
    ids.add(claim.indicator_id);
    this.byRef.set(claim.source_ref, ids);
  }

  drop(indicatorId: string): ExistingClaim | undefined {
    const claim = this.byId.get(indicatorId);
    if (claim) {
      this.byId.delete(indicatorId);
      this.byRef.get(claim.source_ref)?.delete(indicatorId);
    }
    return claim;
  }
}

export interface ReadOutcome {
  changed: ClaimRow[];
  counts: Pick<SyncJob, 'fetched' | 'added' | 'updated' | 'removed' | 'rejected'>;
  cursor: string;
}

/**
 * Reads a feed into the library: each page's changes are stored, then
 * `onPage` records progress (the cursor past that page). With `store: false`
 * nothing is written (a dry run) and the changed claims are only returned.
 */
export async function readIntoLibrary(deps: IntelDeps, subscription: StoredSubscription, read: FeedRead, options: { cursor: string; store: boolean; onPage?: (outcome: ReadOutcome) => Promise<void> }): Promise<ReadOutcome> {
  const holdings = new Holdings(options.store ? await claimsOfSubscription(deps.store, subscription.org_id, subscription.id) : []);
  const listed = new Set<string>();
  const outcome: ReadOutcome = { changed: [], counts: { fetched: 0, added: 0, updated: 0, removed: 0, rejected: 0 }, cursor: options.cursor };
  const refreshAfterMs = subscription.lifetime_seconds * 1000 * REFRESH_SHARE;
  for await (const page of read.pages) {
    const now = new Date().toISOString();
    const rows = new Map<string, ClaimRow>();
    for (const claim of page.claims) {
      const held = holdings.byId.get(indicatorId(subscription.org_id, claim.type, claim.value));
      const row = claimRow(subscription, claim, now, held?.first_seen_at);
      listed.add(row.indicator_id);
      if (held && held.content_hash === row.content_hash) {
        // Unchanged: rewritten only to restart the decay of a list's entry that has aged.
        if (claim.assertedAt || Date.now() - Date.parse(held.asserted_at) < refreshAfterMs) continue;
      } else if (!rows.has(row.indicator_id)) {
        if (held) outcome.counts.updated++;
        else outcome.counts.added++;
        outcome.changed.push(row);
      }
      rows.set(row.indicator_id, row);
    }
    const withdrawn = page.withdrawn.flatMap((ref) => [...(holdings.byRef.get(ref) ?? [])]).filter((id) => !rows.has(id));
    const gone = withdrawn.map((id) => holdings.drop(id)).filter((c): c is ExistingClaim => c !== undefined);
    if (options.store) {
      await saveClaims(deps.store, [...rows.values()]);
      await deleteClaims(deps.store, subscription.org_id, subscription.id, gone);
    }
    for (const row of rows.values()) holdings.hold(row);
    outcome.counts.removed += gone.length;
    outcome.counts.fetched += page.fetched;
    outcome.counts.rejected += page.rejected.length;
    if (page.cursor !== undefined) outcome.cursor = page.cursor;
    await options.onPage?.(outcome);
  }
  if (read.snapshot && options.store) {
    const unlisted = [...holdings.byId.keys()].filter((id) => !listed.has(id)).map((id) => holdings.drop(id)!);
    await deleteClaims(deps.store, subscription.org_id, subscription.id, unlisted);
    outcome.counts.removed += unlisted.length;
  }
  return outcome;
}

/**
 * The library's side of unsubscribing, once the subscription is deleted: its
 * claims leave the library (indicators other feeds also give stay), and the
 * matchers are told. Both the unsubscribe route and a sync that finds its
 * subscription deleted call it.
 */
export async function withdrawSubscription(deps: Pick<IntelDeps, 'store' | 'state'>, subscription: Pick<StoredSubscription, 'org_id' | 'id'>): Promise<void> {
  await deleteClaims(deps.store, subscription.org_id, subscription.id, await claimsOfSubscription(deps.store, subscription.org_id, subscription.id));
  await announceChange(deps.state, 'threat-intel');
}

/** The reason a job failed, as users may read it: feed and network errors in full, anything else in short. */
function failureText(err: unknown): string {
  if (err instanceof FeedError || err instanceof OutboundError) return err.message;
  return `internal error: ${errorMessage(err)}`.slice(0, 500);
}

const lockKey = (subscriptionId: string) => `threatintel:sync-lock:${subscriptionId}`;

async function acquire(state: HotState, subscriptionId: string, jobId: string): Promise<boolean> {
  const deadline = Date.now() + LOCK_MS;
  while (Date.now() < deadline) {
    if (await state.setIfAbsent(lockKey(subscriptionId), jobId, LOCK_MS)) return true;
    await sleep(500);
  }
  return false;
}

/** Runs a queued job to its end (succeeded or failed); never throws. */
export async function runJob(deps: IntelDeps, subscription: StoredSubscription, queued: SyncJob): Promise<SyncJob> {
  let job = queued;
  const save = async (change: Partial<SyncJob>) => {
    job = { ...job, ...change, updated_at: new Date().toISOString() };
    await saveJob(deps.store, job);
  };
  let locked = false;
  try {
    locked = await acquire(deps.state, subscription.id, job.id);
    if (!locked) throw new FeedError('another sync of this subscription did not finish within 15 minutes');
    const resume = await resumeCursor(deps.store, subscription.org_id, subscription.id);
    await save({ status: 'running', started_at: new Date().toISOString(), cursor: resume.cursor });
    const feed = feedSettings(subscription.kind, openFeedSettings(deps.box, subscription.settings));
    const read = readFeed({ url: subscription.url, feed, cursor: resume.cursor, client: deps.outbound });
    const outcome = await readIntoLibrary(deps, subscription, read, {
      cursor: resume.cursor,
      store: true,
      onPage: async ({ counts, cursor }) => {
        await save({ ...counts, cursor });
        await announceChange(deps.state, 'threat-intel');
      },
    });
    if (!(await getSubscription(deps.store, subscription.org_id, subscription.id))) {
      // Unsubscribed while this run read the feed: what it stored goes too.
      await withdrawSubscription(deps, subscription);
      throw new FeedError('the subscription was deleted during the sync; its indicators were removed');
    }
    await announceChange(deps.state, 'threat-intel');
    const expired = await countExpired(deps.store, subscription.org_id, subscription.id, resume.since ?? new Date(0).toISOString());
    const hunt = await retroHunt({
      store: deps.store,
      bus: deps.bus,
      orgId: subscription.org_id,
      days: deps.config.threatIntel.retroHuntDays,
      claims: outcome.changed.filter((c) => c.matchable).map(rowClaimInput),
      // Every claim hunted is this subscription's.
      feedName: () => subscription.name,
      write: true,
    });
    await save({ ...outcome.counts, cursor: outcome.cursor, expired, retro_sightings: hunt.sightings, status: 'succeeded', finished_at: new Date().toISOString() });
    deps.logger.info({ subscription: subscription.id, job: job.id, ...outcome.counts, expired, retro: hunt.sightings }, 'threat feed synced');
  } catch (err) {
    deps.logger.warn({ err, subscription: subscription.id, job: job.id }, 'threat feed sync failed');
    await save({ status: 'failed', error: failureText(err), finished_at: new Date().toISOString() }).catch((e: unknown) => deps.logger.error({ err: e }, 'could not record a failed sync job'));
  } finally {
    if (locked) await deps.state.delete(lockKey(subscription.id)).catch(() => {});
  }
  return job;
}
