// Identity and access through the API (issue 13), on the embedded default and
// on Kafka + Redis: login and its token, roles and 403s, the session cookie
// and its CSRF defence, auth.failure events and the login limit, revocation
// that takes effect on the next request, API keys, sealed settings, the
// audit log, and the permission rows of SPEC 4.1 and 4.8.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveredMessage } from '../../pipeline/bus/types.js';
import { PERMISSIONS } from '../../identity/permissions.js';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { systemEvents } from '../../topics/index.js';
import { startTestApi, type ApiResponse, type TestApi } from '../helpers/api.js';
import { eventually, uniqueName } from '../helpers/buses.js';

const PASSWORD = 'correct horse battery staple';
const MAX_FAILURES = 3;

function identityEnv(orgId: string): Record<string, string> {
  return {
    CAIRN_ORG_ID: orgId,
    CAIRN_LOGIN_MAX_FAILURES: String(MAX_FAILURES),
    // Every test logs in from 127.0.0.1: the per-address limit is tested apart (test/identity/login-guard.test.ts).
    CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000',
    CAIRN_OUTBOUND_ALLOW: '127.0.0.1',
  };
}

function sessionCookie(response: ApiResponse): string {
  const cookie = response.headers.getSetCookie().find((c) => c.startsWith('cairn_session='));
  if (!cookie) throw new Error('no session cookie in the answer');
  return cookie.split(';')[0]!;
}

interface LoginData {
  token: string;
  csrf_token: string;
  expires_in: number;
  user: { id: string; role_name: string; last_login: string | null };
  permissions: string[];
}

