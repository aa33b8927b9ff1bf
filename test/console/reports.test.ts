// The console's reports page in a real browser (issue 41, item 4): the
// executive overview's figures equal to the API's report, each beside the
// previous period; compliance per framework, tool effectiveness, and cost and
// savings, each with figures equal to the API's and its CSV as the API writes
// it; the snapshots listed, one downloaded and one opened showing what the
// API keeps for it; and a role without reports:read shown no reports.
// Incidents made by the pipeline (a lead rule, the correlator) from real sshd
// lines; the attackers' network in PCI DSS scope.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import type { Browser, Locator, Page } from 'playwright-core';
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

interface FrameworkFigures {
  framework: string;
  nodes_in_scope: number;
  nodes_reporting: number;
  nodes_silent: number;
  log_coverage: number | null;
  incidents: number;
  incidents_by_status: Record<string, number>;
  open_older_than_7_days: number;
  open_older_than_30_days: number;
}

/** The page's ways of writing a figure (console/src/pages/reports/format.ts), for the API's numbers. */
const percent = (v: number | null) => (v === null ? '–' : `${(v * 100).toFixed(1)}%`);
const money = (v: number) => v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 4 });

/** The cells after the row header of the row a table heads with `name`. */
function rowCells(table: Locator, name: string): Promise<string[]> {
  return table.getByRole('row').filter({ has: table.page().getByRole('rowheader', { name, exact: true }) }).getByRole('cell').allTextContents();
}

/** A figure of a <dl class="figures"> by its label. */
function figure(page: Page, label: string): Locator {
  return page.locator('.figures > div').filter({ has: page.getByRole('term').filter({ hasText: new RegExp(`^${label}$`) }) }).getByRole('definition');
}

