// Matching at ingest: the pipeline (pipeline/stage.ts EventMatching) matches
// each batch of enriched events, on the main thread or on the analysis
// workers with copies of the index, and writes the records made here. The index
// is loaded once per process and then kept current by applying only the
// claims written since (their row versions): after each sync the syncing
// process announces the change in hot state (a 'threat-intel' change notice,
// pipeline/state/change-notices.ts; Redis in distributed mode), and
// every process checks that notice before its next batch, so new indicators
// match without a restart everywhere. A full check runs every minute too.
import type { Store } from '../clickhouse/client.js';
import { loadClaimStates, saveSightings, type ClaimRow, type ClaimState } from '../clickhouse/tables/threatfeed-indicators.js';
import { subscriptionNames } from '../clickhouse/tables/threatfeed-subscriptions.js';
import type { Logger } from '../lib/logger.js';
import { currentNotice } from '../pipeline/state/change-notices.js';
import type { HotState } from '../pipeline/state/types.js';
import { groupHits, intelRecord, sightingsOf, type HitGroup } from './findings.js';
import { addToWindow, windowIds } from '../pipeline/leads/windows.js';
import type { EventMatching, FindingRecord } from '../pipeline/stage.js';
import { IntelIndex, type ClaimInput, type IntelHit } from './intel-index.js';
import type { WorkerIntelHit } from './worker-matching.js';

const BACKSTOP_MS = 60_000;
/** Versions are per-process clocks: re-read a little before the newest seen, in case another process's clock is behind. */
const SKEW_MICROS = 120_000_000n;

function claimInput(row: ClaimState): ClaimInput {
  return {
    orgId: row.org_id,
    indicatorId: row.indicator_id,
    subscriptionId: row.subscription_id,
    type: row.type,
    value: row.value,
    confidence: Number(row.confidence),
    labels: row.labels,
    validFrom: Number(row.valid_from),
    assertedAt: Number(row.asserted_at),
    expiresAt: Number(row.expires_at),
    decaySpeed: Number(row.decay_speed),
    threshold: Number(row.score_threshold),
    version: BigInt(row.row_version),
  };
}

/** A claim about to be written, as the index holds it (for a retro-hunt before any matcher reloads). */
export function rowClaimInput(row: ClaimRow): ClaimInput {
  return {
    orgId: row.org_id,
    indicatorId: row.indicator_id,
    subscriptionId: row.subscription_id,
    type: row.type,
    value: row.value,
    confidence: row.confidence,
    labels: row.labels,
    validFrom: Date.parse(row.valid_from),
    assertedAt: Date.parse(row.asserted_at),
    expiresAt: Date.parse(row.expires_at),
    decaySpeed: row.decay_speed,
    threshold: row.score_threshold,
    version: 0n,
  };
}

export class IntelMatcher {
  readonly index = new IntelIndex();
  /** Moves on with every change applied, so copies of the index (the analysis workers') know when to reload. */
  generation = 0;
  private version: bigint | null = null;
  /** claims() of the index at `generation`, made once per generation for the workers that reload. */
  private claimsOf: { generation: number; claims: ClaimInput[] } | null = null;
  private notice: string | null | undefined;
  private checkedAt = 0;
  private names = new Map<string, string>();
  private loading: Promise<void> | null = null;

  constructor(
    private readonly store: Store,
    private readonly state: HotState,
    private readonly logger: Logger,
  ) {}

  feedName = (id: string): string => this.names.get(id) ?? id;

  /** Every claim the index holds (what a worker's copy loads): the same array for one generation. */
  claims(): ClaimInput[] {
    if (this.claimsOf?.generation !== this.generation) this.claimsOf = { generation: this.generation, claims: this.index.claims() };
    return this.claimsOf.claims;
  }

  /** Applies library changes announced since the last batch (and every minute regardless). */
  async ensureCurrent(): Promise<void> {
    const notice = await currentNotice(this.state, 'threat-intel');
    if (this.version !== null && notice === this.notice && Date.now() - this.checkedAt < BACKSTOP_MS) return;
    this.loading ??= this.refresh(notice).finally(() => (this.loading = null));
    await this.loading;
  }

