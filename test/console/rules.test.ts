// The console's rules pages in a real browser (issue 41, item 3): the list
// with origin, state and firings as the API has them; the editor's live
// preview against the dry-run API; Sigma import by paste and export; a
// backfill followed to its end. Debian's Chromium against a real API whose
// pipeline parsed the lines and raised the leads.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { expectAccessible, launchBrowser, logIn, openConsole, screenshotBothSchemes, type ConsolePage } from '../helpers/browser.js';

const PASSWORD = 'correct horse battery staple';
const ADDRESSES = 10;
const LINES_PER_ADDRESS = 6;

const SIGMA = `title: SSH login failures from anywhere
id: 6a0f3a52-4a3b-4b8e-9d57-1f5c1d2e7a11
status: experimental
author: Console Test
description: a failed SSH password
logsource:
  product: linux
  service: sshd
detection:
  keywords:
    - 'Failed password'
  condition: keywords
level: low
---
title: A macOS rule cairn cannot read
id: 0b9a2c6e-9f5e-4b0d-8d0b-3c7e2e8f4d22
logsource:
  product: macos
  category: process_creation
detection:
  selection:
    Image|endswith: '/osascript'
  condition: selection
level: medium
`;

describe('the rules pages in a browser', () => {
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const analyst = { email: `analyst-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  const viewer = { email: `viewer-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  let api: TestApi;
  let admin: string;
  let ruleId: string;
  let browser: Browser;
  const opened: ConsolePage[] = [];

  async function open(): Promise<Page> {
    const consolePage = await openConsole(browser, api.url);
    opened.push(consolePage);
    return consolePage.page;
  }



  beforeAll(async () => {
    api = await startTestApi({ stages: ['store', 'analysis'], env: { CAIRN_ORG_ID: orgId, CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' } });
    admin = api.token('all', orgId);
    // The pack first: the list is newest first, and the hand-written rule is then on its first page.
    const pack = await api.request('POST', '/api/v1/lead-rules/pack/update', { token: admin, body: {} });
    expect(pack.status, pack.text).toBe(200);
    const rule = await api.request('POST', '/api/v1/lead-rules', {
      token: admin,
      body: { name: 'SSH password guessing', severity: 'high', conditions: { source: 'auth', pattern: '"Failed password"', threshold: 5, window: '1h', group_by: 'source.ip' } },
    });
    expect(rule.status, rule.text).toBe(201);
    ruleId = (rule.body.data as { id: string }).id;
    for (const [who, role] of [
      [analyst, BUILTIN_ROLES.analyst.id],
      [viewer, BUILTIN_ROLES.viewer.id],
    ] as const) {
      const res = await api.request('POST', '/api/v1/users', { token: admin, body: { email: who.email, name: role === BUILTIN_ROLES.viewer.id ? 'Vera Viewer' : 'Ana Analyst', role_id: role, password: who.password } });
      expect(res.status, res.text).toBe(201);
    }
    const now = Date.now();
    const artifacts = Array.from({ length: ADDRESSES * LINES_PER_ADDRESS }, (_, i) => ({
      source: 'auth',
      timestamp: new Date(now - (i + 1) * 30_000).toISOString(),
      raw: `Nov 27 10:00:00 web sshd[${1000 + i}]: Failed password for ${i % 3 === 0 ? 'root' : 'invalid user admin'} from 198.51.100.${i % ADDRESSES} port ${40000 + i} ssh2`,
    }));
    const ingested = await api.request('POST', '/api/v1/artifacts', { token: admin, body: { artifacts } });
    expect(ingested.status, ingested.text).toBe(202);
    await eventually(
      async () => {
        const leads = await api.request('GET', `/api/v1/leads?limit=1&rule_id=${ruleId}`, { token: admin });
        expect((leads.body.data as { total: number }).total).toBe(ADDRESSES);
        const parsed = await api.request('GET', '/api/v1/artifacts?limit=1&query=user.name:*', { token: admin });
        expect((parsed.body.data as { total: number }).total).toBe(artifacts.length);
      },
      60_000,
      250,
    );
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const { context } of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
  });

  it('lists the rules with their origin, state and firings as the API has them', async () => {
    const page = await open();
    await logIn(page, analyst);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rules' }).click();
    await page.getByRole('heading', { name: 'Lead rules' }).waitFor();
    const listed = (await api.request('GET', '/api/v1/lead-rules?limit=1', { token: admin })).body.data as { total: number };
    await expect.poll(() => page.getByRole('status').filter({ hasText: / rules?$/ }).textContent()).toBe(`${listed.total} rules`);
    const table = page.getByRole('table', { name: 'Lead rules, newest first' });
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'SSH password guessing', exact: true }) });
    const detail = (await api.request('GET', `/api/v1/lead-rules/${ruleId}`, { token: admin })).body.data as { firings_by_day: { count: number }[] };
    const fired = detail.firings_by_day.reduce((sum, d) => sum + d.count, 0);
    expect(fired).toBe(ADDRESSES);
    await expect.poll(() => row.getByRole('cell').allTextContents()).toEqual(['SSH password guessing', 'Hand-written', 'Enabled', 'high', String(fired), expect.any(String)]);
    // The shipped pack's rules say which pack version wrote them.
    const pack = (await api.request('GET', '/api/v1/lead-rules/pack', { token: admin })).body.data as { version: string };
    expect(await table.getByRole('cell', { name: `Rule pack ${pack.version}` }).count()).toBeGreaterThan(10);
    await expect.poll(() => table.getByRole('cell', { name: '…' }).count(), { timeout: 30_000 }).toBe(0);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'rules');
  });

  it("previews an edited rule with the dry-run API's counts, completes fields, and saves it", async () => {
    const page = await open();
    await logIn(page, analyst);
    await page.goto(`/rules/${ruleId}`);
    await page.getByRole('heading', { name: 'SSH password guessing', level: 1 }).waitFor();
    const counts = page.getByRole('region', { name: 'Preview' }).getByRole('status').first();
    // As stored: the ten guessing addresses.
    await expect.poll(() => counts.textContent(), { timeout: 20_000 }).toBe(`${ADDRESSES * LINES_PER_ADDRESS} matching events, ${ADDRESSES} leads`);

    const pattern = page.getByRole('combobox', { name: 'Pattern' });
    await pattern.fill('"Failed password" AND user.na');
    const options = page.getByRole('listbox', { name: 'Suggestions' });
    await expect.poll(() => options.getByRole('option').allTextContents()).toEqual([expect.stringMatching(/^user\.name/)]);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await expect.poll(() => pattern.inputValue()).toBe('"Failed password" AND user.name:');
    await expect.poll(() => options.getByRole('option').count()).toBe(2);
    await page.keyboard.press('Escape');
    await pattern.fill('"Failed password" AND user.name:root');
    await page.getByLabel('Threshold').fill('2');

    const trial = await api.request('POST', '/api/v1/lead-rules/test', {
      token: admin,
      body: { id: ruleId, conditions: { pattern: '"Failed password" AND user.name:root', threshold: 2 }, start: new Date(Date.now() - 7 * 86_400_000).toISOString() },
    });
    expect(trial.status, trial.text).toBe(200);
    const { events, leads } = trial.body.data as { events: number; leads: number };
    expect(events).toBe((ADDRESSES * LINES_PER_ADDRESS) / 3);
    expect(leads).toBeGreaterThan(0);
    expect(leads).toBeLessThan(ADDRESSES + 1);
    await expect.poll(() => counts.textContent(), { timeout: 20_000 }).toBe(`${events} matching events, ${leads} leads`);
    expect(await page.getByRole('table', { name: 'Newest matching events' }).locator('tbody tr').count()).toBe(5);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'rule-editor');

    await page.getByRole('button', { name: 'Save rule' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Lead rule updated' }).count()).toBe(1);
    const saved = (await api.request('GET', `/api/v1/lead-rules/${ruleId}`, { token: admin })).body.data as { conditions: Record<string, unknown> };
    expect(saved.conditions).toEqual({ source: 'auth', pattern: '"Failed password" AND user.name:root', threshold: 2, window: '1h', group_by: 'source.ip' });

    // A pattern the language refuses: the preview says so in the API's words.
    await pattern.fill('user.name:(root');
    await expect.poll(() => page.getByRole('region', { name: 'Preview' }).locator('.error').textContent(), { timeout: 20_000 }).toMatch(/pattern/);
  });

  it('imports Sigma rules pasted in, with the result of each, and exports a rule as Sigma', async () => {
    const page = await open();
    await logIn(page, analyst);
    await page.goto('/rules');
    await page.getByRole('navigation', { name: 'Rules' }).getByRole('link', { name: 'Import Sigma' }).click();
    await page.getByRole('heading', { name: 'Import Sigma rules' }).waitFor();
    await page.getByLabel('Sigma YAML (one rule, or many separated by ---)').fill(SIGMA);
    await page.getByRole('button', { name: 'Import' }).click();
    const results = page.getByRole('table', { name: 'Import results, one row per Sigma rule' });
    await results.waitFor();
    const rows = results.locator('tbody tr');
    expect(await rows.nth(0).getByRole('cell').allTextContents()).toEqual(['SSH login failures from anywhere', 'Imported (created)', '']);
    expect(await rows.nth(1).getByRole('cell').nth(1).textContent()).toBe('Skipped');
    expect(await rows.nth(1).getByRole('cell').nth(2).textContent()).toMatch(/macos/i);
    expect(await page.getByRole('status').filter({ hasText: 'imported' }).textContent()).toBe('1 rule(s) imported, 1 skipped');
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'rules-import');

    // The imported rule, as the API lists it: a Sigma origin.
    const list = (await api.request('GET', '/api/v1/lead-rules?limit=100', { token: admin })).body.data as { rules: { id: string; name: string; origin: { format: string } | null }[] };
    const imported = list.rules.find((r) => r.name === 'SSH login failures from anywhere')!;
    expect(imported.origin?.format).toBe('sigma');
    await rows.nth(0).getByRole('link').click();
    await page.getByRole('heading', { name: 'SSH login failures from anywhere', level: 1 }).waitFor();
    expect(await page.getByRole('definition').filter({ hasText: /^Sigma/ }).textContent()).toBe('Sigma (Console Test)');

    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export as Sigma' }).click()]);
    const exported = fs.readFileSync((await file.path())!, 'utf8');
    const fromApi = await fetch(`${api.url}/api/v1/lead-rules/${imported.id}?format=sigma`, { headers: { authorization: `Bearer ${admin}` } });
    expect(exported).toBe(await fromApi.text());
    expect(exported).toContain('id: 6a0f3a52-4a3b-4b8e-9d57-1f5c1d2e7a11');
    expect(file.suggestedFilename()).toMatch(/\.yml$/);
  });

  it('runs a backfill and follows it to its end, as the job API reports it', async () => {
    const page = await open();
    await logIn(page, analyst);
    await page.goto(`/rules/${ruleId}`);
    await page.getByRole('heading', { name: 'SSH password guessing', level: 1 }).waitFor();
    await page.getByRole('combobox', { name: 'Over' }).last().selectOption({ label: 'Last day' });
    await page.getByRole('button', { name: 'Run backfill' }).click();
    const state = page.getByRole('region', { name: 'Backfill' }).getByRole('status');
    await expect.poll(() => state.textContent(), { timeout: 60_000 }).toMatch(/^Backfill succeeded/);
    const jobs = (await api.request('GET', `/api/v1/lead-rules/${ruleId}/backfill`, { token: admin })).body.data as {
      jobs: { status: string; events_done: number; events_total: number; raised: number; already_raised: number }[];
    };
    const job = jobs.jobs[0]!;
    expect(job.status).toBe('succeeded');
    expect(await state.textContent()).toBe(`Backfill succeeded: ${job.events_done} of ${job.events_total} events; ${job.raised} leads raised, ${job.already_raised} already raised`);
    expect(job.events_total).toBeGreaterThan(0);
    expect(await page.getByRole('progressbar', { name: 'Backfill progress' }).getAttribute('value')).toBe('1');
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'rule-backfill');
  });

  it('shows a viewer the rules without any control to change them, and the API refuses the change anyway', async () => {
    const page = await open();
    await logIn(page, viewer);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Rules' }).click();
    await page.getByRole('heading', { name: 'Lead rules' }).waitFor();
    expect(await page.getByRole('link', { name: 'Import Sigma' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'New rule' }).count()).toBe(0);
    await page.getByRole('link', { name: 'SSH password guessing', exact: true }).click();
    await page.getByRole('heading', { name: 'SSH password guessing', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: 'Save rule' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Run backfill' }).count()).toBe(0);
    expect(await page.getByLabel('Name', { exact: true }).isDisabled()).toBe(true);
    await expectAccessible(page);
    const login = await api.request('POST', '/api/v1/auth/login', { body: viewer });
    const refused = await api.request('PUT', `/api/v1/lead-rules/${ruleId}`, { token: (login.body.data as { token: string }).token, body: { enabled: false } });
    expect(refused.status).toBe(403);
  });
});
