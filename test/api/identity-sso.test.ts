// LDAP and SAML login through the API (issue 13): a real slapd and a SAML
// identity provider built with samlify, both on 127.0.0.1. Settings are made
// the way an admin makes them (PUT /v1/settings/auth, fetch-metadata,
// generate-keypair), and no answer or log line of the run holds a secret.
import { randomUUID } from 'node:crypto';
import { generate as selfsigned } from 'selfsigned';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { CLAIMS, alterResponse, startTestIdp, type TestIdp } from '../helpers/saml-idp.js';
import { startTestApi, type ApiResponse, type TestApi } from '../helpers/api.js';
import { startSlapd, type RunningSlapd } from '../services/slapd.js';

const PEOPLE = 'ou=people,dc=cairn,dc=test';
const GROUPS = 'ou=groups,dc=cairn,dc=test';
const SERVICE_DN = 'cn=cairn-svc,ou=services,dc=cairn,dc=test';
const SERVICE_PASSWORD = `svc-${randomUUID()}`;
const ALICE_PASSWORD = `alice-${randomUUID()}`;
const BOB_PASSWORD = `bob-${randomUUID()}`;
const ANALYSTS = `cn=analysts,${GROUPS}`;
const LOCAL_PASSWORD = `local-${randomUUID()}`;

const SEED = [
  `dn: ${PEOPLE}\nobjectClass: organizationalUnit\nou: people`,
  `dn: ${GROUPS}\nobjectClass: organizationalUnit\nou: groups`,
  `dn: ou=services,dc=cairn,dc=test\nobjectClass: organizationalUnit\nou: services`,
  `dn: ${SERVICE_DN}\nobjectClass: applicationProcess\nobjectClass: simpleSecurityObject\ncn: cairn-svc\nuserPassword: ${SERVICE_PASSWORD}`,
  `dn: uid=alice,${PEOPLE}\nobjectClass: inetOrgPerson\nuid: alice\ncn: Alice Analyst\nsn: Analyst\nmail: alice@example.com\nuserPassword: ${ALICE_PASSWORD}\nmemberOf: ${ANALYSTS}`,
  `dn: uid=bob,${PEOPLE}\nobjectClass: inetOrgPerson\nuid: bob\ncn: Bob Builder\nsn: Builder\nmail: bob@example.com\nuserPassword: ${BOB_PASSWORD}`,
  `dn: ${ANALYSTS}\nobjectClass: groupOfNames\ncn: analysts\nmember: uid=alice,${PEOPLE}`,
].join('\n\n');

let api: TestApi;
let admin: string;
let slapd: RunningSlapd;
let idp: TestIdp;
const orgId = 'default';
const logLines: string[] = [];
const answers: string[] = [];
const secrets: string[] = [SERVICE_PASSWORD, ALICE_PASSWORD, BOB_PASSWORD, LOCAL_PASSWORD];

async function call(method: string, path: string, options: Parameters<TestApi['request']>[2] = {}): Promise<ApiResponse> {
  const res = await api.request(method, path, options);
  answers.push(res.text);
  return res;
}

beforeAll(async () => {
  [slapd, idp] = await Promise.all([startSlapd(SEED), startTestIdp()]);
  api = await startTestApi({ logLines, env: { CAIRN_ORG_ID: orgId, CAIRN_OUTBOUND_ALLOW: '127.0.0.1', CAIRN_LOGIN_MAX_FAILURES: '1000' } });
  admin = api.token('all', orgId);
});

afterAll(async () => {
  await api?.close();
  await Promise.all([slapd?.stop(), idp?.close()]);
  // Every answer and every log line of the run, debug level included.
  expect(logLines.some((line) => line.includes('"msg":"login failed"'))).toBe(true);
  const everything = [...answers, ...logLines].join('\n');
  for (const secret of secrets) expect(everything).not.toContain(secret);
});

