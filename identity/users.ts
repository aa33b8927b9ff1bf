// What may be done to users, whoever asks (API, CLI, first start, LDAP and
// SAML provisioning): emails unique per organization, at least one active
// admin left, and revocation that takes effect now. The store has no unique
// constraints, so checks and writes run under a short lock in hot state.
import type { Store } from '../clickhouse/client.js';
import { countActiveUsersWithRoles, deleteUser, findUserByEmail, getUser, saveUser, type User, type UserSource } from '../clickhouse/tables/users.js';
import { newId } from '../lib/ids.js';
import { LockBusy, withLock } from '../pipeline/state/lock.js';
import type { HotState } from '../pipeline/state/types.js';
import { refreshKeysOf, revokeKeysOf } from './api-keys.js';
import { hashPassword } from './passwords.js';
import { adminRoleIds, findRole, type Role } from './roles.js';
import { Sessions } from './sessions.js';

export class IdentityConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IdentityConflict';
  }
}

export class UnknownRole extends Error {
  constructor(roleId: string) {
    super(`role ${roleId} does not exist`);
    this.name = 'UnknownRole';
  }
}

export interface Directory {
  store: Store;
  state: HotState;
  sessions: Sessions;
  kdfCost: number;
}

const LOCK_MS = 10_000;

/** Runs `work` holding the organization's user lock (waits up to 10 s for it). */
async function underLock<T>(dir: Directory, orgId: string, work: () => Promise<T>): Promise<T> {
  try {
    return await withLock(dir.state, `lock:users:${orgId}`, { leaseMs: LOCK_MS, waitMs: LOCK_MS }, work);
  } catch (err) {
    if (err instanceof LockBusy) throw new Error('user directory is busy; try again');
    throw err;
  }
}

export interface NewUser {
  orgId: string;
  email: string;
  name: string;
  roleId: string;
  active?: boolean;
  password?: string;
  source?: UserSource;
  externalId?: string;
}

export async function createUser(dir: Directory, request: NewUser): Promise<User> {
  const role = await findRole(dir.store, request.orgId, request.roleId);
  if (!role) throw new UnknownRole(request.roleId);
  const password_hash = request.password ? await hashPassword(request.password, dir.kdfCost) : '';
  return underLock(dir, request.orgId, async () => {
    const email = request.email.toLowerCase();
    if (await findUserByEmail(dir.store, request.orgId, email)) throw new IdentityConflict(`a user with email ${email} already exists`);
    const now = new Date().toISOString();
    const user: User = {
      id: newId(),
      org_id: request.orgId,
      email,
      name: request.name,
      role_id: role.id,
      active: request.active ?? true,
      password_hash,
      source: request.source ?? 'local',
      external_id: request.externalId ?? '',
      created_at: now,
      updated_at: now,
      last_login: null,
    };
    await saveUser(dir.store, user);
    return user;
  });
}

export interface UserChange {
  name?: string;
  email?: string;
  roleId?: string;
  active?: boolean;
  password?: string;
  externalId?: string;
}

/** Applies a change; ends the user's sessions when it touches role, activity or password. */
export async function updateUser(dir: Directory, orgId: string, id: string, change: UserChange): Promise<{ before: User; after: User } | null> {
  const role = change.roleId === undefined ? null : await findRole(dir.store, orgId, change.roleId);
  if (change.roleId !== undefined && !role) throw new UnknownRole(change.roleId);
  const password_hash = change.password ? await hashPassword(change.password, dir.kdfCost) : undefined;
  const result = await underLock(dir, orgId, async () => {
    const before = await getUser(dir.store, orgId, id);
    if (!before) return null;
    const email = change.email?.toLowerCase();
    if (email && email !== before.email && (await findUserByEmail(dir.store, orgId, email))) throw new IdentityConflict(`a user with email ${email} already exists`);
    const after: User = {
      ...before,
      name: change.name ?? before.name,
      email: email ?? before.email,
      role_id: role?.id ?? before.role_id,
      active: change.active ?? before.active,
      password_hash: password_hash ?? before.password_hash,
      external_id: change.externalId ?? before.external_id,
      updated_at: new Date().toISOString(),
    };
    const same = (['name', 'email', 'role_id', 'active', 'password_hash', 'external_id'] as const).every((field) => after[field] === before[field]);
    if (same) return { before, after: before };
    await keepAnAdmin(dir, orgId, before, after);
    await saveUser(dir.store, after);
    return { before, after };
  });
  if (result) await revokeIfNeeded(dir, result.before, result.after);
  return result;
}

export async function removeUser(dir: Directory, orgId: string, id: string): Promise<User | null> {
  const removed = await underLock(dir, orgId, async () => {
    const user = await getUser(dir.store, orgId, id);
    if (!user) return null;
    await keepAnAdmin(dir, orgId, user, null);
    await deleteUser(dir.store, user);
    return user;
  });
  if (removed) {
    await dir.sessions.endAllOf(removed.id);
    await revokeKeysOf(dir.store, dir.state, orgId, removed.id);
  }
  return removed;
}

/** 409 when the change would leave the organization without an active admin. */
async function keepAnAdmin(dir: Directory, orgId: string, before: User, after: User | null): Promise<void> {
  const adminRoles = await adminRoleIds(dir.store, orgId);
  const wasAdmin = before.active && adminRoles.includes(before.role_id);
  const staysAdmin = after !== null && after.active && adminRoles.includes(after.role_id);
  if (!wasAdmin || staysAdmin) return;
  if ((await countActiveUsersWithRoles(dir.store, orgId, adminRoles)) <= 1) {
    const what = after === null ? 'delete' : !after.active ? 'deactivate' : 'take the admin role from';
    throw new IdentityConflict(`cannot ${what} the last active admin: make another user admin first`);
  }
}

async function revokeIfNeeded(dir: Directory, before: User, after: User): Promise<void> {
  const credentialsChanged = before.password_hash !== after.password_hash;
  if (!after.active && before.active) {
    await dir.sessions.endAllOf(after.id);
    await revokeKeysOf(dir.store, dir.state, after.org_id, after.id);
  } else if (before.role_id !== after.role_id || credentialsChanged) {
    await dir.sessions.endAllOf(after.id);
    await refreshKeysOf(dir.store, dir.state, after.org_id, after.id);
  }
}

/** Ends the sessions of everyone holding a role whose permissions changed. */
export async function roleChanged(dir: Directory, orgId: string, holders: User[]): Promise<void> {
  for (const user of holders) {
    await dir.sessions.endAllOf(user.id);
    await refreshKeysOf(dir.store, dir.state, orgId, user.id);
  }
}

/** The user as the API shows it: no password hash. */
export interface PublicUser {
  id: string;
  email: string;
  name: string;
  role_id: string;
  role_name: string;
  active: boolean;
  last_login: string | null;
  source: UserSource;
  created_at: string;
  updated_at: string;
}

export function toPublicUser(user: User, role: Role | null): PublicUser {
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    role_id: user.role_id,
    role_name: role?.name ?? '(deleted role)',
    active: user.active,
    last_login: user.last_login,
    source: user.source,
    created_at: user.created_at,
    updated_at: user.updated_at,
  };
}
