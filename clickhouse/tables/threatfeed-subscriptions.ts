// Threat feed subscriptions: rows, writes and named queries. Settings arrive
// here already sealed (threatintel/feeds.ts).
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export interface StoredSubscription {
  id: string;
  org_id: string;
  name: string;
  kind: 'taxii' | 'misp' | 'stix-bundle' | 'plain' | 'csv';
  url: string;
  /** Kind-specific settings; secrets sealed. */
  settings: Record<string, unknown>;
  enabled: boolean;
  poll_interval_seconds: number;
  /** 0-100, for indicators the feed gives no confidence. */
  confidence: number;
  /** For indicators without valid_until: how long after the feed asserted them they stay valid. */
  lifetime_seconds: number;
  decay_speed: number;
  score_threshold: number;
  created_at: string;
  updated_at: string;
}

const Row = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  kind: z.enum(['taxii', 'misp', 'stix-bundle', 'plain', 'csv']),
  url: z.string(),
  settings: z.string(),
  enabled: z.boolean(),
  poll_interval_seconds: z.coerce.number(),
  confidence: z.coerce.number(),
  lifetime_seconds: z.coerce.number(),
  decay_speed: z.coerce.number(),
  score_threshold: z.coerce.number(),
  created_at: z.string(),
  updated_at: z.string(),
});

const COLUMNS = 'id, org_id, name, kind, url, settings, enabled, poll_interval_seconds, confidence, lifetime_seconds, decay_speed, score_threshold, created_at, updated_at';

function fromRow(row: unknown): StoredSubscription {
  const r = Row.parse(row);
  return { ...r, settings: z.record(z.string(), z.unknown()).parse(JSON.parse(r.settings)), created_at: toIsoTimestamp(r.created_at), updated_at: toIsoTimestamp(r.updated_at) };
}

async function insertVersion(store: Store, subscription: StoredSubscription, isDeleted: boolean): Promise<void> {
  await store.insert({
    table: 'threatfeed_subscriptions',
    format: 'JSONEachRow',
    values: [{ ...subscription, settings: JSON.stringify(subscription.settings), version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }],
  });
}

export async function saveSubscription(store: Store, subscription: StoredSubscription): Promise<void> {
  await insertVersion(store, subscription, false);
}

export async function deleteSubscription(store: Store, subscription: StoredSubscription): Promise<void> {
  await insertVersion(store, { ...subscription, updated_at: new Date().toISOString() }, true);
}

export async function getSubscription(store: Store, orgId: string, id: string): Promise<StoredSubscription | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT ${COLUMNS} FROM threatfeed_subscriptions FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')} LIMIT 1`, params);
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function listSubscriptions(store: Store, orgId: string, page: Page): Promise<{ subscriptions: StoredSubscription[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, {
    query: `SELECT ${COLUMNS} FROM threatfeed_subscriptions FINAL WHERE org_id = ${params.add(orgId, 'String')}`,
    params,
    orderBy: 'created_at DESC, id',
    page,
  });
  return { subscriptions: rows.map(fromRow), total };
}

/** Every subscription of an organization, oldest first (names for library entries, a sync of them all). */
export async function subscriptionsOf(store: Store, orgId: string): Promise<StoredSubscription[]> {
  const params = new SqlParams();
  return (await queryRows(store, `SELECT ${COLUMNS} FROM threatfeed_subscriptions FINAL WHERE org_id = ${params.add(orgId, 'String')} ORDER BY created_at, id`, params)).map(fromRow);
}

/** Every enabled subscription of every organization, for the sync schedule. */
export async function listEnabledSubscriptions(store: Store): Promise<StoredSubscription[]> {
  return (await queryRows(store, `SELECT ${COLUMNS} FROM threatfeed_subscriptions FINAL WHERE enabled ORDER BY org_id, id`, new SqlParams())).map(fromRow);
}

/** Names of every subscription (deleted ones too: their names stay in old findings), by id. */
export async function subscriptionNames(store: Store): Promise<Map<string, string>> {
  const rows = (await queryRows(store, 'SELECT toString(id) AS id, argMax(name, version) AS name FROM threatfeed_subscriptions GROUP BY id', new SqlParams())) as { id: string; name: string }[];
  return new Map(rows.map((r) => [r.id, r.name]));
}
