// The indicator library: each feed's claim on an indicator (one row per
// indicator and feed), merged per indicator when read; and the sightings of
// indicators in our data. The current score of a claim is computed where it
// is read, here in SQL and at ingest in threatintel/decay.ts: the two must
// stay the same formula.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export interface ClaimRow {
  org_id: string;
  indicator_id: string;
  subscription_id: string;
  type: string;
  value: string;
  matchable: boolean;
  note: string;
  source_ref: string;
  confidence: number;
  labels: string[];
  valid_from: string;
  valid_until: string | null;
  asserted_at: string;
  expires_at: string;
  decay_speed: number;
  score_threshold: number;
  content_hash: string;
  first_seen_at: string;
  updated_at: string;
}

const time = (iso: string) => toClickHouseTime(iso);

/** Writes claims as their newest versions (added and changed alike). */
export async function saveClaims(store: Store, claims: ClaimRow[]): Promise<void> {
  if (claims.length === 0) return;
  await store.insert({
    table: 'threatfeed_indicators',
    format: 'JSONEachRow',
    values: claims.map((c) => ({
      ...c,
      valid_from: time(c.valid_from),
      valid_until: c.valid_until ? time(c.valid_until) : null,
      asserted_at: time(c.asserted_at),
      expires_at: time(c.expires_at),
      first_seen_at: time(c.first_seen_at),
      updated_at: time(c.updated_at),
      version: nextVersion(),
      is_deleted: 0,
    })),
  });
}

/** Deletes claims of one feed (revoked, withdrawn, no longer listed, or the subscription deleted). */
export async function deleteClaims(store: Store, orgId: string, subscriptionId: string, claims: { indicator_id: string; type: string; value: string }[]): Promise<void> {
  if (claims.length === 0) return;
  const now = time(new Date().toISOString());
  await store.insert({
    table: 'threatfeed_indicators',
    format: 'JSONEachRow',
    values: claims.map((c) => ({ org_id: orgId, indicator_id: c.indicator_id, subscription_id: subscriptionId, type: c.type, value: c.value, updated_at: now, valid_from: now, asserted_at: now, expires_at: now, first_seen_at: now, version: nextVersion(), is_deleted: 1 })),
  });
}

export interface ExistingClaim {
  indicator_id: string;
  type: string;
  value: string;
  source_ref: string;
  content_hash: string;
  asserted_at: string;
  first_seen_at: string;
}

/** Every live claim of one feed, to tell added from changed and to find what a snapshot no longer lists. */
export async function claimsOfSubscription(store: Store, orgId: string, subscriptionId: string): Promise<ExistingClaim[]> {
  const params = new SqlParams();
  const rows = (await queryRows(
    store,
    `SELECT toString(indicator_id) AS iid, type, value, source_ref, content_hash, asserted_at, first_seen_at FROM threatfeed_indicators FINAL
     WHERE org_id = ${params.add(orgId, 'String')} AND subscription_id = ${params.add(subscriptionId, 'UUID')}`,
    params,
  )) as (Omit<ExistingClaim, 'indicator_id'> & { iid: string })[];
  return rows.map(({ iid, ...r }) => ({ ...r, indicator_id: iid, asserted_at: toIsoTimestamp(r.asserted_at), first_seen_at: toIsoTimestamp(r.first_seen_at) }));
}

/** Claims of one feed that expired in (since, now]: the job's `expired` count. */
export async function countExpired(store: Store, orgId: string, subscriptionId: string, since: string): Promise<number> {
  const params = new SqlParams();
  const rows = await queryRows(
    store,
    `SELECT count() AS n FROM threatfeed_indicators FINAL WHERE org_id = ${params.add(orgId, 'String')} AND subscription_id = ${params.add(subscriptionId, 'UUID')}
     AND expires_at <= now64(3) AND expires_at > ${params.add(time(since), 'DateTime64(3)')}`,
    params,
  );
  return Number((rows[0] as { n: string }).n);
}

/** What the matcher holds of a claim. */
export interface ClaimState {
  org_id: string;
  indicator_id: string;
  subscription_id: string;
  type: string;
  value: string;
  matchable: boolean;
  confidence: number;
  labels: string[];
  valid_from: string;
  asserted_at: string;
  expires_at: string;
  decay_speed: number;
  score_threshold: number;
  /** The row version (aliased: in ClickHouse an alias shadows the column of its name in WHERE). */
  row_version: string;
  is_deleted: number;
}

const CLAIM_STATE = `org_id, toString(indicator_id) AS indicator_id, toString(subscription_id) AS subscription_id, type, value, matchable, confidence, labels,
  toUnixTimestamp64Milli(valid_from) AS valid_from, toUnixTimestamp64Milli(asserted_at) AS asserted_at, toUnixTimestamp64Milli(expires_at) AS expires_at,
  decay_speed, score_threshold, toString(version) AS row_version, is_deleted`;