describe('the reports page in a browser', () => {
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const analyst = { email: `analyst-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  const triager = { email: `triager-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  let api: TestApi;
  let admin: string;
  let snapshotId: string;
  let complianceSnapshotId: string;
  let browser: Browser;
  const opened: ConsolePage[] = [];

  async function open(): Promise<Page> {
    const consolePage = await openConsole(browser, api.url);
    opened.push(consolePage);
    return consolePage.page;
  }

  /** Logged in as the analyst, on a tab of the reports page. */
  async function openReport(tab: string, heading: string): Promise<Page> {
    const page = await open();
    await logIn(page, analyst);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Reports' }).click();
    await page.getByRole('navigation', { name: 'Reports' }).getByRole('link', { name: tab, exact: true }).click();
    await page.getByRole('heading', { level: 1, name: heading }).waitFor();
    return page;
  }

  async function apiReport<T>(path: string): Promise<T> {
    const res = await api.request('GET', `/api/v1/reports/${path}`, { token: admin });
    expect(res.status, res.text).toBe(200);
    return res.body.data as T;
  }

  async function apiCsv(path: string): Promise<string[]> {
    return (await (await fetch(`${api.url}/api/v1/reports/${path}?format=csv`, { headers: { authorization: `Bearer ${admin}` } })).text()).split('\r\n');
  }

  /** The CSV the page saves when `button` is clicked, as lines. */
  async function downloaded(page: Page, button: Locator): Promise<{ name: string; lines: string[]; text: string }> {
    const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
    const text = fs.readFileSync((await file.path())!, 'utf8');
    return { name: file.suggestedFilename(), lines: text.split('\r\n'), text };
  }


  beforeAll(async () => {
    api = await startTestApi({ stages: ['store', 'analysis', 'correlator'], env: { CAIRN_ORG_ID: orgId, CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000', CAIRN_FRAMEWORK_SCOPES: '1=198.51.100.0/24' } });
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
    // A compliance snapshot for one framework over two days: a period no live report on the page has.
    const compliance = await api.request('POST', '/api/v1/reports/snapshots', { token: admin, body: { type: 'compliance', framework_id: 1, start: new Date(Date.now() - 2 * 86_400_000).toISOString() } });
    expect(compliance.status, compliance.text).toBe(201);
    complianceSnapshotId = (compliance.body.data as { id: string }).id;
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const { context } of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
  });

  it("shows the executive overview with the API's figures beside the previous period, and its CSV", async () => {
    const page = await openReport('Executive overview', 'Executive overview');
    const report = await apiReport<{
      incidents: Compared;
      true_positives: Compared;
      by_severity: Record<string, Compared>;
      artifacts_by_source: { source: string; current: number; previous: number }[];
      top_attacking_addresses: { value: string; incidents: number }[];
    }>('executive');
    expect(report.incidents.current).toBeGreaterThan(0);
    expect(report.true_positives.current).toBe(1);
    await page.getByRole('definition').first().waitFor();
    expect(await figure(page, 'Opened').textContent()).toBe(`${report.incidents.current}previous ${report.incidents.previous}, up`);
    expect(await figure(page, 'True positives').textContent()).toBe(`1previous ${report.true_positives.previous}, up`);
    expect(await rowCells(page.getByRole('table', { name: 'Incidents by severity' }), 'high')).toEqual([String(report.by_severity.high!.current), String(report.by_severity.high!.previous)]);
    const sources = page.getByRole('table', { name: 'Artifacts by source, this period beside the previous' });
    for (const s of report.artifacts_by_source) expect((await rowCells(sources, s.source)).slice(0, 2)).toEqual([String(s.current), String(s.previous)]);
    expect(report.artifacts_by_source.find((s) => s.source === 'auth')?.current).toBe(ADDRESSES * LINES_PER_ADDRESS);
    const attackers = page.getByRole('table', { name: 'Top attacking addresses, by incidents' });
    expect(await attackers.locator('tbody tr').count()).toBe(report.top_attacking_addresses.length);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'reports');

    // The CSV covers the period shown, as the API writes it.
    const csv = await downloaded(page, page.getByRole('button', { name: 'Download CSV' }));
    expect(csv.name).toMatch(/^cairn-executive-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv$/);
    const fromApi = await apiCsv('executive');
    expect(csv.lines[0]).toBe('section,metric,current,previous');
    expect(csv.lines.find((l) => l.startsWith('incidents,opened,'))).toBe(fromApi.find((l) => l.startsWith('incidents,opened,')));
    expect(csv.text).toContain(`incidents,opened,${report.incidents.current},`);
  });

  it('shows compliance per framework as the API reports it, and its CSV', async () => {
    const page = await openReport('Compliance per framework', 'Compliance per framework');
    const coverage = page.getByRole('table', { name: 'Log coverage of in-scope nodes, per framework' });
    await coverage.waitFor();
    const report = await apiReport<{ frameworks: FrameworkFigures[] }>('compliance');
    expect(report.frameworks).toHaveLength(8);
    const pci = report.frameworks.find((f) => f.framework === 'PCI DSS')!;
    // The attackers' addresses are in scope and logged in the period; their incidents touch the scope.
    expect(pci.nodes_in_scope).toBeGreaterThanOrEqual(ADDRESSES);
    expect(pci.incidents).toBeGreaterThan(0);
    for (const f of report.frameworks) {
      expect(await rowCells(coverage, f.framework)).toEqual([
        String(f.nodes_in_scope),
        String(f.nodes_reporting),
        String(f.nodes_silent),
        percent(f.log_coverage),
        String(f.incidents),
        String(f.open_older_than_7_days),
        String(f.open_older_than_30_days),
      ]);
    }
    const byStatus = page.getByRole('table', { name: 'Incidents touching in-scope nodes, by status' });
    expect(await rowCells(byStatus, 'PCI DSS')).toEqual(Object.values(pci.incidents_by_status).map(String));
    expect(await page.getByText('No node is in scope for HIPAA').count()).toBe(1);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'reports-compliance');

    const csv = await downloaded(page, page.getByRole('button', { name: 'Download CSV' }));
    expect(csv.name).toMatch(/^cairn-compliance-\d{4}-\d\d-\d\d-\d{4}-\d\d-\d\d\.csv$/);
    const fromApi = await apiCsv('compliance');
    expect(csv.lines[0]).toBe(fromApi[0]);
    expect(csv.lines.find((l) => l.startsWith('1,PCI DSS,'))).toBe(fromApi.find((l) => l.startsWith('1,PCI DSS,')));
  });

  it('shows tool effectiveness per source and rule as the API reports it, and its CSV', async () => {
    const page = await openReport('Tool effectiveness', 'Tool effectiveness');
    const sources = page.getByRole('table', { name: 'Sources: what arrived, what parsed, and the leads raised from it' });
    await sources.waitFor();
    type Outcome = { leads: number; observations: number; incidents: number; true_positives: number; false_positives: number; precision: number | null };
    const report = await apiReport<{ sources: Array<Outcome & { source: string; artifacts: number; parsed: number; parse_rate: number | null }>; rules: Array<Outcome & { rule_name: string }>; sources_without_leads: string[] }>(
      'tool-effectiveness',
    );
    const auth = report.sources.find((s) => s.source === 'auth')!;
    expect(auth.artifacts).toBe(ADDRESSES * LINES_PER_ADDRESS);
    expect(auth.leads).toBe(ADDRESSES);
    for (const s of report.sources) {
      const cells = await rowCells(sources, s.source);
      expect(cells.slice(0, 9)).toEqual([String(s.artifacts), String(s.parsed), percent(s.parse_rate), String(s.leads), String(s.observations), String(s.incidents), String(s.true_positives), String(s.false_positives), percent(s.precision)]);
    }
    const rules = page.getByRole('table', { name: 'Lead rules: the leads each raised and their outcome' });
    const rule = report.rules.find((r) => r.rule_name === 'SSH password guessing')!;
    expect((await rowCells(rules, 'SSH password guessing')).slice(0, 5)).toEqual([String(rule.leads), String(rule.observations), String(rule.incidents), String(rule.true_positives), String(rule.false_positives)]);
    expect(report.sources_without_leads).toEqual(['nginx']);
    expect(await page.getByRole('region', { name: 'Sources without leads' }).getByRole('listitem').allTextContents()).toEqual(['nginx']);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'reports-tool-effectiveness');

    const csv = await downloaded(page, page.getByRole('button', { name: 'Download CSV' }));
    expect(csv.name).toMatch(/^cairn-tool-effectiveness-/);
    const fromApi = await apiCsv('tool-effectiveness');
    expect(csv.lines[0]).toBe(fromApi[0]);
    expect(csv.lines.find((l) => l.startsWith('source,auth,'))).toBe(fromApi.find((l) => l.startsWith('source,auth,')));
  });

  it('shows cost and savings with their units and the prices assumed, as the API reports them, and its CSV', async () => {
    const page = await openReport('Cost and savings', 'Cost and savings');
    await page.getByRole('heading', { name: 'Savings' }).waitFor();
    const report = await apiReport<{
      prices: { ingest_per_gb: number; analyst_minutes_per_lead: number; analyst_hourly_rate: number };
      savings: { leads_in_incidents: number; leads_folded: number; analyst_minutes_saved_by_correlation: number; analyst_cost_saved: number };
      rules: Array<{ rule_name: string; leads: number; analyst_cost: number }>;
      sources: Array<{ source: string; ingested_bytes: number }>;
    }>('cost-savings');
    expect(report.savings.leads_in_incidents).toBe(ADDRESSES);
    expect(await figure(page, 'Ingest, per GiB').textContent()).toBe(money(report.prices.ingest_per_gb));
    expect(await figure(page, 'Analyst time per lead').textContent()).toBe(`${report.prices.analyst_minutes_per_lead} min`);
    expect(await figure(page, 'Leads folded into incidents').textContent()).toBe(String(report.savings.leads_folded));
    expect(await figure(page, 'Analyst time saved by correlation').textContent()).toBe(`${report.savings.analyst_minutes_saved_by_correlation.toLocaleString('en-US')} min`);
    expect(await figure(page, 'Analyst cost saved by correlation').textContent()).toBe(money(report.savings.analyst_cost_saved));
    const rules = page.getByRole('table', { name: 'Lead rules: the analyst cost of their leads' });
    const rule = report.rules.find((r) => r.rule_name === 'SSH password guessing')!;
    // 8 leads × 10 minutes / 60 × 75 an hour.
    expect(rule.analyst_cost).toBe(100);
    expect((await rowCells(rules, 'SSH password guessing')).slice(0, 2)).toEqual([String(rule.leads), money(rule.analyst_cost)]);
    const auth = report.sources.find((s) => s.source === 'auth')!;
    expect((await rowCells(page.getByRole('table', { name: 'Sources: bytes ingested and stored, and their cost' }), 'auth'))[0]).toMatch(
      auth.ingested_bytes < 1024 ? new RegExp(`^${auth.ingested_bytes} B$`) : new RegExp(`^${(auth.ingested_bytes / 1024).toFixed(1)} KiB$`),
    );
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'reports-cost-savings');

    const csv = await downloaded(page, page.getByRole('button', { name: 'Download CSV' }));
    expect(csv.name).toMatch(/^cairn-cost-savings-/);
    const fromApi = await apiCsv('cost-savings');
    expect(csv.lines[0]).toBe(fromApi[0]);
    expect(csv.lines.find((l) => l.startsWith('rule,SSH password guessing,'))).toBe(fromApi.find((l) => l.startsWith('rule,SSH password guessing,')));
  });

  it('lists the snapshots, downloads one as the API keeps it, and opens one showing what the API returns for it', async () => {
    const page = await openReport('Snapshots', 'Report snapshots');
    const list = page.getByRole('table', { name: 'Report snapshots, newest first' });
    await list.waitFor();
    const listed = (await api.request('GET', '/api/v1/reports/snapshots', { token: admin })).body.data as { total: number };
    expect(listed.total).toBe(2);
    expect(await list.locator('tbody tr').count()).toBe(2);

    // The executive snapshot, byte for byte as the API keeps it.
    const executiveRow = list.getByRole('row').filter({ hasText: 'Executive overview' });
    const csv = await downloaded(page, executiveRow.getByRole('button', { name: /^Download snapshot of / }));
    const fromApi = await (await fetch(`${api.url}/api/v1/reports/snapshots/${snapshotId}?format=csv`, { headers: { authorization: `Bearer ${admin}` } })).text();
    expect(csv.text).toBe(fromApi);

    // The compliance snapshot opened: its period, framework and figures as the API returns them.
    await list.getByRole('link', { name: /^Open the compliance per framework snapshot taken / }).click();
    await page.getByRole('heading', { level: 1, name: 'Report snapshot' }).waitFor();
    expect(new URL(page.url()).searchParams.get('snapshot')).toBe(complianceSnapshotId);
    const snapshot = (await api.request('GET', `/api/v1/reports/snapshots/${complianceSnapshotId}`, { token: admin })).body.data as {
      period_start: string;
      period_end: string;
      report: { frameworks: FrameworkFigures[] };
    };
    expect(snapshot.report.frameworks.map((f) => f.framework)).toEqual(['PCI DSS']);
    const coverage = page.getByRole('table', { name: 'Log coverage of in-scope nodes, per framework' });
    await coverage.waitFor();
    const pci = snapshot.report.frameworks[0]!;
    expect(await rowCells(coverage, 'PCI DSS')).toEqual([
      String(pci.nodes_in_scope),
      String(pci.nodes_reporting),
      String(pci.nodes_silent),
      percent(pci.log_coverage),
      String(pci.incidents),
      String(pci.open_older_than_7_days),
      String(pci.open_older_than_30_days),
    ]);
    expect(await coverage.locator('tbody tr').count()).toBe(1);
    expect(await figure(page, 'Framework').textContent()).toBe('PCI DSS');
    expect(await figure(page, 'Report').textContent()).toBe('Compliance per framework');
    expect(await page.locator('.report-period time').evaluateAll((times) => times.map((t) => t.getAttribute('datetime')))).toEqual([snapshot.period_start, snapshot.period_end]);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'reports-snapshot');

    const opened = await downloaded(page, page.getByRole('button', { name: 'Download CSV' }));
    const openedFromApi = await (await fetch(`${api.url}/api/v1/reports/snapshots/${complianceSnapshotId}?format=csv`, { headers: { authorization: `Bearer ${admin}` } })).text();
    expect(opened.text).toBe(openedFromApi);
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
