// The api_keys table: keys for sensors and scripts. Only a hash of each
// secret is stored; the secret is shown once, when the key is made.
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export interface ApiKey {
  id: string;
  org_id: string;
  user_id: string;
  name: string;
  permissions: string[];
  secret_hash: string;
  expires_at: string | null;
  revoked_at: string | null;
  created_at: string;
  last_used_at: string | null;
}

const ApiKeyRow = z.object({
  id: z.string(),
  org_id: z.string(),
  user_id: z.string(),
  name: z.string(),
  permissions: z.array(z.string()),
  secret_hash: z.string(),
  expires_at: z.string().nullable(),
  revoked_at: z.string().nullable(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
});

const SELECT = `SELECT k.id AS id, k.org_id AS org_id, k.user_id AS user_id, k.name AS name, k.permissions AS permissions, k.secret_hash AS secret_hash,
  k.expires_at AS expires_at, k.revoked_at AS revoked_at, k.created_at AS created_at,
  if(u.key_id = toUUID('00000000-0000-0000-0000-000000000000'), NULL, u.last_used_at) AS last_used_at
FROM (SELECT * FROM api_keys FINAL) AS k
LEFT JOIN (SELECT key_id, max(last_used_at) AS last_used_at FROM api_key_uses GROUP BY key_id) AS u ON u.key_id = k.id`;

const orNull = (value: string | null) => (value ? toIsoTimestamp(value) : null);

function fromRow(row: unknown): ApiKey {
  const r = ApiKeyRow.parse(row);
  return { ...r, expires_at: orNull(r.expires_at), revoked_at: orNull(r.revoked_at), created_at: toIsoTimestamp(r.created_at), last_used_at: orNull(r.last_used_at) };
}

export async function saveApiKey(store: Store, key: ApiKey): Promise<void> {
  const { last_used_at: _lastUsed, ...row } = key;
  await store.insert({ table: 'api_keys', format: 'JSONEachRow', values: [{ ...row, version: nextVersion(), is_deleted: 0 }] });
}

export async function recordKeyUse(store: Store, key: Pick<ApiKey, 'org_id' | 'id'>, at: string): Promise<void> {
  await store.insert({ table: 'api_key_uses', format: 'JSONEachRow', values: [{ org_id: key.org_id, key_id: key.id, last_used_at: at }] });
}

/** A key by id; without an organization, the one it belongs to (a bearer key names no organization). */
export async function getApiKey(store: Store, orgId: string | null, id: string): Promise<ApiKey | null> {
  const params = new SqlParams();
  const where = [`k.id = ${params.add(id, 'UUID')}`];
  if (orgId !== null) where.push(`k.org_id = ${params.add(orgId, 'String')}`);
  const rows = await queryRows(store, `${SELECT} ${whereClause(where)}`, params);
  return rows[0] ? fromRow(rows[0]) : null;
}

/** Keys not yet revoked, of one user (to revoke them with the user). */
export async function liveKeysOf(store: Store, orgId: string, userId: string): Promise<ApiKey[]> {
  const params = new SqlParams();
  return (await queryRows(store, `${SELECT} WHERE k.org_id = ${params.add(orgId, 'String')} AND k.user_id = ${params.add(userId, 'UUID')} AND k.revoked_at IS NULL`, params)).map(fromRow);
}

export interface ApiKeyFilter extends Page {
  userId?: string;
  /** Include revoked keys (default: only live ones). */
  revoked?: boolean;
}

export async function listApiKeys(store: Store, orgId: string, filter: ApiKeyFilter): Promise<{ keys: ApiKey[]; total: number }> {
  const params = new SqlParams();
  const where = [`k.org_id = ${params.add(orgId, 'String')}`];
  if (filter.userId) where.push(`k.user_id = ${params.add(filter.userId, 'UUID')}`);
  if (!filter.revoked) where.push('k.revoked_at IS NULL');
  const { rows, total } = await queryPage(store, { query: `${SELECT} ${whereClause(where)}`, params, orderBy: 'created_at DESC, id', page: filter });
  return { keys: rows.map(fromRow), total };
}
