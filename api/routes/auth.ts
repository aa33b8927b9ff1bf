// Login and sessions (docs/identity.md): POST /api/v1/auth/login answers
// with an access token and sets the session cookie; logout ends the session;
// /auth/me says who the caller is. Every failed login raises auth.failure,
// and too many in a window answer 429 without saying whether the account exists.
import type { Context } from 'koa';
import { z } from 'zod';
import { getUser, recordLogin, type User } from '../../clickhouse/tables/users.js';
import { AUTH_METHODS, type AuthSettings } from '../../identity/auth-settings.js';
import { checkCredentials, provision } from '../../identity/login.js';
import { consumeAssertion, DEFAULT_CLOCK_SKEW_MS, loginRedirect, MAX_RELAY_STATE_BYTES, MAX_RESPONSE_BYTES, spMetadata, type SamlConfig } from '../../identity/saml.js';
import { findRole } from '../../identity/roles.js';
import { toPublicUser } from '../../identity/users.js';
import { raiseAuthFailure } from '../system-events.js';
import { CSRF_HEADER, mintToken, SESSION_COOKIE, type AuthContext } from '../auth.js';
import { recordAudit } from '../audit.js';
import type { ApiDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { defineRoute } from '../route.js';
import { UserSchema } from './users.js';


const LoginAnswer = z.object({
  token: z.string().describe('the access token: send as "Authorization: Bearer <token>"'),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().describe('seconds until the access token expires; POST /api/v1/auth/token gives a new one while the session lives'),
  csrf_token: z.string().describe(`send as ${CSRF_HEADER} on state-changing requests that rely on the session cookie alone`),
  user: UserSchema,
  permissions: z.array(z.string()),
});

/** Same answer for every failure: it must not tell whether the account exists. */
const LOGIN_REFUSED = 'invalid email or password';

/** Starts a session for a user who proved who they are: cookie set, access token minted, last_login kept. */
export async function startSession(deps: ApiDeps, ctx: Context, user: User, method: string): Promise<z.input<typeof LoginAnswer>> {
  const { identity, config } = deps;
  const role = await findRole(deps.store, user.org_id, user.role_id);
  const permissions = role?.permissions ?? [];
  const { secret, session } = await identity.sessions.start({ user_id: user.id, org_id: user.org_id, email: user.email, permissions, method });
  ctx.cookies.set(SESSION_COOKIE, secret, { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/api', maxAge: config.identity.sessionMaxAgeMs, overwrite: true });
  const now = new Date().toISOString();
  await recordLogin(deps.store, user, now);
  const ttlSeconds = Math.floor(config.identity.accessTokenTtlMs / 1000);
  const token = mintToken(config.jwtSecret!, { subject: user.id, orgId: user.org_id, permissions, ttlSeconds, sessionKey: session.key, email: user.email });
  return { token, token_type: 'Bearer', expires_in: ttlSeconds, csrf_token: session.csrf_token, user: toPublicUser({ ...user, last_login: now }, role), permissions };
}

function clearCookie(ctx: Context): void {
  ctx.cookies.set(SESSION_COOKIE, '', { httpOnly: true, sameSite: 'strict', secure: ctx.secure, path: '/api', maxAge: 0, overwrite: true });
}

async function sessionOf(deps: ApiDeps, auth: AuthContext) {
  if (!auth.sessionKey) throw new HttpError(400, 'bad_request', `this request is authenticated by ${auth.via === 'api_key' ? 'an API key' : 'an operator token'}, not a login session`);
  const session = await deps.identity.sessions.resume(auth.sessionKey);
  if (!session) throw new HttpError(401, 'unauthorized', 'the session has ended: log in again');
  return session;
}

export const authRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/auth/login',
    summary: 'Log in with email (or directory user name) and password: an access token, and the session cookie',
    description:
      'Local users log in with their cairn password; with method ldap, the name and password are checked against the directory (local admins can always log in with their password). Answers 401 with the same message whatever was wrong, and 429 with Retry-After after too many failures for the account or the client address (CAIRN_LOGIN_MAX_FAILURES, CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS, CAIRN_LOGIN_FAILURE_WINDOW).',
    tag: 'Auth',
    permission: null,
    audit: false,
    body: z.object({ email: z.string().trim().min(1, 'email is required').max(320), password: z.string().min(1, 'password is required').max(1024) }),
    response: LoginAnswer,
    errors: [401, 429, 503],
    async handler({ body, deps, ctx }) {
      const { identity, config } = deps;
      const wait = await identity.guard.retryAfter(body.email, ctx.ip);
      if (wait > 0) {
        await raiseAuthFailure(deps, ctx, body.email, 'any', 'too many failed logins');
        throw new HttpError(429, 'too_many_requests', `too many failed logins: try again in ${wait} s`, null, { 'Retry-After': String(wait) });
      }
      const settings = await identity.settings(config.orgId);
      const check = await checkCredentials(identity.directory, settings, config.orgId, body.email, body.password);
      if (!check.ok) {
        await identity.guard.recordFailure(body.email, ctx.ip);
        await raiseAuthFailure(deps, ctx, body.email, settings.method, check.reason);
        await recordAudit(deps, ctx, { action: 'auth.login', targetType: 'auth', note: { outcome: 'failure', after: { email: body.email, method: settings.method } } });
        throw new HttpError(401, 'unauthorized', LOGIN_REFUSED);
      }
      await identity.guard.recordSuccess(body.email);
      const answer = await startSession(deps, ctx, check.user, check.method);
      await recordAudit(deps, ctx, {
        action: 'auth.login',
        targetType: 'auth',
        note: { actor: { id: check.user.id, email: check.user.email, orgId: check.user.org_id }, targetId: check.user.id, after: { method: check.method } },
      });
      return { message: 'Logged in', data: answer };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/auth/methods',
    summary: 'How users log in here, for a login page before any session: the method names and the SAML login URL; no setting or secret',
    description:
      'methods always holds local (local admins can always log in with their password); ldap when the directory is the configured method (its users log in with the same form); saml when SAML is the configured method and has an identity provider URL, with saml_login_url where the browser starts it.',
    tag: 'Auth',
    permission: null,
    response: z.object({
      methods: z.array(z.enum(AUTH_METHODS)),
      saml_login_url: z.string().nullable().describe('GET it (with ?return_to=/path) to log in through the identity provider; null when SAML is not configured'),
    }),
    async handler({ deps }) {
      const settings = await deps.identity.settings(deps.config.orgId);
      const saml = settings.method === 'saml' && settings.saml.sso_url !== '';
      const methods: Array<(typeof AUTH_METHODS)[number]> = ['local'];
      if (settings.method === 'ldap') methods.push('ldap');
      if (saml) methods.push('saml');
      return { message: `Log in with ${methods.join(', ')}`, data: { methods, saml_login_url: saml ? '/api/v1/auth/saml/login' : null } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/auth/logout',
    summary: 'End the login session: its cookie and every access token issued under it stop working',
    tag: 'Auth',
    permission: 'authenticated',
    audit: false,
    response: z.null(),
    async handler({ auth, deps, ctx }) {
      await sessionOf(deps, auth);
      await deps.identity.sessions.end(auth.sessionKey!);
      clearCookie(ctx);
      await recordAudit(deps, ctx, { action: 'auth.logout', targetType: 'auth', note: { targetId: auth.userId ?? '' } });
      return { message: 'Logged out', data: null };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/auth/token',
    summary: 'A new access token for the current session (the session cookie or a token from it)',
    tag: 'Auth',
    permission: 'authenticated',
    audit: false,
    response: LoginAnswer.pick({ token: true, token_type: true, expires_in: true }),
    async handler({ auth, deps }) {
      const session = await sessionOf(deps, auth);
      const ttlSeconds = Math.floor(deps.config.identity.accessTokenTtlMs / 1000);
      const token = mintToken(deps.config.jwtSecret!, { subject: session.user_id, orgId: session.org_id, permissions: session.permissions, ttlSeconds, sessionKey: session.key, email: session.email });
      return { message: 'Token issued', data: { token, token_type: 'Bearer' as const, expires_in: ttlSeconds } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/auth/me',
    summary: 'Who the caller is: the user, how they authenticated, their permissions, and the CSRF token of their session',
    tag: 'Auth',
    permission: 'authenticated',
    response: z.object({
      via: z.enum(['session', 'token', 'api_key', 'service']),
      subject: z.string(),
      org_id: z.string(),
      user: UserSchema.nullable(),
      permissions: z.array(z.string()),
      csrf_token: z.string().nullable(),
      api_key_id: z.string().nullable(),
    }),
    async handler({ auth, deps }) {
      const user = auth.userId ? await getUser(deps.store, auth.orgId, auth.userId) : null;
      const session = auth.sessionKey ? await deps.identity.sessions.resume(auth.sessionKey) : null;
      return {
        message: 'Authenticated',
        data: {
          via: auth.via,
          subject: auth.subject,
          org_id: auth.orgId,
          user: user ? toPublicUser(user, await findRole(deps.store, user.org_id, user.role_id)) : null,
          permissions: [...auth.permissions].sort(),
          csrf_token: session?.csrf_token ?? null,
          api_key_id: auth.keyId,
        },
      };
    },
  }),
];

export const SAML_ACS_PATH = '/api/v1/auth/saml/acs';

function samlConfigOf(settings: AuthSettings['saml'], publicUrl: string): SamlConfig {
  return {
    idpEntityId: settings.entity_id,
    ssoUrl: settings.sso_url,
    sloUrl: settings.slo_url || undefined,
    idpCertificate: settings.certificate,
    spEntityId: `${publicUrl}/api/v1/auth/saml/metadata`,
    acsUrl: `${publicUrl}${SAML_ACS_PATH}`,
    spPrivateKey: settings.sp_private_key || undefined,
    spCertificate: settings.sp_certificate || undefined,
    attributeMapping: settings.attribute_mapping,
    clockSkewMs: DEFAULT_CLOCK_SKEW_MS,
  };
}

async function samlSettings(deps: ApiDeps): Promise<AuthSettings['saml']> {
  const settings = await deps.identity.settings(deps.config.orgId);
  if (settings.method !== 'saml') throw new HttpError(404, 'not_found', 'SAML login is not enabled (settings method is not saml)');
  return settings.saml;
}

/** Only a path on this site: a RelayState naming another site would make login an open redirect. */
const LocalPath = z
  .string()
  .max(MAX_RELAY_STATE_BYTES)
  .regex(/^\/(?![/\\])[^\s]*$/, 'return_to must be a path on this site, e.g. /incidents');

export const samlRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/auth/saml/metadata',
    summary: "cairn's SAML service provider metadata, for the identity provider (entity id, assertion consumer URL, signing certificate)",
    tag: 'Auth',
    permission: null,
    response: z.string(),
    fileTypes: ['application/samlmetadata+xml'],
    async handler({ deps }) {
      const settings = await deps.identity.settings(deps.config.orgId);
      const body = spMetadata(samlConfigOf(settings.saml, deps.config.identity.publicUrl));
      return { message: 'SP metadata', data: body, file: { contentType: 'application/samlmetadata+xml', body, filename: 'cairn-sp-metadata.xml' } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/auth/saml/login',
    summary: 'Start SAML login: redirects the browser to the identity provider with a new AuthnRequest',
    tag: 'Auth',
    permission: null,
    query: z.object({ return_to: LocalPath.optional() }),
    response: z.null(),
    successStatus: 302,
    errors: [404],
    async handler({ query, deps }) {
      const settings = await samlSettings(deps);
      const { url } = await loginRedirect(samlConfigOf(settings, deps.config.identity.publicUrl), deps.state, query.return_to);
      return { message: 'Redirecting to the identity provider', data: null, redirect: url };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/auth/saml/acs',
    summary: 'SAML assertion consumer (HTTP-POST binding): checks the response and starts a session, then redirects to the page login began on',
    description:
      'Checks the signature against the configured IdP certificate, the audience, InResponseTo (a request this SP issued, answered once), the time conditions and replay of the assertion. The user is provisioned (saml.mode provision) and gets the session cookie; a failure answers 401 and raises auth.failure.',
    tag: 'Auth',
    permission: null,
    audit: false,
    body: z.object({ SAMLResponse: z.string().min(1, 'SAMLResponse is required').max(MAX_RESPONSE_BYTES), RelayState: z.string().max(1024).optional() }),
    response: z.null(),
    successStatus: 302,
    errors: [401, 404, 503],
    async handler({ body, deps, ctx }) {
      const settings = await samlSettings(deps);
      const result = await consumeAssertion(samlConfigOf(settings, deps.config.identity.publicUrl), deps.state, body);
      const check = result.ok
        ? await provision(deps.identity.directory, deps.config.orgId, {
            email: result.identity.email,
            name: [result.identity.firstName, result.identity.lastName].filter(Boolean).join(' ') || result.identity.email,
            source: 'saml',
            externalId: result.identity.nameId,
            groups: result.identity.groups,
            groupMapping: settings.group_mapping,
            defaultRoleId: settings.default_role_id,
            mayCreate: settings.mode === 'provision',
          })
        : ({ ok: false, reason: `saml: ${result.reason}` } as const);
      const who = result.ok ? result.identity.email : '(unknown)';
      if (!check.ok) {
        await raiseAuthFailure(deps, ctx, who, 'saml', check.reason);
        await recordAudit(deps, ctx, { action: 'auth.login', targetType: 'auth', note: { outcome: 'failure', after: { email: who, method: 'saml' } } });
        throw new HttpError(401, 'unauthorized', 'SAML login failed');
      }
      await startSession(deps, ctx, check.user, 'saml');
      await recordAudit(deps, ctx, {
        action: 'auth.login',
        targetType: 'auth',
        note: { actor: { id: check.user.id, email: check.user.email, orgId: check.user.org_id }, targetId: check.user.id, after: { method: 'saml' } },
      });
      const relay = result.ok && result.relayState && LocalPath.safeParse(result.relayState).success ? result.relayState : '/';
      return { message: 'Logged in', data: null, redirect: relay };
    },
  }),
];
