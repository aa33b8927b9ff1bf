// The console's settings and administration in a real browser (issue 41,
// item 5): an API key created and its token shown once (and working, then
// revoked), users created and their role changed, a webhook channel's test
// send arriving and recorded in the history; each page only for the roles
// that may see it. Debian's Chromium against a real API.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generate } from 'selfsigned';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { startFeedServer } from '../helpers/feeds.js';
import { startTestIdp } from '../helpers/saml-idp.js';
import { expectAccessible, launchBrowser, logIn, openConsole, screenshotBothSchemes, type ConsolePage } from '../helpers/browser.js';

const PASSWORD = 'correct horse battery staple';

describe('the settings pages in a browser', () => {
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const who = (role: string) => ({ email: `${role}-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD });
  const boss = who('admin');
  const analyst = who('analyst');
  const viewer = who('viewer');
  let api: TestApi;
  let admin: string;
  let browser: Browser;
  let webhook: http.Server;
  const received: string[] = [];
  const opened: ConsolePage[] = [];

  async function open(): Promise<Page> {
    const consolePage = await openConsole(browser, api.url);
    opened.push(consolePage);
    return consolePage.page;
  }



  beforeAll(async () => {
    webhook = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(body);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
    api = await startTestApi({ stages: ['store'], env: { CAIRN_ORG_ID: orgId, CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000', CAIRN_OUTBOUND_ALLOW: '127.0.0.1' } });
    admin = api.token('all', orgId);
    for (const [user, role, name] of [
      [boss, BUILTIN_ROLES.admin.id, 'Ada Admin'],
      [analyst, BUILTIN_ROLES.analyst.id, 'Ana Analyst'],
      [viewer, BUILTIN_ROLES.viewer.id, 'Vera Viewer'],
    ] as const) {
      const res = await api.request('POST', '/api/v1/users', { token: admin, body: { email: user.email, name, role_id: role, password: user.password } });
      expect(res.status, res.text).toBe(201);
    }
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const { context } of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
    webhook?.close();
  });

  it("creates an API key whose token is shown once and works, then revokes it", async () => {
    const page = await open();
    await logIn(page, analyst);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('edge sensor');
    await page.getByRole('checkbox', { name: 'signals:read' }).check();
    await page.getByRole('checkbox', { name: 'incidents:read' }).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('alert').filter({ hasText: 'Key "edge sensor" created' });
    await shown.waitFor();
    const token = await shown.getByRole('textbox', { name: 'Token' }).inputValue();
    expect(token).toMatch(/^cairn_/);
    // The token works, with the permissions chosen and no others.
    expect((await api.request('GET', '/api/v1/lead-rules', { token })).status).toBe(200);
    expect((await api.request('GET', '/api/v1/reports/executive', { token })).status).toBe(403);
    // The API lists the key without its token; so does the page.
    const keys = (await api.request('GET', '/api/v1/api-keys', { token: admin })).body.data as { api_keys: Record<string, unknown>[] };
    expect(keys.api_keys).toEqual([expect.objectContaining({ name: 'edge sensor', permissions: ['signals:read', 'incidents:read'] })]);
    expect(JSON.stringify(keys)).not.toContain(token.slice(-12));
    const table = page.getByRole('table', { name: 'API keys, newest first' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(1);
    expect(await table.locator('tbody tr').getByRole('cell').nth(1).textContent()).toBe('signals:read, incidents:read');
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'settings-api-keys');

    // Once dismissed, or after a reload, the token is nowhere on the page.
    await shown.getByRole('button', { name: 'I have stored it' }).click();
    expect(await page.content()).not.toContain(token);
    await page.reload();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await table.waitFor();
    expect(await page.content()).not.toContain(token);

    page.once('dialog', (dialog) => void dialog.accept());
    await page.getByRole('button', { name: 'Revoke edge sensor' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'API key revoked' }).count()).toBe(1);
    await expect.poll(async () => (await api.request('GET', '/api/v1/lead-rules', { token })).status).toBe(401);
  });

  it('lets an admin create a user and change a role, as the API then has them', async () => {
    const page = await open();
    await logIn(page, boss);
    await page.goto('/settings/users');
    await page.getByRole('heading', { name: 'Users' }).waitFor();
    const table = page.getByRole('table', { name: 'Users by email' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(3);
    await page.getByLabel('Email').fill('new.analyst@example.com');
    await page.getByLabel('Name', { exact: true }).fill('Nina New');
    await page.getByLabel('Role', { exact: true }).selectOption({ label: 'analyst' });
    await page.getByLabel(/^Password/).fill('another long password 42');
    await page.getByRole('button', { name: 'Create user' }).click();
    await expect.poll(() => table.locator('tbody tr').count()).toBe(4);
    const users = (await api.request('GET', '/api/v1/users', { token: admin })).body.data as { users: { id: string; email: string; role_name: string }[] };
    expect(users.users.find((u) => u.email === 'new.analyst@example.com')?.role_name).toBe('analyst');

    await page.getByRole('combobox', { name: `Role of ${viewer.email}` }).selectOption({ label: 'analyst' });
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'updated' }).count()).toBe(1);
    const changed = (await api.request('GET', '/api/v1/users', { token: admin })).body.data as { users: { email: string; role_name: string }[] };
    expect(changed.users.find((u) => u.email === viewer.email)?.role_name).toBe('analyst');
    await page.getByRole('combobox', { name: `Role of ${viewer.email}` }).selectOption({ label: 'viewer' });
    await expect.poll(async () => ((await api.request('GET', '/api/v1/users', { token: admin })).body.data as { users: { email: string; role_name: string }[] }).users.find((u) => u.email === viewer.email)?.role_name).toBe('viewer');

    // A custom role from chosen permissions, then deleted.
    await page.getByLabel('Role name').fill('Hunter');
    const permissions = page.getByRole('group', { name: 'Permissions' });
    await permissions.getByRole('checkbox', { name: 'graph:read' }).check();
    await permissions.getByRole('checkbox', { name: 'signals:read' }).check();
    await page.getByRole('button', { name: 'Create role' }).click();
    const rolesTable = page.getByRole('table', { name: 'Roles and their permissions' });
    await rolesTable.getByRole('rowheader', { name: 'Hunter' }).waitFor();
    const roles = (await api.request('GET', '/api/v1/roles', { token: admin })).body.data as { roles: { name: string; permissions: string[] }[] };
    expect(roles.roles.find((r) => r.name === 'Hunter')?.permissions.sort()).toEqual(['graph:read', 'signals:read']);
    expect(await rolesTable.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'Hunter' }) }).getByRole('cell').first().textContent()).toBe('graph:read, signals:read');
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'settings-users');
    await page.getByRole('button', { name: 'Delete role Hunter' }).click();
    await expect.poll(() => rolesTable.getByRole('rowheader', { name: 'Hunter' }).count()).toBe(0);
    const after = (await api.request('GET', '/api/v1/roles', { token: admin })).body.data as { roles: { name: string }[] };
    expect(after.roles.map((r) => r.name)).not.toContain('Hunter');
  });

  it("sends a channel's test message, which arrives and is recorded in the history", async () => {
    const page = await open();
    await logIn(page, boss);
    await page.goto('/settings/notifications');
    await page.getByRole('heading', { name: 'Notifications' }).waitFor();
    const url = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;
    await page.getByLabel('Name').fill('Ops webhook');
    await page.getByLabel('URL').fill(url);
    await page.getByRole('button', { name: 'Create channel' }).click();
    const channels = page.getByRole('table', { name: 'Notification channels by name' });
    await expect.poll(() => channels.locator('tbody tr').first().getByRole('cell').allTextContents()).toEqual(['Ops webhook', 'webhook', `POST ${url}`, 'Enabled', 'Test send']);

    await page.getByRole('button', { name: 'Send a test through Ops webhook' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Test message' }).textContent()).toBe('Test message sent');
    expect(received.length).toBe(1);
    expect(received[0]).toContain('Ops webhook');
    const history = page.getByRole('table', { name: 'Deliveries, newest first' });
    await history.waitFor();
    // The history as the API's session route answers it (the browser's own cookie).
    const fromApi = await page.evaluate(() =>
      fetch('/api/v1/notifications/history').then((r) => r.json() as Promise<{ data: { history: Array<{ event_type: string; channel_name: string; status: string; message: string }> } }>),
    );
    expect(fromApi.data.history.length).toBe(1);
    const entry = fromApi.data.history[0]!;
    expect(entry).toEqual(expect.objectContaining({ event_type: 'notification.test', channel_name: 'Ops webhook', status: 'sent' }));
    expect((await history.locator('tbody tr').first().getByRole('cell').allTextContents()).slice(1)).toEqual([entry.event_type, '(test)', entry.channel_name, entry.status, entry.message]);

    // A rule sending new incidents through the channel, then switched off.
    await page.getByLabel('Rule name').fill('Incidents to ops');
    await page.getByRole('group', { name: 'Events' }).getByRole('checkbox', { name: 'incident.created' }).check();
    await page.getByRole('group', { name: 'Channels' }).getByRole('checkbox', { name: 'Ops webhook' }).check();
    await page.getByRole('button', { name: 'Create rule' }).click();
    const rules = page.getByRole('table', { name: 'Notification rules by name' });
    await expect.poll(() => rules.locator('tbody tr').first().getByRole('cell').allTextContents()).toEqual(['Incidents to ops', 'incident.created', 'Ops webhook', '15 min', '']);
    const stored = (await api.request('GET', '/api/v1/notification-rules', { token: admin })).body.data as { rules: { name: string; event_types: string[]; enabled: boolean }[] };
    expect(stored.rules).toEqual([expect.objectContaining({ name: 'Incidents to ops', event_types: ['incident.created'], enabled: true })]);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'settings-notifications');
    await page.getByRole('checkbox', { name: 'Incidents to ops enabled' }).uncheck();
    await expect
      .poll(async () => ((await api.request('GET', '/api/v1/notification-rules', { token: admin })).body.data as typeof stored).rules[0]?.enabled)
      .toBe(false);
  });

  it("shows the services' health as the API reports it, and switches an alert rule off and on", async () => {
    const page = await open();
    await logIn(page, boss);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('navigation', { name: 'Settings' }).getByRole('link', { name: 'Health' }).click();
    await page.getByRole('heading', { name: 'Service health' }).waitFor();
    const services = page.getByRole('table', { name: 'Services and dependencies' });
    await services.waitFor();
    const fromApi = (await api.request('GET', '/api/v1/health/containers', { token: admin })).body.data as { containers: { name: string; status: string }[] };
    expect((await services.getByRole('rowheader').allTextContents()).map((t) => t.split(' ')[0])).toEqual(fromApi.containers.map((c) => c.name));
    const apiRow = services.getByRole('row').filter({ has: page.getByRole('rowheader', { name: /^api / }) });
    expect(await apiRow.getByRole('cell').first().textContent()).toBe(fromApi.containers.find((c) => c.name === 'api')!.status);

    const rules = (await api.request('GET', '/api/v1/health/alerts', { token: admin })).body.data as { rules: { id: string; name: string; enabled: boolean }[] };
    const rule = rules.rules.find((r) => r.enabled)!;
    const box = page.getByRole('checkbox', { name: `${rule.name} enabled` });
    await box.uncheck();
    await expect.poll(async () => ((await api.request('GET', '/api/v1/health/alerts', { token: admin })).body.data as typeof rules).rules.find((r) => r.id === rule.id)?.enabled).toBe(false);
    await expect.poll(() => box.isChecked()).toBe(false);
    await box.check();
    await expect.poll(async () => ((await api.request('GET', '/api/v1/health/alerts', { token: admin })).body.data as typeof rules).rules.find((r) => r.id === rule.id)?.enabled).toBe(true);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'settings-health');
  });

  it('shows the audit log as the API has it, filtered by action', async () => {
    const page = await open();
    await logIn(page, boss);
    await page.goto('/settings/audit');
    await page.getByRole('heading', { name: 'Audit log' }).waitFor();
    const all = (await api.request('GET', '/api/v1/audit-log?limit=1', { token: admin })).body.data as { total: number };
    const count = page.getByRole('status').filter({ hasText: / entr(y|ies)$/ });
    // Entries are written as the pages are used: at least what the API counted a moment ago.
    await expect.poll(async () => Number((await count.textContent())!.split(' ')[0]!.replace(/,/g, ''))).toBeGreaterThanOrEqual(all.total);
    // The users made at the start (and any since), as the API lists them.
    await page.getByLabel('Action').fill('POST /v1/users');
    await page.getByRole('button', { name: 'Filter' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('action')).toBe('POST /v1/users');
    const made = (await api.request('GET', `/api/v1/audit-log?action=${encodeURIComponent('POST /v1/users')}`, { token: admin })).body.data as {
      entries: { actor_id: string; actor_email: string; actor_via: string; action: string; target_type: string; target_id: string; outcome: string }[];
      total: number;
    };
    expect(made.total).toBeGreaterThanOrEqual(3);
    await expect.poll(() => count.textContent()).toBe(`${made.total} entries`);
    const rows = page.getByRole('table', { name: 'Audit log, newest first' }).locator('tbody tr');
    expect(await rows.count()).toBe(made.total);
    const first = made.entries[0]!;
    expect((await rows.first().getByRole('cell').allTextContents()).slice(1, 5)).toEqual([
      `${first.actor_email || first.actor_id} ${first.actor_via}`,
      'POST /v1/users',
      `${first.target_type} ${first.target_id}`,
      first.outcome,
    ]);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'settings-audit');
  });

  it('uploads a TLS certificate and shows its expiry as the API has it, never its key', async () => {
    const page = await open();
    await logIn(page, boss);
    await page.goto('/settings/tls');
    await page.getByRole('heading', { name: 'TLS certificate' }).waitFor();
    await page.getByText('No certificate stored.').waitFor();
    const host = 'console.tls.test';
    const pems = await generate([{ name: 'commonName', value: host }], {
      keyType: 'ec',
      algorithm: 'sha256',
      notBeforeDate: new Date(Date.now() - 86_400_000),
      notAfterDate: new Date(Date.now() + 90 * 86_400_000),
      extensions: [{ name: 'subjectAltName', altNames: [{ type: 2, value: host }] }],
    });
    await page.getByLabel(/^Certificate \(PEM/).setInputFiles({ name: 'cert.pem', mimeType: 'application/x-pem-file', buffer: Buffer.from(pems.cert) });
    await page.getByLabel(/^Private key/).setInputFiles({ name: 'key.pem', mimeType: 'application/x-pem-file', buffer: Buffer.from(pems.private) });
    await page.getByRole('button', { name: 'Upload' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'TLS certificate' }).textContent()).toMatch(/stored and activated$/);
    const listed = (await api.request('GET', '/api/v1/tls/certificates', { token: admin })).body.data as { certificates: { subject: string; sans: string[]; issuer: string; days_to_expiry: number; active: boolean }[] };
    expect(listed.certificates.length).toBe(1);
    const cert = listed.certificates[0]!;
    expect(cert.active).toBe(true);
    const row = page.getByRole('table', { name: 'Stored certificates, newest first' }).locator('tbody tr').first();
    expect(await row.getByRole('rowheader').textContent()).toBe(cert.subject);
    const cells = await row.getByRole('cell').allTextContents();
    expect([cells[0], cells[1], cells[3], cells[4]]).toEqual([cert.sans.join(', '), cert.issuer, String(cert.days_to_expiry), 'Active']);
    expect(cert.days_to_expiry).toBeGreaterThanOrEqual(89);
    expect(await page.content()).not.toContain('PRIVATE KEY');
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'settings-tls');
  });

  it("tests LDAP and SAML settings with the API's own steps and checks, and never shows a stored secret", async () => {
    const page = await open();
    await logIn(page, boss);
    await page.goto('/settings/auth');
    await page.getByRole('heading', { name: 'Authentication' }).waitFor();
    const secret = 'bind-password-not-to-show-9f3';
    const ldap = { server_url: 'ldap://127.0.0.1:1', bind_dn: 'cn=svc,dc=cairn,dc=test', bind_password: secret, search_base: 'dc=cairn,dc=test', user_filter: '(uid=%s)' };
    await page.getByLabel('Server URL (ldap:// or ldaps://)').fill(ldap.server_url);
    await page.getByLabel('Service bind DN').fill(ldap.bind_dn);
    await page.getByLabel('Service bind password').fill(secret);
    await page.getByLabel('Search base').fill(ldap.search_base);
    await page.getByRole('button', { name: 'Test LDAP' }).click();
    const steps = page.getByRole('list', { name: 'LDAP test steps' });
    await steps.waitFor();
    const tried = (await api.request('POST', '/api/v1/settings/auth/test', { token: admin, body: { ldap } })).body.data as { success: boolean; steps: { name: string; passed: boolean; message: string }[] };
    expect(tried.success).toBe(false);
    expect(await steps.getByRole('listitem').allTextContents()).toEqual(tried.steps.map((c) => `${c.passed ? 'Passed' : 'Failed'}: ${c.name}: ${c.message}`));

    // Saved, the secret comes back as the placeholder, in the API and on the page.
    await page.getByRole('button', { name: 'Save settings' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Authentication settings' }).count()).toBe(1);
    const saved = (await api.request('GET', '/api/v1/settings/auth', { token: admin })).body.data as { ldap: { server_url: string; bind_password: string } };
    expect(saved.ldap).toEqual(expect.objectContaining({ server_url: ldap.server_url, bind_password: '[redacted]' }));
    expect(await page.getByLabel('Service bind password').inputValue()).toBe('[redacted]');
    await page.reload();
    await page.getByRole('heading', { name: 'Authentication' }).waitFor();
    await expect.poll(() => page.getByLabel('Service bind password').inputValue()).toBe('[redacted]');
    expect(await page.content()).not.toContain(secret);

    // SAML, from an identity provider's metadata: the four checks as the API makes them.
    const idp = await startTestIdp();
    try {
      const metadata = (await api.request('POST', '/api/v1/admin/settings/auth/saml/fetch-metadata', { token: admin, body: { metadata_url: idp.metadataUrl } })).body.data as { entity_id: string; sso_url: string; certificate: string };
      await page.getByLabel('Identity provider entity ID').fill(metadata.entity_id);
      await page.getByLabel('SSO URL').fill(metadata.sso_url);
      await page.getByLabel('Identity provider signing certificate (PEM)').fill(metadata.certificate);
      await page.getByLabel('Email attribute').fill('email');
      await page.getByRole('button', { name: 'Test SAML' }).click();
      const checks = page.getByRole('list', { name: 'SAML checks' });
      await checks.waitFor();
      const body = { entity_id: metadata.entity_id, sso_url: metadata.sso_url, certificate: metadata.certificate, attribute_mapping: { email: 'email' } };
      const samlTest = (await api.request('POST', '/api/v1/admin/settings/auth/saml/test', { token: admin, body })).body.data as { checks: { name: string; passed: boolean; message: string }[] };
      expect(samlTest.checks.length).toBe(4);
      expect(await checks.getByRole('listitem').allTextContents()).toEqual(samlTest.checks.map((c) => `${c.passed ? 'Passed' : 'Failed'}: ${c.name}: ${c.message}`));
      expect(samlTest.checks.find((c) => c.name === 'sso_url_reachable')?.passed).toBe(true);
    } finally {
      await idp.close();
    }
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'settings-auth');
  });

  it('subscribes to a feed, follows its first sync and shows the library it filled, as the API has them', async () => {
    const feeds = await startFeedServer();
    try {
      feeds.set('/c2.txt', '# command and control\n203.0.113.77\nc2.bad.example\n');
      const page = await open();
      await logIn(page, boss);
      await page.goto('/settings/threat-intel');
      await page.getByRole('heading', { name: 'Threat intel' }).waitFor();
      await page.getByLabel('Feed name').fill('c2 list');
      await page.getByLabel('Kind').selectOption({ label: 'Plain list (one value a line)' });
      await page.getByLabel('Feed URL').fill(`${feeds.url}/c2.txt`);
      await page.getByRole('button', { name: 'Subscribe' }).click();
      const jobs = page.getByRole('table', { name: 'Sync jobs, newest first' });
      await expect.poll(() => jobs.locator('tbody tr').first().getByRole('cell').nth(1).textContent(), { timeout: 30_000 }).toBe('succeeded');
      const fromApi = (await api.request('GET', '/api/v1/threatfeed/jobs', { token: admin })).body.data as { jobs: { status: string; fetched: number; added: number }[] };
      expect(fromApi.jobs[0]).toEqual(expect.objectContaining({ status: 'succeeded', added: 2 }));
      expect((await jobs.locator('tbody tr').first().getByRole('cell').allTextContents()).slice(0, 4)).toEqual(['c2 list', 'succeeded', String(fromApi.jobs[0]!.fetched), '2']);
      const library = (await api.request('GET', '/api/v1/threatfeed/library', { token: admin })).body.data as { indicators: { value: string }[]; total: number };
      await expect.poll(() => page.getByRole('status').filter({ hasText: / indicators?/ }).textContent()).toBe(`${library.total} indicators`);
      const values = await page.getByRole('table', { name: 'Indicators, most recently changed first' }).locator('tbody tr td:first-child').allTextContents();
      expect(values.sort()).toEqual(library.indicators.map((i) => i.value).sort());
      expect(values.sort()).toEqual(['203.0.113.77', 'c2.bad.example']);
      await expectAccessible(page);
      await screenshotBothSchemes(page, 'settings-threat-intel');
    } finally {
      await feeds.close();
    }
  });

  it("changes an appliance setting and resets it to the environment's, as the API then answers", async () => {
    const page = await open();
    await logIn(page, boss);
    await page.goto('/settings/appliance');
    await page.getByRole('heading', { name: 'Appliance' }).waitFor();
    const before = (await api.request('GET', '/api/v1/appliance/config', { token: admin })).body.data as Record<string, unknown> & { stored: string[] };
    const window = page.getByLabel('Correlation window');
    await expect.poll(() => window.inputValue()).toBe(String(before.correlation_window));
    expect(await page.getByLabel('Artifact retention days').inputValue()).toBe(String(before.artifact_retention_days));
    expect(before.stored).toEqual([]);
    await window.fill('45m');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Appliance config changed' }).textContent()).toBe('Appliance config changed: correlation_window');
    const changed = (await api.request('GET', '/api/v1/appliance/config', { token: admin })).body.data as typeof before;
    expect(changed.correlation_window).toBe('45m');
    expect(changed.stored).toEqual(['correlation_window']);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'settings-appliance');
    await page.getByRole('button', { name: "Reset Correlation window to the environment's" }).click();
    await expect.poll(() => window.inputValue()).toBe(String(before.correlation_window));
    const reset = (await api.request('GET', '/api/v1/appliance/config', { token: admin })).body.data as typeof before;
    expect(reset.correlation_window).toBe(before.correlation_window);
    expect(reset.stored).toEqual([]);
  });

  it('shows a viewer only their API keys, and the API refuses the rest anyway', async () => {
    const page = await open();
    await logIn(page, viewer);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    // A viewer reads health and threat intel (health:read, threatfeed:read), nothing else of administration.
    expect(await page.getByRole('navigation', { name: 'Settings' }).getByRole('link').allTextContents()).toEqual(['API keys', 'Health', 'Threat intel']);
    await expect.poll(() => page.getByText('Your keys').count()).toBe(1);
    const login = await api.request('POST', '/api/v1/auth/login', { body: viewer });
    const token = (login.body.data as { token: string }).token;
    expect((await api.request('GET', '/api/v1/users', { token })).status).toBe(403);
    expect((await api.request('GET', '/api/v1/audit-log', { token })).status).toBe(403);
    expect((await api.request('POST', '/api/v1/notification-channels', { token, body: { name: 'x', type: 'webhook', settings: { url: 'http://127.0.0.1/' } } })).status).toBe(403);
  });
});