describe('LDAP login against slapd', () => {
  beforeAll(async () => {
    const local = await call('POST', '/api/v1/users', { token: admin, body: { email: 'root@example.com', name: 'Local admin', role_id: BUILTIN_ROLES.admin.id, password: LOCAL_PASSWORD } });
    expect(local.status).toBe(201);
    await call('POST', '/api/v1/users', { token: admin, body: { email: 'carol@example.com', name: 'Local viewer', role_id: BUILTIN_ROLES.viewer.id, password: LOCAL_PASSWORD } });
    const put = await call('PUT', '/api/v1/settings/auth', {
      token: admin,
      body: {
        method: 'ldap',
        ldap: {
          server_url: slapd.url,
          bind_dn: SERVICE_DN,
          bind_password: SERVICE_PASSWORD,
          search_base: PEOPLE,
          user_filter: '(uid=%s)',
          group_mapping: { [ANALYSTS]: BUILTIN_ROLES.analyst.id },
          default_role_id: BUILTIN_ROLES.viewer.id,
        },
      },
    });
    expect(put.status, put.text).toBe(200);
  });

  it('logs a directory user in, provisions them, and maps their group to a role', async () => {
    const alice = await call('POST', '/api/v1/auth/login', { body: { email: 'alice', password: ALICE_PASSWORD } });
    expect(alice.status, alice.text).toBe(200);
    expect(alice.body.data).toMatchObject({ user: { email: 'alice@example.com', name: 'Alice Analyst', role_name: 'analyst', source: 'ldap' } });
    const bob = await call('POST', '/api/v1/auth/login', { body: { email: 'bob', password: BOB_PASSWORD } });
    expect(bob.body.data).toMatchObject({ user: { email: 'bob@example.com', role_name: 'viewer', source: 'ldap' } });
    // Logging in again finds the same user, not a second one.
    await call('POST', '/api/v1/auth/login', { body: { email: 'alice', password: ALICE_PASSWORD } });
    const users = await call('GET', '/api/v1/users?q=alice', { token: admin });
    expect((users.body.data as { total: number }).total).toBe(1);
  });

  it('refuses a wrong password and a filter injection with 401', async () => {
    expect((await call('POST', '/api/v1/auth/login', { body: { email: 'alice', password: 'wrong-password' } })).status).toBe(401);
    for (const name of ['*)(uid=*', '*', 'alice)(|(uid=*', 'ali*']) {
      expect((await call('POST', '/api/v1/auth/login', { body: { email: name, password: ALICE_PASSWORD } })).status, name).toBe(401);
    }
  });

  it('tells the login page, without a session, that directory users log in with the same form', async () => {
    const res = await fetch(`${api.url}/api/v1/auth/methods`);
    expect(((await res.json()) as { data: unknown }).data).toEqual({ methods: ['local', 'ldap'], saml_login_url: null });
  });

  it('lets a local admin log in with their password while LDAP is the method, and no other local user', async () => {
    expect((await call('POST', '/api/v1/auth/login', { body: { email: 'root@example.com', password: LOCAL_PASSWORD } })).status).toBe(200);
    expect((await call('POST', '/api/v1/auth/login', { body: { email: 'carol@example.com', password: LOCAL_PASSWORD } })).status).toBe(401);
  });

  it('tests the settings step by step: connect, service bind, search', async () => {
    const good = await call('POST', '/api/v1/settings/auth/test', { token: admin, body: { username: 'alice' } });
    expect(good.status).toBe(200);
    expect(good.body.data).toMatchObject({ success: true, steps: [{ name: 'connect', passed: true }, { name: 'service_bind', passed: true }, { name: 'search', passed: true }] });
    const badBind = await call('POST', '/api/v1/settings/auth/test', { token: admin, body: { ldap: { bind_password: 'not-the-service-password' } } });
    const steps = (badBind.body.data as { steps: { name: string; passed: boolean; message: string }[] }).steps;
    expect(steps.map((s) => [s.name, s.passed])).toEqual([['connect', true], ['service_bind', false], ['search', false]]);
    expect(steps[2]!.message).toMatch(/not run/);
    expect(badBind.text).not.toMatch(/\bat .*\.ts:\d+/); // no stack trace
    const down = await call('POST', '/api/v1/settings/auth/test', { token: admin, body: { ldap: { server_url: 'ldap://127.0.0.1:1', timeout_ms: 1000 } } });
    expect((down.body.data as { steps: { passed: boolean }[] }).steps[0]!.passed).toBe(false);
  });
});

