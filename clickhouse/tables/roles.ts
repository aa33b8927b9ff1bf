// The roles table: custom roles of an organization. The built-in roles
// (identity/roles.ts) are not stored; they are the same everywhere.
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { queryRows, SqlParams } from '../sql.js';
import { nextVersion } from '../version.js';

export interface StoredRole {
  id: string;
  org_id: string;
  name: string;
  description: string;
  permissions: string[];
  created_at: string;
  updated_at: string;
}

const RoleRow = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string(),
  permissions: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string(),
});

const COLUMNS = 'id, org_id, name, description, permissions, created_at, updated_at';

function fromRow(row: unknown): StoredRole {
  const r = RoleRow.parse(row);
  return { ...r, created_at: toIsoTimestamp(r.created_at), updated_at: toIsoTimestamp(r.updated_at) };
}

async function insertVersion(store: Store, role: StoredRole, isDeleted: boolean): Promise<void> {
  await store.insert({ table: 'roles', format: 'JSONEachRow', values: [{ ...role, version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }] });
}

export async function saveRole(store: Store, role: StoredRole): Promise<void> {
  await insertVersion(store, role, false);
}

export async function deleteRole(store: Store, role: StoredRole): Promise<void> {
  await insertVersion(store, { ...role, updated_at: new Date().toISOString() }, true);
}

export async function listStoredRoles(store: Store, orgId: string): Promise<StoredRole[]> {
  const params = new SqlParams();
  return (await queryRows(store, `SELECT ${COLUMNS} FROM roles FINAL WHERE org_id = ${params.add(orgId, 'String')} ORDER BY name, id`, params)).map(fromRow);
}

export async function getStoredRole(store: Store, orgId: string, id: string): Promise<StoredRole | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT ${COLUMNS} FROM roles FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')}`, params);
  return rows[0] ? fromRow(rows[0]) : null;
}