describe.each([
  ['embedded', false],
  ['Kafka + Redis', true],
])('identity and access (%s)', (_name, distributed) => {
  let api: TestApi;
  let admin: string;
  const orgId = `org-${randomUUID().slice(0, 8)}`;

  beforeAll(async () => {
    api = await startTestApi({ distributed, env: identityEnv(orgId) });
    // An operator token (as `cairn token` mints) stands in for the first admin.
    admin = api.token('all', orgId);
  });
  afterAll(async () => api?.close());

  const email = () => `${uniqueName('user')}@example.com`.toLowerCase();

  async function makeUser(role: keyof typeof BUILTIN_ROLES | string, address = email()) {
    const roleId = role in BUILTIN_ROLES ? BUILTIN_ROLES[role as keyof typeof BUILTIN_ROLES].id : role;
    const res = await api.request('POST', '/api/v1/users', { token: admin, body: { email: address, name: 'Test User', role_id: roleId, password: PASSWORD } });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string; email: string; role_name: string };
  }

  async function login(address: string, password = PASSWORD) {
    return api.request('POST', '/api/v1/auth/login', { body: { email: address, password } });
  }

  async function loggedIn(address: string) {
    const res = await login(address);
    expect(res.status, res.text).toBe(200);
    return { ...(res.body.data as LoginData), cookie: sessionCookie(res) };
  }

  it('logs in: a token that works on a route its role allows and is refused with 403 on one it does not', async () => {
    const analyst = await makeUser('analyst');
    const session = await loggedIn(analyst.email);
    expect(session.user.role_name).toBe('analyst');
    expect(session.permissions).toEqual([...BUILTIN_ROLES.analyst.permissions]);
    expect(session.expires_in).toBe(900);
    expect((await api.request('GET', '/api/v1/lead-rules', { token: session.token })).status).toBe(200);
    const refused = await api.request('GET', '/api/v1/users', { token: session.token });
    expect(refused.status).toBe(403);
    expect(refused.body.message).toContain('"admin"');
    const me = await api.request('GET', '/api/v1/auth/me', { token: session.token });
    expect(me.body.data).toMatchObject({ via: 'token', user: { email: analyst.email, role_name: 'analyst' }, api_key_id: null });
    // last_login is kept
    const shown = await api.request('GET', `/api/v1/users/${analyst.id}`, { token: admin });
    expect(Date.parse((shown.body.data as { last_login: string }).last_login)).toBeGreaterThan(Date.now() - 60_000);
    expect(shown.text).not.toMatch(/scrypt|password_hash/);
  });

  it('sets an HttpOnly, SameSite=Strict session cookie that works alone, and refuses a cross-site state change on it', async () => {
    const viewer = await makeUser('viewer');
    const res = await login(viewer.email);
    const raw = res.headers.getSetCookie().find((c) => c.startsWith('cairn_session='))!;
    expect(raw).toMatch(/httponly/i);
    expect(raw).toMatch(/samesite=strict/i);
    expect(raw).not.toMatch(/;\s*secure/i); // plain HTTP here: Secure only when served over TLS
    const { csrf_token } = res.body.data as LoginData;
    const cookie = sessionCookie(res);

    const me = await api.request('GET', '/api/v1/auth/me', { headers: { cookie } });
    expect(me.status).toBe(200);
    expect(me.body.data).toMatchObject({ via: 'session', user: { email: viewer.email }, csrf_token });

    const key = { name: 'from the browser', permissions: ['signals:read'] };
    const crossSite = await api.request('POST', '/api/v1/api-keys', { body: key, headers: { cookie, origin: 'https://evil.example' } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error?.code).toBe('csrf_refused');
    const noOrigin = await api.request('POST', '/api/v1/api-keys', { body: key, headers: { cookie } });
    expect(noOrigin.status).toBe(403);
    const sameSite = await api.request('POST', '/api/v1/api-keys', { body: key, headers: { cookie, origin: api.url } });
    expect(sameSite.status, sameSite.text).toBe(201);
    const withToken = await api.request('POST', '/api/v1/auth/logout', { headers: { cookie, 'x-csrf-token': csrf_token } });
    expect(withToken.status).toBe(200);
    expect((await api.request('GET', '/api/v1/auth/me', { headers: { cookie } })).status).toBe(401);
  });

  it('answers 401 to a bad password with one message for every cause, raises auth.failure, and 429 with Retry-After past the limit', async () => {
    const user = await makeUser('viewer');
    const events: DeliveredMessage[] = [];
    const sub = await api.runtime.bus.subscribe({ group: uniqueName('auth-events'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void events.push(...b) });
    try {
      const wrong = await login(user.email, 'not the password at all');
      const unknown = await login(`nobody-${randomUUID()}@example.com`, PASSWORD);
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body.message).toBe(unknown.body.message);
      for (let i = 1; i < MAX_FAILURES; i++) expect((await login(user.email, 'still wrong password')).status).toBe(401);
      const limited = await login(user.email, PASSWORD);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(limited.body.message).not.toContain(user.email);
      const failures = () => events.map((m) => JSON.parse(m.value.toString()) as { type: string; details: { user: string; client_ip: string } }).filter((e) => e.type === 'auth.failure');
      await eventually(() => expect(failures().filter((e) => e.details.user === user.email).length).toBeGreaterThanOrEqual(MAX_FAILURES + 1));
      expect(failures().find((e) => e.details.user === user.email)!.details.client_ip).toMatch(/127\.0\.0\.1/);
      expect(events.map((m) => m.value.toString()).join('\n')).not.toContain('still wrong password');
    } finally {
      await sub.stop();
    }
  });

  it('ends sessions at once: a deactivated user\'s earlier token gets 401 on its next request, as after a role or password change', async () => {
    const user = await makeUser('analyst');
    const first = await loggedIn(user.email);
    expect((await api.request('GET', '/api/v1/incidents', { token: first.token })).status).toBe(200);
    expect((await api.request('PUT', `/api/v1/users/${user.id}`, { token: admin, body: { active: false } })).status).toBe(200);
    const after = await api.request('GET', '/api/v1/incidents', { token: first.token });
    expect(after.status).toBe(401);
    expect((await api.request('GET', '/api/v1/auth/me', { headers: { cookie: first.cookie } })).status).toBe(401);
    expect((await login(user.email)).status).toBe(401);

    await api.request('PUT', `/api/v1/users/${user.id}`, { token: admin, body: { active: true } });
    const second = await loggedIn(user.email);
    await api.request('PUT', `/api/v1/users/${user.id}`, { token: admin, body: { role_id: BUILTIN_ROLES.viewer.id } });
    expect((await api.request('GET', '/api/v1/incidents', { token: second.token })).status).toBe(401);
    const third = await loggedIn(user.email);
    expect(third.permissions).not.toContain('incidents:write');
    await api.request('PUT', `/api/v1/users/${user.id}`, { token: admin, body: { password: 'a brand new passphrase' } });
    expect((await api.request('GET', '/api/v1/incidents', { token: third.token })).status).toBe(401);
    expect((await login(user.email, 'a brand new passphrase')).status).toBe(200);
  });

  it('API keys: shown once, work as the bearer token within their permissions, and fail at once when revoked', async () => {
    const user = await makeUser('analyst');
    const session = await loggedIn(user.email);
    const wider = await api.request('POST', '/api/v1/api-keys', { token: session.token, body: { name: 'too wide', permissions: ['admin'] } });
    expect(wider.status).toBe(403);
    const made = await api.request('POST', '/api/v1/api-keys', { token: session.token, body: { name: 'sensor-1', permissions: ['signals:write', 'signals:read'] } });
    expect(made.status, made.text).toBe(201);
    const { id, token } = made.body.data as { id: string; token: string };
    expect(token).toMatch(/^cairn_[0-9a-f]{32}_/);
    const ingest = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [{ source: 'auth', raw: 'sshd[1]: Accepted password for root from 10.0.0.1 port 22 ssh2' }] } });
    expect(ingest.status, ingest.text).toBe(202);
    expect((await api.request('GET', '/api/v1/incidents', { token })).status).toBe(403);
    const listed = await api.request('GET', '/api/v1/api-keys', { token: session.token });
    // The secret is everything after the key id; base64url may itself hold an underscore.
    expect(listed.text).not.toContain(token.slice('cairn_'.length + 33));
    expect((listed.body.data as { api_keys: { id: string }[] }).api_keys.map((k) => k.id)).toEqual([id]);
    const other = await makeUser('analyst');
    const otherSession = await loggedIn(other.email);
    expect((await api.request('DELETE', `/api/v1/api-keys/${id}`, { token: otherSession.token })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/api-keys/${id}`, { token: session.token })).status).toBe(200);
    const revoked = await api.request('GET', '/api/v1/lead-rules', { token });
    expect(revoked.status).toBe(401);
    expect(revoked.body.message).toMatch(/revoked/);
  });

  it('protects the last admin, keeps emails unique, and checks roles', async () => {
    const first = await makeUser('admin');
    const session = await loggedIn(first.email);
    for (const change of [{ active: false }, { role_id: BUILTIN_ROLES.viewer.id }]) {
      const res = await api.request('PUT', `/api/v1/users/${first.id}`, { token: session.token, body: change });
      expect(res.status, JSON.stringify(change)).toBe(409);
      expect(res.body.message).toMatch(/last active admin/);
    }
    expect((await api.request('DELETE', `/api/v1/users/${first.id}`, { token: session.token })).status).toBe(409);
    const duplicate = await api.request('POST', '/api/v1/users', { token: admin, body: { email: first.email.toUpperCase(), name: 'Again', role_id: BUILTIN_ROLES.viewer.id } });
    expect(duplicate.status).toBe(409);
    const weak = await api.request('POST', '/api/v1/users', { token: admin, body: { email: email(), name: 'Weak', role_id: BUILTIN_ROLES.viewer.id, password: 'short' } });
    expect(weak.status).toBe(400);
    expect(weak.body.message).toMatch(/at least 12/);

    const unknown = await api.request('POST', '/api/v1/roles', { token: admin, body: { name: 'bad', permissions: ['signals:read', 'root'] } });
    expect(unknown.status).toBe(400);
    expect(unknown.body.message).toContain('root');
    const role = await api.request('POST', '/api/v1/roles', { token: admin, body: { name: uniqueName('triage'), permissions: ['incidents:read', 'incidents:write'] } });
    expect(role.status).toBe(201);
    const roleId = (role.body.data as { id: string }).id;
    const holder = await makeUser(roleId);
    const holderSession = await loggedIn(holder.email);
    expect(holderSession.permissions).toEqual(['incidents:read', 'incidents:write']);
    expect((await api.request('DELETE', `/api/v1/roles/${roleId}`, { token: admin })).status).toBe(409);
    expect((await api.request('PUT', `/api/v1/roles/${BUILTIN_ROLES.viewer.id}`, { token: admin, body: { permissions: ['admin'] } })).status).toBe(409);
    expect((await api.request('PUT', `/api/v1/roles/${roleId}`, { token: admin, body: { permissions: ['incidents:read'] } })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/incidents', { token: holderSession.token })).status).toBe(401);
    const filtered = await api.request('GET', `/api/v1/users?role_id=${roleId}&active=true&q=${encodeURIComponent(holder.email.slice(0, 12))}`, { token: admin });
    expect((filtered.body.data as { users: { id: string }[] }).users.map((u) => u.id)).toEqual([holder.id]);
  });

  it('seals auth secrets at rest, redacts them in answers, keeps them on a PUT that omits them, and raises system.config_changed', async () => {
    const secret = `bind-${randomUUID()}`;
    const events: DeliveredMessage[] = [];
    const sub = await api.runtime.bus.subscribe({ group: uniqueName('config-events'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void events.push(...b) });
    try {
      const put = await api.request('PUT', '/api/v1/settings/auth', {
        token: admin,
        body: { ldap: { server_url: 'ldap://127.0.0.1:1', bind_dn: 'cn=svc,dc=cairn,dc=test', bind_password: secret, search_base: 'dc=cairn,dc=test' } },
      });
      expect(put.status, put.text).toBe(200);
      expect(put.text).not.toContain(secret);
      expect((put.body.data as { ldap: { bind_password: string } }).ldap.bind_password).toBe('[redacted]');
      const again = await api.request('PUT', '/api/v1/settings/auth', { token: admin, body: { ldap: { bind_dn: 'cn=other,dc=cairn,dc=test', bind_password: '[redacted]' } } });
      expect(again.status).toBe(200);
      const stored = await api.runtime.store.query({ query: `SELECT value FROM settings FINAL WHERE org_id = {org:String} AND name = 'auth'`, query_params: { org: orgId }, format: 'JSONEachRow' });
      const row = JSON.stringify(await stored.json());
      expect(row).toContain('cn=other');
      expect(row).not.toContain(secret);
      expect((await api.runtime.store.query({ query: 'SELECT before, after FROM audit_log', format: 'JSONEachRow' }).then((r) => r.text()))).not.toContain(secret);
      // The stored secret is still the one given first: the test step binds with it.
      expect((await api.request('GET', '/api/v1/settings/auth', { token: admin })).text).not.toContain(secret);
      await eventually(() => expect(events.map((m) => JSON.parse(m.value.toString()) as { type: string; details: { fields: string[] } }).some((e) => e.type === 'system.config_changed' && e.details.fields.includes('ldap.bind_password'))).toBe(true));
      expect(events.map((m) => m.value.toString()).join()).not.toContain(secret);
      const incomplete = await api.request('PUT', '/api/v1/settings/auth', { token: admin, body: { method: 'saml' } });
      expect(incomplete.status).toBe(400);
      expect(incomplete.body.message).toMatch(/saml\.entity_id/);
    } finally {
      await sub.stop();
    }
  });

  it('keeps an audit log of changes and logins, redacted, that the API cannot change', async () => {
    const created = await makeUser('viewer');
    await loggedIn(created.email);
    await login(created.email, 'a wrong password here');
    const log = await api.request('GET', `/api/v1/audit-log?target_id=${created.id}`, { token: admin });
    expect(log.status).toBe(200);
    const entries = (log.body.data as { entries: { action: string; actor_via: string; outcome: string; client_ip: string; after: unknown }[] }).entries;
    expect(entries.map((e) => e.action).sort()).toEqual(['POST /v1/users', 'auth.login']);
    expect(entries.find((e) => e.action === 'POST /v1/users')).toMatchObject({ actor_via: 'service', outcome: 'success', after: { email: created.email } });
    expect(log.text).not.toContain(PASSWORD);
    const failures = await api.request('GET', '/api/v1/audit-log?action=auth.login&outcome=failure', { token: admin });
    expect((failures.body.data as { total: number }).total).toBeGreaterThan(0);
    for (const method of ['PUT', 'DELETE', 'POST']) expect((await api.request(method, '/api/v1/audit-log', { token: admin, body: {} })).status).toBeGreaterThanOrEqual(404);

    const rule = await api.request('POST', '/api/v1/lead-rules', { token: admin, body: { name: 'audited rule', conditions: { pattern: 'Failed password' } } });
    const ruleId = (rule.body.data as { id: string }).id;
    await api.request('PUT', `/api/v1/lead-rules/${ruleId}`, { token: admin, body: { name: 'renamed rule' } });
    const changes = await api.request('GET', `/api/v1/audit-log?target_type=lead-rules&target_id=${ruleId}`, { token: admin });
    const update = (changes.body.data as { entries: { action: string; before: { name: string }; after: { name: string } }[] }).entries.find((e) => e.action === 'PUT /v1/lead-rules/:id');
    expect(update).toMatchObject({ before: { name: 'audited rule' }, after: { name: 'renamed rule' } });
  });

  it('answers 401 without a token and 403 without the permission on the 11 rows of SPEC 4.1 and 4.8', async () => {
    const user = await makeUser('viewer');
    const rows: [string, string, string, unknown?][] = [
      ['GET', '/api/v1/settings/auth', 'settings:read'],
      ['PUT', '/api/v1/settings/auth', 'settings:manage', { method: 'local' }],
      ['POST', '/api/v1/settings/auth/test', 'settings:manage', { ldap: { server_url: 'ldap://127.0.0.1:1', search_base: 'dc=x', timeout_ms: 500 } }],
      ['POST', '/api/v1/admin/settings/auth/saml/test', 'settings:manage', { attribute_mapping: { email: 'mail' } }],
      ['POST', '/api/v1/admin/settings/auth/saml/generate-keypair', 'settings:manage'],
      ['POST', '/api/v1/admin/settings/auth/saml/fetch-metadata', 'settings:manage', { metadata_url: 'http://127.0.0.1:1/metadata' }],
      ['GET', '/api/v1/users', 'admin'],
      ['GET', `/api/v1/users/${user.id}`, 'admin'],
      ['POST', '/api/v1/users', 'admin', { email: email(), name: 'Row test', role_id: BUILTIN_ROLES.viewer.id }],
      ['PUT', `/api/v1/users/${user.id}`, 'admin', { name: 'Renamed' }],
      ['DELETE', `/api/v1/users/${user.id}`, 'admin'],
    ];
    const expected: Record<string, number> = { GET: 200, PUT: 200, DELETE: 200 };
    for (const [method, path, permission, body] of rows) {
      expect((await api.request(method, path, { body })).status, `${method} ${path} without a token`).toBe(401);
      const without = api.token(PERMISSIONS.filter((p) => p !== permission), orgId);
      expect((await api.request(method, path, { token: without, body })).status, `${method} ${path} without ${permission}`).toBe(403);
      const allowed = await api.request(method, path, { token: api.token([permission], orgId), body });
      const want = path.endsWith('/fetch-metadata') ? 400 : path === '/api/v1/users' && method === 'POST' ? 201 : path.endsWith('/generate-keypair') ? 201 : (expected[method] ?? 200);
      expect(allowed.status, `${method} ${path} with ${permission}: ${allowed.text.slice(0, 300)}`).toBe(want);
    }
  });
});