describe('SAML login against a samlify identity provider', () => {
  let spMetadata: string;

  beforeAll(async () => {
    const fetched = await call('POST', '/api/v1/admin/settings/auth/saml/fetch-metadata', { token: admin, body: { metadata_url: idp.metadataUrl } });
    expect(fetched.status, fetched.text).toBe(200);
    const metadata = fetched.body.data as { entity_id: string; sso_url: string; slo_url: string; certificate: string };
    expect(metadata).toMatchObject({ entity_id: idp.entityId, sso_url: idp.ssoUrl });
    const pair = await call('POST', '/api/v1/admin/settings/auth/saml/generate-keypair', { token: admin });
    expect(pair.status).toBe(201);
    secrets.push((pair.body.data as { private_key: string }).private_key.split('\n')[5]!);
    // The key is answered once and only ever shown redacted after.
    answers.pop();
    const put = await call('PUT', '/api/v1/settings/auth', {
      token: admin,
      body: {
        method: 'saml',
        saml: {
          ...metadata,
          slo_url: metadata.slo_url ?? '',
          provider: 'generic',
          mode: 'provision',
          attribute_mapping: { email: CLAIMS.email, first_name: CLAIMS.first_name, last_name: CLAIMS.last_name, groups: CLAIMS.groups },
          group_mapping: { 'cairn-analysts': BUILTIN_ROLES.analyst.id },
        },
      },
    });
    expect(put.status, put.text).toBe(200);
    expect((put.body.data as { saml: { sp_private_key: string; certificate: string } }).saml).toMatchObject({ sp_private_key: '[redacted]', certificate: '[redacted]' });
    const res = await fetch(`${api.url}/api/v1/auth/saml/metadata`);
    expect(res.headers.get('content-type')).toContain('xml');
    spMetadata = await res.text();
  });

  /** Starts login at cairn as a browser would, and has the IdP answer it. */
  async function idpAnswer(user: { nameId: string; email?: string; groups?: string[] }, options: { audience?: string } = {}) {
    const start = await fetch(`${api.url}/api/v1/auth/saml/login?return_to=/incidents`, { redirect: 'manual' });
    expect(start.status).toBe(302);
    const sp = idp.trust(spMetadata);
    const request = await idp.readRequest(sp, start.headers.get('location')!);
    return { SAMLResponse: await idp.loginResponse(sp, { inResponseTo: request.id, user: { firstName: 'Sam', lastName: 'Ell', ...user }, ...options }), RelayState: request.relayState ?? '' };
  }

  async function postAssertion(form: { SAMLResponse: string; RelayState: string }) {
    return fetch(`${api.url}/api/v1/auth/saml/acs`, { method: 'POST', redirect: 'manual', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() });
  }

  it('tells the login page, without a session, where SAML login starts, and nothing of its settings', async () => {
    const res = await fetch(`${api.url}/api/v1/auth/methods`);
    const text = await res.text();
    expect(JSON.parse(text).data).toEqual({ methods: ['local', 'saml'], saml_login_url: '/api/v1/auth/saml/login' });
    expect(text).not.toContain(idp.ssoUrl);
    const start = await fetch(`${api.url}/api/v1/auth/saml/login?return_to=/incidents`, { redirect: 'manual' });
    expect(start.headers.get('location')).toMatch(new RegExp(`^${idp.ssoUrl.replace(/[.?]/g, '\\$&')}`));
  });

  it('completes a login: the user is provisioned with the mapped role and gets a session', async () => {
    const form = await idpAnswer({ nameId: 'sam-1', email: 'sam@example.com', groups: ['cairn-analysts'] });
    const res = await postAssertion(form);
    expect(res.status, await res.clone().text()).toBe(302);
    expect(res.headers.get('location')).toBe('/incidents');
    const cookie = res.headers.getSetCookie().find((c) => c.startsWith('cairn_session='))!.split(';')[0]!;
    const me = await call('GET', '/api/v1/auth/me', { headers: { cookie } });
    expect(me.body.data).toMatchObject({ via: 'session', user: { email: 'sam@example.com', name: 'Sam Ell', role_name: 'analyst', source: 'saml' } });
    const token = await call('POST', '/api/v1/auth/token', { headers: { cookie, origin: api.url } });
    expect((await call('GET', '/api/v1/incidents', { token: (token.body.data as { token: string }).token })).status).toBe(200);
    // The same response a second time is a replay.
    expect((await postAssertion(form)).status).toBe(401);
  });

  it('refuses a tampered assertion, a wrong audience and an unsolicited response', async () => {
    const tampered = await idpAnswer({ nameId: 'eve', email: 'eve@example.com' });
    tampered.SAMLResponse = alterResponse(tampered.SAMLResponse, (xml) => xml.replace('eve@example.com', 'admin@example.com'));
    expect((await postAssertion(tampered)).status).toBe(401);
    expect((await postAssertion(await idpAnswer({ nameId: 'x', email: 'x@example.com' }, { audience: 'https://someone-else.example' }))).status).toBe(401);
    const sp = idp.trust(spMetadata);
    const unsolicited = await idp.loginResponse(sp, { inResponseTo: null, user: { nameId: 'u', email: 'u@example.com' } });
    expect((await postAssertion({ SAMLResponse: unsolicited, RelayState: '' })).status).toBe(401);
    const users = await call('GET', '/api/v1/users?q=example.com', { token: admin });
    expect((users.body.data as { users: { email: string }[] }).users.map((u) => u.email)).not.toContain('admin@example.com');
  });

  it('runs the four SAML checks in order, and each fails with its message', async () => {
    const good = await call('POST', '/api/v1/admin/settings/auth/saml/test', { token: admin, body: {} });
    const checks = (good.body.data as { success: boolean; checks: { name: string; passed: boolean; message: string }[] }).checks;
    expect(checks.map((c) => c.name)).toEqual(['certificate_validity', 'sso_url_reachable', 'sp_keypair_valid', 'attribute_mapping']);
    expect(good.body.data).toMatchObject({ success: true });
    expect(checks[0]!.message).toMatch(/valid until \d{4}-/);

    const year = 365 * 86_400_000;
    const old = await selfsigned([{ name: 'commonName', value: 'old idp' }], { keySize: 2048, notBeforeDate: new Date(Date.now() - 2 * year), notAfterDate: new Date(Date.now() - year) });
    const failing = async (body: Record<string, unknown>, name: string) => {
      const res = await call('POST', '/api/v1/admin/settings/auth/saml/test', { token: admin, body });
      const result = res.body.data as { success: boolean; checks: { name: string; passed: boolean; message: string }[] };
      expect(result.success).toBe(false);
      return result.checks.find((c) => c.name === name)!;
    };
    expect((await failing({ certificate: old.cert }, 'certificate_validity')).message).toMatch(/expired on/);
    expect((await failing({ sso_url: 'http://127.0.0.1:1/sso' }, 'sso_url_reachable')).passed).toBe(false);
    const other = await selfsigned([{ name: 'commonName', value: 'other' }], { keySize: 2048 });
    expect((await failing({ sp_certificate: other.cert }, 'sp_keypair_valid')).passed).toBe(false);
    expect((await failing({ attribute_mapping: { first_name: CLAIMS.first_name } }, 'attribute_mapping')).message).toMatch(/email/);
  });
});
