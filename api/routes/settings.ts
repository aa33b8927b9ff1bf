// Authentication settings (SPEC 2.10, 4.1): the login method and the LDAP
// and SAML configuration. Secrets are sealed at rest and redacted in every
// answer; a change raises system.config_changed and goes to the audit log.
import { z } from 'zod';
import { OutboundError } from '../../lib/outbound/client.js';
import { REDACTED } from '../../lib/secret-box.js';
import { applyChange, AuthSettings, AuthSettingsChange, incompleteFor, LdapSettings, redactAuthSettings, saveAuthSettings, SAML_MODES, SAML_PROVIDERS } from '../../identity/auth-settings.js';
import { testLdap } from '../../identity/ldap.js';
import { ldapConfigOf } from '../../identity/login.js';
import { findRole } from '../../identity/roles.js';
import { fetchIdpMetadata, generateSpKeypair, samlChecks } from '../../identity/saml.js';
import type { ApiDeps } from '../deps.js';
import { badRequest } from '../http-error.js';
import { defineRoute } from '../route.js';
import { raiseConfigChanged } from '../system-events.js';

/** Fields whose value differs, by dotted name (for the event; never the values). */
function changedFields(before: AuthSettings, after: AuthSettings): string[] {
  const fields: string[] = before.method === after.method ? [] : ['method'];
  for (const section of ['ldap', 'saml'] as const) {
    for (const key of Object.keys(after[section]) as (keyof AuthSettings[typeof section])[]) {
      if (JSON.stringify(before[section][key]) !== JSON.stringify(after[section][key])) fields.push(`${section}.${String(key)}`);
    }
  }
  return fields;
}

async function assertRolesExist(deps: ApiDeps, orgId: string, settings: AuthSettings): Promise<void> {
  const ids = new Set([settings.ldap.default_role_id, settings.saml.default_role_id, ...Object.values(settings.ldap.group_mapping), ...Object.values(settings.saml.group_mapping)]);
  for (const id of ids) if (!(await findRole(deps.store, orgId, id))) throw badRequest(`role ${id} (a default role or a group mapping) does not exist`);
}

/** The stored value when the request leaves a secret out or sends the placeholder. */
const orStored = (given: string | undefined, stored: string) => (given === undefined || given === REDACTED ? stored : given);

const SamlTestBody = z.strictObject({
  entity_id: z.string().optional(),
  sso_url: z.string().optional(),
  certificate: z.string().optional(),
  sp_private_key: z.string().optional(),
  sp_certificate: z.string().optional(),
  attribute_mapping: z.record(z.string(), z.string()).optional(),
});

const Check = z.object({ name: z.string(), passed: z.boolean(), message: z.string() });