  private async refresh(notice: string | null): Promise<void> {
    const started = performance.now();
    const rows = await loadClaimStates(this.store, this.version === null ? undefined : this.version > SKEW_MICROS ? this.version - SKEW_MICROS : 0n);
    // Rows re-read within SKEW_MICROS are already applied: put and remove ignore them.
    let changes = 0;
    for (const row of rows) {
      const version = BigInt(row.row_version);
      if (this.version === null || version > this.version) this.version = version;
      if (Number(row.is_deleted) === 1) changes += Number(this.index.remove(row.org_id, row.indicator_id, row.subscription_id, version));
      else if (row.matchable) changes += Number(this.index.put(claimInput(row)));
    }
    this.version ??= 0n;
    if (changes > 0) {
      this.generation++;
      this.names = await subscriptionNames(this.store);
    }
    this.notice = notice;
    this.checkedAt = Date.now();
    if (changes > 0) this.logger.info({ changes, indicators: this.index.size, ms: Math.round(performance.now() - started) }, 'threat intel indicators loaded');
  }
}

const matchers = new WeakMap<Store, IntelMatcher>();

/** The process's matcher over this store (one per process, shared by the stages that call it). */
export function intelMatcher(parts: { store: Store; state: HotState; logger: Logger }): IntelMatcher {
  let matcher = matchers.get(parts.store);
  if (!matcher) {
    matcher = new IntelMatcher(parts.store, parts.state, parts.logger);
    matchers.set(parts.store, matcher);
  }
  return matcher;
}

/**
 * Hits of one window accumulate across batches in hot state (idempotent sets
 * of artifact and node ids), so the window's observation always names every
 * artifact seen so far, and a replayed event does not count twice.
 */
async function accumulate(state: HotState, group: HitGroup): Promise<HitGroup> {
  const base = `intel:${group.orgId}:${group.indicatorId}:${group.windowStart}`;
  const ttl = 3 * 3_600_000;
  await addToWindow(
    state,
    base,
    ttl,
    group.hits.map(({ hit, at }) => ({ artifactId: hit.event.artifact_id, at, nodeIds: hit.event.entities.map((e) => e.id) })),
  );
  const [stats, { artifactIds, nodeIds }] = await Promise.all([state.windowStats(`${base}:artifacts`), windowIds(state, base)]);
  if (!stats) return group;
  return { ...group, count: stats.count, firstSeen: stats.first, lastSeen: stats.last, artifactIds, nodeIds };
}

type MatcherParts = { store: Store; state: HotState; logger: Logger };

/**
 * What the pipeline calls (pipeline/stage.ts EventMatching): the staged rule
 * stage matches here, the analysis stage on its workers with copies of the
 * index (worker-matching.ts), each making the same records of its hits.
 */
export function intelMatching(parts: MatcherParts): EventMatching {
  return {
    async findings(events) {
      const matcher = intelMatcher(parts);
      await matcher.ensureCurrent();
      return recordsOf(parts, matcher.index.match(events));
    },
    workerModule: new URL('./worker-matching.js', import.meta.url).href,
    async current() {
      const matcher = intelMatcher(parts);
      await matcher.ensureCurrent();
      return { generation: matcher.generation, data: () => matcher.claims() };
    },
    fromHits(hits) {
      return recordsOf(
        parts,
        hits.map(({ event, hit }) => ({ event, ...(hit as WorkerIntelHit) })),
      );
    },
  };
}

/**
 * The intel observations, leads and sightings of a batch's hits. Sightings
 * are written here; the caller writes the records with the lead rules' and
 * publishes the leads.
 */
async function recordsOf(parts: MatcherParts, hits: IntelHit[]): Promise<FindingRecord[]> {
  if (hits.length === 0) return [];
  const matcher = intelMatcher(parts);
  const now = new Date().toISOString();
  const groups = groupHits(hits, false);
  // Each group is its own window in hot state: they accumulate side by side.
  const records = await Promise.all(groups.map(async (group) => intelRecord(await accumulate(parts.state, group), matcher.feedName, now)));
  await saveSightings(parts.store, sightingsOf(groups));
  return records;
}
