// Roles: the three built-in roles every organization has, and custom roles
// an admin makes from any subset of the SPEC 5 permissions. A user holds one
// role; the role's permissions go into the user's access tokens.
import type { Store } from '../clickhouse/client.js';
import { getStoredRole, listStoredRoles, type StoredRole } from '../clickhouse/tables/roles.js';
import { stableId } from '../lib/ids.js';
import { PERMISSIONS, type Permission } from './permissions.js';

export interface Role {
  id: string;
  name: string;
  description: string;
  permissions: Permission[];
  builtin: boolean;
}

const READ: Permission[] = ['signals:read', 'observations:read', 'graph:read', 'incidents:read', 'reports:read', 'ai:read', 'threatfeed:read', 'health:read', 'metrics:read'];

const ANALYST: Permission[] = [
  ...READ,
  'settings:read',
  'signals:write',
  'signals:manage',
  'observations:write',
  'graph:write',
  'incidents:write',
  'ai:write',
  'threatfeed:write',
];

function builtin(name: string, description: string, permissions: readonly Permission[]): Role {
  // The same id in every organization and every install, so a role_id in a script or a mapping means one thing.
  return { id: stableId('builtin-role', name), name, description, permissions: [...permissions], builtin: true };
}

export const BUILTIN_ROLES = {
  admin: builtin('admin', 'Every permission, including user, role and settings administration', PERMISSIONS),
  analyst: builtin('analyst', 'Investigates and responds: reads everything, writes observations, graph flags, incidents and lead rules; no administration', ANALYST),
  viewer: builtin('viewer', 'Reads signals, observations, the graph, incidents, reports, threat intelligence, health and metrics; changes nothing', READ),
} as const;

export type BuiltinRoleName = keyof typeof BUILTIN_ROLES;

export const ADMIN_ROLE_ID = BUILTIN_ROLES.admin.id;

function isBuiltinName(name: string): name is BuiltinRoleName {
  return Object.hasOwn(BUILTIN_ROLES, name);
}

/** A built-in role by id or name, else null. */
export function builtinRole(idOrName: string): Role | null {
  if (isBuiltinName(idOrName)) return BUILTIN_ROLES[idOrName];
  return Object.values(BUILTIN_ROLES).find((r) => r.id === idOrName) ?? null;
}

export function customRole(stored: StoredRole): Role {
  return { id: stored.id, name: stored.name, description: stored.description, permissions: stored.permissions.filter(isKnown), builtin: false };
}

export async function findRole(store: Store, orgId: string, id: string): Promise<Role | null> {
  const known = builtinRole(id);
  if (known) return known;
  const stored = await getStoredRole(store, orgId, id);
  return stored ? customRole(stored) : null;
}

export async function listRoles(store: Store, orgId: string): Promise<Role[]> {
  return [...Object.values(BUILTIN_ROLES), ...(await listStoredRoles(store, orgId)).map(customRole)];
}

/** Roles whose holders are administrators: the built-in admin and any custom role with `admin`. */
export async function adminRoleIds(store: Store, orgId: string): Promise<string[]> {
  return (await listRoles(store, orgId)).filter((r) => r.permissions.includes('admin')).map((r) => r.id);
}

function isKnown(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}
