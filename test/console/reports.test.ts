// The console's reports page in a real browser (issue 41, item 4): the
// executive overview's figures equal to the API's report, each beside the
// previous period; its CSV as the API writes it; a snapshot downloaded; and
// a role without reports:read shown no reports. Incidents made by the
// pipeline (a lead rule, the correlator) from real sshd lines.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { expectAccessible, launchBrowser, logIn, openConsole, screenshotBothSchemes, type ConsolePage } from '../helpers/browser.js';

const PASSWORD = 'correct horse battery staple';
const ADDRESSES = 8;
const LINES_PER_ADDRESS = 6;

interface Compared {
  current: number | null;
  previous: number | null;
}

describe('the reports page in a browser', () => {
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const analyst = { email: `analyst-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  const triager = { email: `triager-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  let api: TestApi;
  let admin: string;
  let snapshotId: string;
  let browser: Browser;
  const opened: ConsolePage[] = [];

  async function open(): Promise<Page> {
    const consolePage = await openConsole(browser, api.url);
    opened.push(consolePage);
    return consolePage.page;
  }


  beforeAll(async () => {
    api = await startTestApi({ stages: ['store', 'analysis', 'correlator'], env: { CAIRN_ORG_ID: orgId, CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' } });
    admin = api.token('all', orgId);
    const rule = await api.request('POST', '/api/v1/lead-rules', {
      token: admin,
      body: { name: 'SSH password guessing', severity: 'high', conditions: { source: 'auth', pattern: '"Failed password"', threshold: 5, window: '1h', group_by: 'source.ip' } },
    });
    expect(rule.status, rule.text).toBe(201);
    // A role that reads incidents but not reports.
    const role = await api.request('POST', '/api/v1/roles', { token: admin, body: { name: 'Triage only', permissions: ['incidents:read', 'signals:read', 'observations:read'] } });
    expect(role.status, role.text).toBe(201);
    for (const [who, roleId] of [
      [analyst, BUILTIN_ROLES.analyst.id],
      [triager, (role.body.data as { id: string }).id],
    ] as const) {
      const res = await api.request('POST', '/api/v1/users', { token: admin, body: { email: who.email, name: who === analyst ? 'Ana Analyst' : 'Tom Triage', role_id: roleId, password: who.password } });
      expect(res.status, res.text).toBe(201);
    }
    const now = Date.now();
    const artifacts = [
      ...Array.from({ length: ADDRESSES * LINES_PER_ADDRESS }, (_, i) => ({
        source: 'auth',
        timestamp: new Date(now - (i + 1) * 30_000).toISOString(),
        raw: `Nov 27 10:00:00 web sshd[${1000 + i}]: Failed password for invalid user admin from 198.51.100.${i % ADDRESSES} port ${40000 + i} ssh2`,
      })),
      ...Array.from({ length: 5 }, (_, i) => ({ source: 'nginx', timestamp: new Date(now - (i + 1) * 40_000).toISOString(), raw: `203.0.113.9 - - [27/Nov/2026:10:00:0${i} +0000] "GET / HTTP/1.1" 200 12 "-" "curl/8"` })),
    ];
    const ingested = await api.request('POST', '/api/v1/artifacts', { token: admin, body: { artifacts } });
    expect(ingested.status, ingested.text).toBe(202);
    await eventually(
      async () => {
        const leads = await api.request('GET', '/api/v1/leads?limit=100', { token: admin });
        const data = leads.body.data as { leads: { incident_id: string | null }[]; total: number };
        expect(data.total).toBe(ADDRESSES);
        expect(data.leads.every((l) => l.incident_id !== null)).toBe(true);
      },
      60_000,
      250,
    );
    // One incident resolved: a true positive.
    const incidents = (await api.request('GET', '/api/v1/incidents?limit=1', { token: admin })).body.data as { incidents: { id: string }[] };
    const resolved = await api.request('PUT', `/api/v1/incidents/${incidents.incidents[0]!.id}/status`, { token: admin, body: { status: 3, note: 'blocked at the edge' } });
    expect(resolved.status, resolved.text).toBe(200);
    const snapshot = await api.request('POST', '/api/v1/reports/snapshots', { token: admin, body: { type: 'executive' } });
    expect(snapshot.status, snapshot.text).toBe(201);
    snapshotId = (snapshot.body.data as { id: string }).id;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const { context } of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
  });

  it("shows the executive overview with the API's figures beside the previous period, and its CSV", async () => {
    const page = await open();
    await logIn(page, analyst);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('heading', { name: 'Executive overview' }).waitFor();
    const report = (await api.request('GET', '/api/v1/reports/executive', { token: admin })).body.data as {
      incidents: Compared;
      true_positives: Compared;
      by_severity: Record<string, Compared>;
      artifacts_by_source: { source: string; current: number; previous: number }[];
      top_attacking_addresses: { value: string; incidents: number }[];
    };
    expect(report.incidents.current).toBeGreaterThan(0);
    expect(report.true_positives.current).toBe(1);
    const figures = page.getByRole('definition');
    await figures.first().waitFor();
    const figure = (name: string) => page.locator('.figures > div').filter({ has: page.getByRole('term').filter({ hasText: new RegExp(`^${name}$`) }) }).getByRole('definition');
    expect(await figure('Opened').textContent()).toBe(`${report.incidents.current}previous ${report.incidents.previous}, up`);
    expect(await figure('True positives').textContent()).toBe(`1previous ${report.true_positives.previous}, up`);
    const severity = page.getByRole('table', { name: 'Incidents by severity' });
    expect(await severity.getByRole('row').filter({ has: page.getByRole('rowheader', { name: 'high' }) }).getByRole('cell').allTextContents()).toEqual([
      String(report.by_severity.high!.current),
      String(report.by_severity.high!.previous),
    ]);
    const sources = page.getByRole('table', { name: 'Artifacts by source, this period beside the previous' });
    for (const s of report.artifacts_by_source) {
      expect((await sources.getByRole('row').filter({ has: page.getByRole('rowheader', { name: s.source }) }).getByRole('cell').allTextContents()).slice(0, 2)).toEqual([String(s.current), String(s.previous)]);
    }
    expect(report.artifacts_by_source.find((s) => s.source === 'auth')?.current).toBe(ADDRESSES * LINES_PER_ADDRESS);
    const attackers = page.getByRole('table', { name: 'Top attacking addresses, by incidents this period' });
    expect(await attackers.locator('tbody tr').count()).toBe(report.top_attacking_addresses.length);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'reports');

    // The CSV covers the period shown, as the API writes it.
    const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    const csv = fs.readFileSync((await file.path())!, 'utf8');
    expect(file.suggestedFilename()).toMatch(/^cairn-executive-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv$/);
    const apiCsv = await (await fetch(`${api.url}/api/v1/reports/executive?format=csv`, { headers: { authorization: `Bearer ${admin}` } })).text();
    expect(csv.split('\r\n')[0]).toBe('section,metric,current,previous');
    expect(csv.split('\r\n').find((l) => l.startsWith('incidents,opened,'))).toBe(apiCsv.split('\r\n').find((l) => l.startsWith('incidents,opened,')));
    expect(csv).toContain(`incidents,opened,${report.incidents.current},`);

    // A snapshot, exactly as the API keeps it.
    const snapshots = page.getByRole('table', { name: 'Report snapshots, newest first' });
    const [snap] = await Promise.all([page.waitForEvent('download'), snapshots.getByRole('button', { name: /^Download snapshot of / }).first().click()]);
    const fromApi = await (await fetch(`${api.url}/api/v1/reports/snapshots/${snapshotId}?format=csv`, { headers: { authorization: `Bearer ${admin}` } })).text();
    expect(fs.readFileSync((await snap.path())!, 'utf8')).toBe(fromApi);
  });

  it('shows no reports to a role without reports:read, and the API refuses them anyway', async () => {
    const page = await open();
    await logIn(page, triager);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).count()).toBe(0);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents' }).count()).toBe(1);
    await page.goto('/reports');
    await expect.poll(() => page.getByRole('alert').first().textContent()).toMatch(/permission|forbidden/i);
    const login = await api.request('POST', '/api/v1/auth/login', { body: triager });
    const refused = await api.request('GET', '/api/v1/reports/executive', { token: (login.body.data as { token: string }).token });
    expect(refused.status).toBe(403);
  });
});
