// First start: an organization without users gets an admin, from
// CAIRN_ADMIN_EMAIL / CAIRN_ADMIN_PASSWORD or with a generated password that
// is printed once. Later starts leave users alone.
import type { IdentityConfig } from '../config/env.js';
import { countUsers } from '../clickhouse/tables/users.js';
import { generatePassword } from './passwords.js';
import { ADMIN_ROLE_ID } from './roles.js';
import { createUser, IdentityConflict, type Directory } from './users.js';

export const DEFAULT_ADMIN_EMAIL = 'admin@cairn.local';

export interface FirstAdmin {
  email: string;
  /** Set when cairn made the password up: show it once, it is stored only as a hash. */
  generatedPassword: string | null;
}

export async function ensureFirstAdmin(dir: Directory, orgId: string, config: Pick<IdentityConfig, 'adminEmail' | 'adminPassword'>): Promise<FirstAdmin | null> {
  if ((await countUsers(dir.store, orgId)) > 0) return null;
  const email = config.adminEmail ?? DEFAULT_ADMIN_EMAIL;
  const password = config.adminPassword ?? generatePassword();
  try {
    await createUser(dir, { orgId, email, name: 'Administrator', roleId: ADMIN_ROLE_ID, password });
  } catch (err) {
    if (err instanceof IdentityConflict) return null; // another process made it first
    throw err;
  }
  return { email, generatedPassword: config.adminPassword ? null : password };
}
