// The users table (SPEC 2.8): rows, writes and named queries. A user's
// password hash never leaves this module and identity/ (see toPublicUser).
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export const USER_SOURCES = ['local', 'ldap', 'saml'] as const;
export type UserSource = (typeof USER_SOURCES)[number];

export interface User {
  id: string;
  org_id: string;
  email: string;
  name: string;
  role_id: string;
  active: boolean;
  password_hash: string;
  source: UserSource;
  external_id: string;
  created_at: string;
  updated_at: string;
  last_login: string | null;
}

const UserRow = z.object({
  id: z.string(),
  org_id: z.string(),
  email: z.string(),
  name: z.string(),
  role_id: z.string(),
  active: z.boolean(),
  password_hash: z.string(),
  source: z.enum(USER_SOURCES),
  external_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  last_login: z.string().nullable(),
});

const SELECT = `SELECT u.id AS id, u.org_id AS org_id, u.email AS email, u.name AS name, u.role_id AS role_id, u.active AS active,
  u.password_hash AS password_hash, u.source AS source, u.external_id AS external_id, u.created_at AS created_at, u.updated_at AS updated_at,
  if(l.user_id = toUUID('00000000-0000-0000-0000-000000000000'), NULL, l.last_login) AS last_login
FROM (SELECT * FROM users FINAL) AS u
LEFT JOIN (SELECT user_id, max(last_login) AS last_login FROM user_logins WHERE org_id = {org:String} GROUP BY user_id) AS l ON l.user_id = u.id`;

function fromRow(row: unknown): User {
  const r = UserRow.parse(row);
  return { ...r, created_at: toIsoTimestamp(r.created_at), updated_at: toIsoTimestamp(r.updated_at), last_login: r.last_login ? toIsoTimestamp(r.last_login) : null };
}

async function insertVersion(store: Store, user: User, isDeleted: boolean): Promise<void> {
  const { last_login: _lastLogin, ...row } = user;
  await store.insert({ table: 'users', format: 'JSONEachRow', values: [{ ...row, version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }] });
}

export async function saveUser(store: Store, user: User): Promise<void> {
  await insertVersion(store, user, false);
}

export async function deleteUser(store: Store, user: User): Promise<void> {
  await insertVersion(store, { ...user, updated_at: new Date().toISOString() }, true);
}

export async function recordLogin(store: Store, user: User, at: string): Promise<void> {
  await store.insert({ table: 'user_logins', format: 'JSONEachRow', values: [{ org_id: user.org_id, user_id: user.id, last_login: at }] });
}

async function selectUsers(store: Store, orgId: string, condition: string, params: SqlParams): Promise<User[]> {
  params.values.org = orgId;
  return (await queryRows(store, `${SELECT} WHERE u.org_id = {org:String} AND ${condition}`, params)).map(fromRow);
}

export async function getUser(store: Store, orgId: string, id: string): Promise<User | null> {
  const params = new SqlParams();
  return (await selectUsers(store, orgId, `u.id = ${params.add(id, 'UUID')}`, params))[0] ?? null;
}

/** How to name each of these users to a person (name, else email), by id; ids that are no user (API keys, services) are left out. */
export async function userLabels(store: Store, orgId: string, ids: string[]): Promise<Map<string, string>> {
  const userIds = [...new Set(ids)].filter((id) => UUID_TEXT.test(id));
  if (userIds.length === 0) return new Map();
  const params = new SqlParams();
  const users = await selectUsers(store, orgId, `u.id IN ${params.add(userIds, 'Array(UUID)')}`, params);
  return new Map(users.map((u) => [u.id, u.name || u.email]));
}

const UUID_TEXT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findUserByEmail(store: Store, orgId: string, email: string): Promise<User | null> {
  const params = new SqlParams();
  return (await selectUsers(store, orgId, `u.email = ${params.add(email.toLowerCase(), 'String')}`, params))[0] ?? null;
}

export async function countUsers(store: Store, orgId: string): Promise<number> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT count() AS n FROM users FINAL WHERE org_id = ${params.add(orgId, 'String')}`, params);
  return Number((rows[0] as { n: string }).n);
}

/** Active users holding one of `roleIds` (to protect the last admin). */
export async function countActiveUsersWithRoles(store: Store, orgId: string, roleIds: string[]): Promise<number> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT count() AS n FROM users FINAL WHERE org_id = ${params.add(orgId, 'String')} AND active AND role_id IN ${params.add(roleIds, 'Array(UUID)')}`, params);
  return Number((rows[0] as { n: string }).n);
}

export async function usersWithRole(store: Store, orgId: string, roleId: string): Promise<User[]> {
  const params = new SqlParams();
  return selectUsers(store, orgId, `u.role_id = ${params.add(roleId, 'UUID')}`, params);
}

export interface UserFilter extends Page {
  roleId?: string;
  active?: boolean;
  /** Case-insensitive substring of email or name. */
  q?: string;
}

export async function listUsers(store: Store, orgId: string, filter: UserFilter): Promise<{ users: User[]; total: number }> {
  const params = new SqlParams();
  params.values.org = orgId;
  const where = ['u.org_id = {org:String}'];
  if (filter.roleId) where.push(`u.role_id = ${params.add(filter.roleId, 'UUID')}`);
  if (filter.active !== undefined) where.push(`u.active = ${params.add(filter.active, 'Bool')}`);
  if (filter.q) {
    const q = params.add(filter.q, 'String');
    where.push(`positionCaseInsensitiveUTF8(u.email, ${q}) > 0 OR positionCaseInsensitiveUTF8(u.name, ${q}) > 0`);
  }
  const { rows, total } = await queryPage(store, { query: `${SELECT} ${whereClause(where)}`, params, orderBy: 'email, id', page: filter });
  return { users: rows.map(fromRow), total };
}