/**
 * Claims for the in-memory index. Without `afterVersion`: every current
 * claim. With it: every version written after it, deletions included, oldest
 * first (rows are not merged yet, so each change is there to apply).
 */
export async function loadClaimStates(store: Store, afterVersion?: bigint): Promise<ClaimState[]> {
  const params = new SqlParams();
  const query =
    afterVersion === undefined
      ? `SELECT ${CLAIM_STATE} FROM threatfeed_indicators FINAL WHERE matchable`
      : `SELECT ${CLAIM_STATE} FROM threatfeed_indicators WHERE version > ${params.add(afterVersion.toString(), 'UInt64')} ORDER BY version`;
  return (await queryRows(store, query, params)) as ClaimState[];
}

/** The score of a claim now: the decay model of threatintel/decay.ts in SQL. */
const SCORE = `if(now64(3) >= expires_at, 0, if(now64(3) <= asserted_at, toFloat64(confidence),
  confidence * greatest(0, 1 - pow(dateDiff('millisecond', asserted_at, now64(3)) / greatest(1, dateDiff('millisecond', asserted_at, expires_at)), 1 / decay_speed))))`;

export const LIBRARY_STATUSES = ['active', 'expired', 'decayed', 'pending', 'not_matched'] as const;
export type LibraryStatus = (typeof LIBRARY_STATUSES)[number];

export interface LibraryFilter extends Page {
  type?: string;
  subscriptionId?: string;
  /** Exact value, value prefix, or an address that lies inside the indicator (an equal address or a CIDR holding it). */
  value?: { exact: string } | { prefix: string } | { address: string };
  status?: LibraryStatus;
  /** true: seen in our data at least once; false: never. */
  seen?: boolean;
  ids?: string[];
}

export interface LibraryClaim {
  subscription_id: string;
  confidence: number;
  labels: string[];
  valid_from: string;
  valid_until: string | null;
  expires_at: string;
  score: number;
  live: boolean;
  note: string;
  source_ref: string;
}

export interface LibraryRow {
  id: string;
  type: string;
  value: string;
  matchable: boolean;
  status: LibraryStatus;
  score: number;
  claims: LibraryClaim[];
  hit_count: number;
  last_hit_at: string | null;
  first_seen_at: string;
  updated_at: string;
}

const Row = z.object({
  id: z.string(),
  ind_type: z.string(),
  ind_value: z.string(),
  any_matchable: z.coerce.number(),
  ind_status: z.enum(LIBRARY_STATUSES),
  best_score: z.coerce.number(),
  c_feed: z.array(z.string()),
  c_confidence: z.array(z.coerce.number()),
  c_labels: z.array(z.array(z.string())),
  c_valid_from: z.array(z.string()),
  c_valid_until: z.array(z.string().nullable()),
  c_expires: z.array(z.string()),
  c_score: z.array(z.coerce.number()),
  c_live: z.array(z.coerce.number()),
  c_note: z.array(z.string()),
  c_ref: z.array(z.string()),
  hits: z.coerce.number().nullable(),
  last_hit: z.string().nullable(),
  first_seen: z.string(),
  last_updated: z.string(),
});

function fromRow(row: unknown): LibraryRow {
  const r = Row.parse(row);
  return {
    id: r.id,
    type: r.ind_type,
    value: r.ind_value,
    matchable: r.any_matchable === 1,
    status: r.ind_status,
    score: Math.round(r.best_score * 10) / 10,
    claims: r.c_feed.map((feed, i) => ({
      subscription_id: feed,
      confidence: r.c_confidence[i]!,
      labels: r.c_labels[i]!,
      valid_from: toIsoTimestamp(r.c_valid_from[i]!),
      valid_until: r.c_valid_until[i] ? toIsoTimestamp(r.c_valid_until[i]!) : null,
      expires_at: toIsoTimestamp(r.c_expires[i]!),
      score: Math.round(r.c_score[i]! * 10) / 10,
      live: r.c_live[i] === 1,
      note: r.c_note[i]!,
      source_ref: r.c_ref[i]!,
    })),
    hit_count: r.hits ?? 0,
    last_hit_at: r.last_hit ? toIsoTimestamp(r.last_hit) : null,
    first_seen_at: toIsoTimestamp(r.first_seen),
    updated_at: toIsoTimestamp(r.last_updated),
  };
}