export const settingsRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/settings/auth',
    summary: 'The authentication configuration; secrets (bind_password, certificate, sp_private_key) redacted',
    description: `method: ${['local', 'ldap', 'saml'].join(', ')}. saml.provider: ${SAML_PROVIDERS.join(', ')}. saml.mode: ${SAML_MODES.join(', ')} (provision creates users on first login; existing_only admits only users an admin made). See docs/identity.md.`,
    tag: 'Settings',
    permission: 'settings:read',
    response: AuthSettings,
    async handler({ auth, deps }) {
      return { message: 'Authentication settings', data: redactAuthSettings(await deps.identity.settings(auth.orgId)) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/settings/auth',
    summary: 'Change the authentication configuration; only the fields given change, and a secret omitted or sent as "[redacted]" keeps its stored value',
    tag: 'Settings',
    permission: 'settings:manage',
    body: AuthSettingsChange,
    response: AuthSettings,
    errors: [503],
    async handler({ body, auth, deps, ctx }) {
      const before = await deps.identity.settings(auth.orgId);
      const after = applyChange(before, body);
      const checked = AuthSettings.safeParse(after);
      if (!checked.success) throw badRequest(`invalid settings: ${checked.error.issues[0]!.path.join('.')}: ${checked.error.issues[0]!.message}`);
      const incomplete = incompleteFor(after);
      if (incomplete) throw badRequest(incomplete);
      await assertRolesExist(deps, auth.orgId, after);
      await saveAuthSettings(deps.store, deps.identity.box, auth.orgId, after, auth.email ?? auth.subject);
      const fields = changedFields(before, after);
      if (fields.length) await raiseConfigChanged(deps, ctx, auth, { setting: 'auth', summary: `authentication settings changed (${fields.join(', ')})`, details: { fields } });
      const data = redactAuthSettings(after);
      return { message: fields.length ? `Authentication settings changed: ${fields.join(', ')}` : 'No change', data, audit: { before: redactAuthSettings(before), after: data } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/settings/auth/test',
    summary: 'Test LDAP settings (the stored ones, changed by any given): connect, service bind, search, with the result of each step',
    tag: 'Settings',
    permission: 'settings:manage',
    audit: false,
    body: z.strictObject({ ldap: LdapSettings.partial().strict().optional(), username: z.string().min(1).max(320).optional().describe('a user to look up in the search step') }),
    response: z.object({ success: z.boolean(), steps: z.array(Check) }),
    async handler({ body, auth, deps }) {
      const settings = applyChange(await deps.identity.settings(auth.orgId), { ldap: body.ldap });
      if (!settings.ldap.server_url) throw badRequest('ldap.server_url is not set: give it, or store it first');
      const result = await testLdap(ldapConfigOf(settings.ldap), body.username);
      return { message: result.success ? 'LDAP settings work' : `LDAP test failed at ${result.steps.find((s) => !s.passed)?.name}`, data: result };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/admin/settings/auth/saml/test',
    summary: 'Test a SAML configuration with 4 checks: certificate_validity, sso_url_reachable, sp_keypair_valid, attribute_mapping',
    description: 'Fields left out (or sent as "[redacted]") are taken from the stored settings. The SSO URL is reached through the guarded outbound client (CAIRN_OUTBOUND_ALLOW).',
    tag: 'Settings',
    permission: 'settings:manage',
    audit: false,
    body: SamlTestBody,
    response: z.object({ success: z.boolean(), checks: z.array(Check) }),
    async handler({ body, auth, deps }) {
      const stored = (await deps.identity.settings(auth.orgId)).saml;
      const input = {
        entity_id: body.entity_id ?? stored.entity_id,
        sso_url: body.sso_url ?? stored.sso_url,
        certificate: orStored(body.certificate, stored.certificate),
        sp_private_key: orStored(body.sp_private_key, stored.sp_private_key),
        sp_certificate: body.sp_certificate ?? stored.sp_certificate,
        attribute_mapping: body.attribute_mapping ?? (stored.attribute_mapping as Record<string, string>),
      };
      const result = await samlChecks(input, deps.outbound);
      return { message: result.success ? 'SAML configuration passes all 4 checks' : `SAML configuration fails: ${result.checks.filter((c) => !c.passed).map((c) => c.name).join(', ')}`, data: result };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/admin/settings/auth/saml/generate-keypair',
    summary: 'Generate the service provider signing key pair (RSA 2048): stored sealed as saml.sp_private_key and saml.sp_certificate; the private key is in this answer only',
    tag: 'Settings',
    permission: 'settings:manage',
    response: z.object({ private_key: z.string(), certificate: z.string() }),
    successStatus: 201,
    errors: [503],
    async handler({ auth, deps, ctx }) {
      const pair = await generateSpKeypair();
      const settings = await deps.identity.settings(auth.orgId);
      const after = applyChange(settings, { saml: { sp_private_key: pair.private_key, sp_certificate: pair.certificate } });
      await saveAuthSettings(deps.store, deps.identity.box, auth.orgId, after, auth.email ?? auth.subject);
      await raiseConfigChanged(deps, ctx, auth, { setting: 'auth', summary: 'SAML service provider key pair generated', details: { fields: ['saml.sp_private_key', 'saml.sp_certificate'] } });
      return { message: 'Key pair generated and stored; the private key is not shown again', data: pair, audit: { after: { sp_certificate: pair.certificate } } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/admin/settings/auth/saml/fetch-metadata',
    summary: 'Fetch identity provider metadata from a URL and read its entity id, SSO and SLO URLs and signing certificate (nothing is stored)',
    tag: 'Settings',
    permission: 'settings:manage',
    audit: false,
    body: z.object({ metadata_url: z.url({ protocol: /^https?$/, message: 'metadata_url must be an http or https URL' }) }),
    response: z.object({ entity_id: z.string(), sso_url: z.string(), slo_url: z.string().nullable(), certificate: z.string() }),
    async handler({ body, deps }) {
      try {
        return { message: 'Metadata read', data: await fetchIdpMetadata(body.metadata_url, deps.outbound) };
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        throw badRequest(err instanceof OutboundError ? `could not fetch the metadata: ${message}` : `not usable identity provider metadata: ${message}`);
      }
    },
  }),
];
