// The authentication configuration (SPEC 2.10, 4.1): which method users log
// in with, and the LDAP and SAML settings. Stored as one settings document
// with its secrets sealed under CAIRN_MASTER_KEY; every answer redacts them,
// and a write that omits a secret or sends the placeholder keeps the stored one.
import { z } from 'zod';
import type { Store } from '../clickhouse/client.js';
import { readSetting, writeSetting } from '../clickhouse/tables/settings.js';
import { keepSecrets, mapSecrets, REDACTED, SecretBox } from '../lib/secret-box.js';
import { BUILTIN_ROLES } from './roles.js';

export const AUTH_METHODS = ['local', 'ldap', 'saml'] as const;
/** Labels for the identity provider; they change nothing but the attribute names suggested (docs/identity.md). */
export const SAML_PROVIDERS = ['generic', 'okta', 'entra_id', 'google', 'keycloak', 'adfs', 'onelogin'] as const;
/** `provision`: a user the IdP vouches for is created on first login. `existing_only`: only users an admin made may log in. */
export const SAML_MODES = ['provision', 'existing_only'] as const;

const LDAP_SECRETS = ['bind_password'] as const;
const SAML_SECRETS = ['certificate', 'sp_private_key'] as const;

const RoleMapping = z.record(z.string().min(1), z.uuid('each mapped role must be a role id'));

export const LdapSettings = z.object({
  server_url: z.string().regex(/^ldaps?:\/\/[^\s/]+(:\d+)?\/?$/, 'server_url must be ldap://host[:port] or ldaps://host[:port]').or(z.literal('')),
  bind_dn: z.string(),
  bind_password: z.string(),
  search_base: z.string(),
  user_filter: z.string().refine((f) => f === '' || f.includes('%s'), 'user_filter must contain %s, where the user name goes'),
  start_tls: z.boolean(),
  tls_reject_unauthorized: z.boolean(),
  ca_certificate: z.string(),
  email_attribute: z.string().min(1),
  name_attribute: z.string().min(1),
  group_attribute: z.string().min(1),
  group_search_base: z.string(),
  /** Group DN (any case) to role id; the first group listed that the user is in decides. */
  group_mapping: RoleMapping,
  default_role_id: z.uuid(),
  timeout_ms: z.int().min(500).max(60_000),
});
export type LdapSettings = z.infer<typeof LdapSettings>;

export const SamlSettings = z.object({
  entity_id: z.string(),
  sso_url: z.string().url('sso_url must be a URL').or(z.literal('')),
  slo_url: z.string().url('slo_url must be a URL').or(z.literal('')),
  certificate: z.string(),
  sp_private_key: z.string(),
  sp_certificate: z.string(),
  provider: z.enum(SAML_PROVIDERS),
  mode: z.enum(SAML_MODES),
  attribute_mapping: z.object({ email: z.string(), first_name: z.string().optional(), last_name: z.string().optional(), groups: z.string().optional() }),
  group_mapping: RoleMapping,
  default_role_id: z.uuid(),
});
export type SamlSettings = z.infer<typeof SamlSettings>;

export const AuthSettings = z.object({ method: z.enum(AUTH_METHODS), ldap: LdapSettings, saml: SamlSettings });
export type AuthSettings = z.infer<typeof AuthSettings>;

export const DEFAULT_AUTH_SETTINGS: AuthSettings = {
  method: 'local',
  ldap: {
    server_url: '',
    bind_dn: '',
    bind_password: '',
    search_base: '',
    user_filter: '(uid=%s)',
    start_tls: false,
    tls_reject_unauthorized: true,
    ca_certificate: '',
    email_attribute: 'mail',
    name_attribute: 'cn',
    group_attribute: 'memberOf',
    group_search_base: '',
    group_mapping: {},
    default_role_id: BUILTIN_ROLES.viewer.id,
    timeout_ms: 5000,
  },
  saml: {
    entity_id: '',
    sso_url: '',
    slo_url: '',
    certificate: '',
    sp_private_key: '',
    sp_certificate: '',
    provider: 'generic',
    mode: 'provision',
    attribute_mapping: { email: 'email', first_name: 'firstName', last_name: 'lastName' },
    group_mapping: {},
    default_role_id: BUILTIN_ROLES.viewer.id,
  },
};

/** A change as a client sends it: any subset; secrets omitted or "[redacted]" are kept. */
export const AuthSettingsChange = z
  .strictObject({
    method: z.enum(AUTH_METHODS).optional(),
    ldap: LdapSettings.partial().strict().optional(),
    saml: SamlSettings.partial().strict().optional(),
  })
  .refine((c) => c.method !== undefined || c.ldap !== undefined || c.saml !== undefined, 'give method, ldap or saml');
export type AuthSettingsChange = z.infer<typeof AuthSettingsChange>;

const SETTING = 'auth';

function transform(settings: AuthSettings, map: (value: string) => string): AuthSettings {
  return { ...settings, ldap: mapSecrets(settings.ldap, LDAP_SECRETS, map), saml: mapSecrets(settings.saml, SAML_SECRETS, map) };
}

/** The stored settings with secrets in plain text, for login and tests; never for a response. */
export async function loadAuthSettings(store: Store, box: SecretBox, orgId: string): Promise<AuthSettings> {
  const stored = await readSetting(store, orgId, SETTING);
  if (!stored) return DEFAULT_AUTH_SETTINGS;
  const sealed = AuthSettings.parse(mergeDefaults(stored.value));
  return transform(sealed, (value) => box.open(value));
}

function mergeDefaults(value: unknown): unknown {
  const v = (value ?? {}) as Partial<AuthSettings>;
  return { method: v.method ?? 'local', ldap: { ...DEFAULT_AUTH_SETTINGS.ldap, ...v.ldap }, saml: { ...DEFAULT_AUTH_SETTINGS.saml, ...v.saml } };
}

/** What a response shows: every set secret as "[redacted]". */
export function redactAuthSettings(settings: AuthSettings): AuthSettings {
  return transform(settings, () => REDACTED);
}

/** The change applied to the current settings; omitted secrets and the placeholder keep what is stored. */
export function applyChange(current: AuthSettings, change: AuthSettingsChange): AuthSettings {
  return {
    method: change.method ?? current.method,
    ldap: keepSecrets(current.ldap, change.ldap, LDAP_SECRETS),
    saml: keepSecrets(current.saml, change.saml, SAML_SECRETS),
  };
}

/** What is missing for the chosen method to work, or null. */
export function incompleteFor(settings: AuthSettings): string | null {
  if (settings.method === 'ldap') {
    const missing = (['server_url', 'search_base', 'user_filter'] as const).filter((f) => !settings.ldap[f]);
    if (missing.length) return `method ldap needs ldap.${missing.join(', ldap.')}`;
  }
  if (settings.method === 'saml') {
    const missing = (['entity_id', 'sso_url', 'certificate'] as const).filter((f) => !settings.saml[f]);
    if (!settings.saml.attribute_mapping.email) missing.push('attribute_mapping.email' as never);
    if (missing.length) return `method saml needs saml.${missing.join(', saml.')}`;
  }
  return null;
}

export async function saveAuthSettings(store: Store, box: SecretBox, orgId: string, settings: AuthSettings, updatedBy: string): Promise<void> {
  await writeSetting(store, orgId, SETTING, transform(settings, (value) => box.seal(value)), updatedBy);
}