/** Library entries (claims merged per indicator) with their status, score and hits; most recently changed first. */
export async function listLibrary(store: Store, orgId: string, filter: LibraryFilter): Promise<{ entries: LibraryRow[]; total: number }> {
  const params = new SqlParams();
  const org = params.add(orgId, 'String');
  const inner = [`org_id = ${org}`];
  if (filter.type) inner.push(`type = ${params.add(filter.type, 'String')}`);
  if (filter.ids) inner.push(`indicator_id IN ${params.add(filter.ids, 'Array(UUID)')}`);
  if (filter.value && 'exact' in filter.value) inner.push(`value = ${params.add(filter.value.exact, 'String')}`);
  if (filter.value && 'prefix' in filter.value) inner.push(`startsWith(value, ${params.add(filter.value.prefix, 'String')})`);
  if (filter.value && 'address' in filter.value) {
    const address = params.add(filter.value.address, 'String');
    inner.push(`value = ${address} OR if(type IN ('ipv4-cidr', 'ipv6-cidr'), isIPAddressInRange(${address}, value), 0)`);
  }
  if (filter.subscriptionId) {
    inner.push(`indicator_id IN (SELECT indicator_id FROM threatfeed_indicators FINAL WHERE org_id = ${org} AND subscription_id = ${params.add(filter.subscriptionId, 'UUID')})`);
  }
  const outer: string[] = [];
  if (filter.status) outer.push(`ind_status = ${params.add(filter.status, 'String')}`);
  if (filter.seen !== undefined) outer.push(filter.seen ? 'hits > 0' : '(hits IS NULL OR hits = 0)');
  const query = `SELECT * FROM (
    SELECT lib.*, s.hits AS hits, s.last_hit AS last_hit FROM (
      SELECT toString(indicator_id) AS id, any(type) AS ind_type, any(value) AS ind_value, max(matchable) AS any_matchable,
        multiIf(any_matchable = 0, 'not_matched', max(live) = 1, 'active', now64(3) >= max(expires_at), 'expired', now64(3) < min(valid_from), 'pending', 'decayed') AS ind_status,
        max(score) AS best_score,
        groupArray(toString(subscription_id)) AS c_feed, groupArray(confidence) AS c_confidence, groupArray(labels) AS c_labels,
        groupArray(valid_from) AS c_valid_from, groupArray(valid_until) AS c_valid_until, groupArray(expires_at) AS c_expires,
        groupArray(score) AS c_score, groupArray(live) AS c_live, groupArray(note) AS c_note, groupArray(source_ref) AS c_ref,
        min(first_seen_at) AS first_seen, max(updated_at) AS last_updated
      FROM (
        SELECT *, ${SCORE} AS score,
          toUInt8(matchable AND now64(3) < expires_at AND now64(3) >= valid_from AND score >= score_threshold) AS live
        FROM threatfeed_indicators FINAL ${whereClause(inner)}
      )
      GROUP BY indicator_id
    ) AS lib
    LEFT JOIN (SELECT toString(indicator_id) AS sid, uniqExact(artifact_id) AS hits, max(seen_at) AS last_hit FROM threatfeed_sightings WHERE org_id = ${org} GROUP BY indicator_id) AS s
      ON s.sid = lib.id
  ) ${whereClause(outer)}`;
  const { rows, total } = await queryPage(store, { query, params, orderBy: 'last_updated DESC, id', page: filter, settings: { join_use_nulls: 1 } });
  return { entries: rows.map(fromRow), total };
}

export interface SightingRow {
  org_id: string;
  indicator_id: string;
  artifact_id: string;
  seen_at: string;
  field: string;
  observation_id: string;
  retrospective: boolean;
}

export async function saveSightings(store: Store, sightings: SightingRow[]): Promise<void> {
  if (sightings.length === 0) return;
  await store.insert({
    table: 'threatfeed_sightings',
    format: 'JSONEachRow',
    values: sightings.map((s) => ({ ...s, seen_at: time(s.seen_at), version: nextVersion() })),
  });
}

/** The most recent sightings of each indicator, at most `perIndicator` each. */
export async function recentSightings(store: Store, orgId: string, indicatorIds: string[], perIndicator: number): Promise<Map<string, Omit<SightingRow, 'org_id'>[]>> {
  const found = new Map<string, Omit<SightingRow, 'org_id'>[]>();
  if (indicatorIds.length === 0) return found;
  const params = new SqlParams();
  const rows = (await queryRows(
    store,
    `SELECT toString(indicator_id) AS iid, toString(artifact_id) AS aid, seen_at, field, toString(observation_id) AS oid, retrospective
     FROM threatfeed_sightings FINAL WHERE org_id = ${params.add(orgId, 'String')} AND indicator_id IN ${params.add(indicatorIds, 'Array(UUID)')}
     ORDER BY seen_at DESC LIMIT ${params.add(perIndicator, 'UInt32')} BY indicator_id`,
    params,
  )) as { iid: string; aid: string; seen_at: string; field: string; oid: string; retrospective: boolean | number }[];
  for (const r of rows) {
    const list = found.get(r.iid) ?? [];
    list.push({ indicator_id: r.iid, artifact_id: r.aid, seen_at: toIsoTimestamp(r.seen_at), field: r.field, observation_id: r.oid, retrospective: Boolean(r.retrospective) });
    found.set(r.iid, list);
  }
  return found;
}
