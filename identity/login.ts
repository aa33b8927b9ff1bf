// Who is logging in: local passwords, LDAP binds and SAML assertions all end
// here, in a cairn user (provisioned or updated for LDAP and SAML) or in a
// failure whose reason goes to the auth.failure event and the log, never to
// the client. Local admins can always log in with their password, so a
// broken LDAP or SAML setup cannot lock everyone out.
import type { Store } from '../clickhouse/client.js';
import { findUserByEmail, type User, type UserSource } from '../clickhouse/tables/users.js';
import type { AuthSettings } from './auth-settings.js';
import { ldapLogin, type LdapConfig } from './ldap.js';
import { verifyPassword } from './passwords.js';
import { adminRoleIds, findRole } from './roles.js';
import { createUser, updateUser, type Directory } from './users.js';

export type LoginCheck = { ok: true; user: User; method: UserSource } | { ok: false; reason: string };

export function ldapConfigOf(settings: AuthSettings['ldap']): LdapConfig {
  return {
    serverUrl: settings.server_url,
    bindDn: settings.bind_dn,
    bindPassword: settings.bind_password,
    searchBase: settings.search_base,
    userFilter: settings.user_filter,
    startTls: settings.start_tls,
    tlsRejectUnauthorized: settings.tls_reject_unauthorized,
    caCertificate: settings.ca_certificate || undefined,
    emailAttribute: settings.email_attribute,
    nameAttribute: settings.name_attribute,
    groupAttribute: settings.group_attribute,
    groupSearchBase: settings.group_search_base || undefined,
    timeoutMs: settings.timeout_ms,
  };
}

async function isLocalAdmin(store: Store, user: User | null): Promise<boolean> {
  if (!user || user.source !== 'local' || !user.password_hash) return false;
  return (await adminRoleIds(store, user.org_id)).includes(user.role_id);
}

/** Checks a login name (an email, or a directory user name under LDAP) and password against the configured method. */
export async function checkCredentials(dir: Directory, settings: AuthSettings, orgId: string, login: string, password: string): Promise<LoginCheck> {
  const local = await findUserByEmail(dir.store, orgId, login);
  if (settings.method === 'ldap' && !(await isLocalAdmin(dir.store, local))) return checkLdap(dir, settings.ldap, orgId, login, password);
  if (settings.method !== 'local' && !(await isLocalAdmin(dir.store, local))) {
    // Still pay for a hash, so the answer takes as long as for a real account.
    await verifyPassword(password, null, dir.kdfCost);
    return { ok: false, reason: `method is ${settings.method}: only local admins log in with a password` };
  }
  const matches = await verifyPassword(password, local?.password_hash, dir.kdfCost);
  if (!local) return { ok: false, reason: 'no such user' };
  if (!matches) return { ok: false, reason: local.password_hash ? 'wrong password' : 'user has no local password' };
  if (!local.active) return { ok: false, reason: 'user is deactivated' };
  return { ok: true, user: local, method: 'local' };
}

async function checkLdap(dir: Directory, settings: AuthSettings['ldap'], orgId: string, login: string, password: string): Promise<LoginCheck> {
  const result = await ldapLogin(ldapConfigOf(settings), login, password);
  if (!result.ok) return { ok: false, reason: `ldap: ${result.reason}: ${result.detail}` };
  const { identity } = result;
  return provision(dir, orgId, {
    email: identity.email,
    name: identity.name || identity.email,
    source: 'ldap',
    externalId: identity.dn,
    groups: identity.groups,
    groupMapping: settings.group_mapping,
    defaultRoleId: settings.default_role_id,
    mayCreate: true,
  });
}

export interface ExternalIdentity {
  email: string;
  name: string;
  source: Exclude<UserSource, 'local'>;
  externalId: string;
  groups: string[];
  /** Group (LDAP DN or SAML group value, any case) to role id; the first listed group the user is in decides. */
  groupMapping: Record<string, string>;
  defaultRoleId: string;
  /** false: only users an admin made may log in (SAML mode existing_only). */
  mayCreate: boolean;
}

/** The cairn user for an identity the directory or IdP vouched for: made on first login, kept in step after. */
export async function provision(dir: Directory, orgId: string, identity: ExternalIdentity): Promise<LoginCheck> {
  const groups = new Set(identity.groups.map((g) => g.toLowerCase()));
  const mapped = Object.entries(identity.groupMapping).find(([group]) => groups.has(group.toLowerCase()))?.[1];
  const existing = await findUserByEmail(dir.store, orgId, identity.email);
  if (!existing) {
    if (!identity.mayCreate) return { ok: false, reason: `${identity.source}: ${identity.email} is not a cairn user and provisioning is off` };
    const roleId = mapped && (await findRole(dir.store, orgId, mapped)) ? mapped : identity.defaultRoleId;
    const user = await createUser(dir, { orgId, email: identity.email, name: identity.name, roleId, source: identity.source, externalId: identity.externalId });
    return { ok: true, user, method: identity.source };
  }
  if (!existing.active) return { ok: false, reason: 'user is deactivated' };
  // The directory decides the role of the accounts it made; an account an admin made keeps the admin's choice.
  const roleId = existing.source === identity.source && mapped ? mapped : undefined;
  const changed = await updateUser(dir, orgId, existing.id, {
    name: existing.source === identity.source ? identity.name : undefined,
    roleId: roleId !== existing.role_id ? roleId : undefined,
    externalId: existing.source === identity.source ? identity.externalId : undefined,
  });
  return { ok: true, user: changed?.after ?? existing, method: identity.source };
}
