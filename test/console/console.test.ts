// The analyst's console in a real browser (issue 40): Debian's Chromium,
// headless, against a real cairn API with its store stage. Controls are found
// by role and accessible name, as a screen reader would; every page is
// checked by axe-core and photographed in light and dark for docs/console/.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveIncidents } from '../../clickhouse/tables/incidents.js';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { expectAccessible, launchBrowser, openConsole, screenshotBothSchemes, type ConsolePage } from '../helpers/browser.js';
import { CLAIMS, startTestIdp } from '../helpers/saml-idp.js';

const PASSWORD = 'correct horse battery staple';
const SCRIPT_LINE = '<script>window.__cairnInjected = true</script> GET /login?next=<img src=x onerror=alert(1)> 403';
const SSH_LINES = 120;

describe('the console in a browser', () => {
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const analyst = { email: `analyst-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  const viewer = { email: `viewer-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  /** The incident the pipeline made of the SSH lines (a lead rule, the correlator): its nodes, leads and observations are real. */
  let incidentId: string;
  let incidentTitle: string;
  let api: TestApi;
  let admin: string;
  let browser: Browser;
  const opened: ConsolePage[] = [];
  const timings: Record<string, number> = {};

  async function total(query: string): Promise<number> {
    const res = await api.request('GET', `/api/v1/artifacts?limit=1&query=${encodeURIComponent(query)}`, { token: admin });
    expect(res.status, res.text).toBe(200);
    return (res.body.data as { total: number }).total;
  }

  async function open(colorScheme: 'light' | 'dark' = 'light'): Promise<Page> {
    const consolePage = await openConsole(browser, api.url, colorScheme);
    opened.push(consolePage);
    return consolePage.page;
  }

  /** Fills the form already shown (a deep link redirected to it): unlike the shared logIn, it neither opens /login nor waits for search. */
  async function submitLogin(page: Page, who: { email: string; password: string }): Promise<void> {
    await page.getByLabel('Email').fill(who.email);
    await page.getByLabel('Password').fill(who.password);
    await page.getByRole('button', { name: 'Log in' }).click();
  }

  /** An incident as the correlator would write one, with no leads or nodes (and counts that say so): to see one arrive without a reload. */
  async function saveIncident(id: string, title: string): Promise<void> {
    const seen = new Date(Date.now() - 3_600_000).toISOString();
    await saveIncidents(api.runtime.store, [
      { id, org_id: orgId, title, severity: 'high', artifact_count: 0, node_count: 0, node_ids: [], observation_ids: [], first_seen: seen, last_seen: new Date().toISOString(), created_at: seen, updated_at: seen },
    ]);
  }

  /** The line that says how many artifacts or incidents matched (other status lines say what a save or change did). */
  function countOf(page: Page) {
    return page.getByRole('status').filter({ hasText: /^(More than )?[\d,]+ (artifact|incident|lead|observation)s?$/ });
  }


  beforeAll(async () => {
    // analysis parses the lines into the fields the sidebar lists and raises the rule's leads; the correlator makes incidents of them.
    api = await startTestApi({ stages: ['store', 'analysis', 'correlator'], env: { CAIRN_ORG_ID: orgId, CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000', CAIRN_OUTBOUND_ALLOW: '127.0.0.1' } });
    admin = api.token('all', orgId);
    const rule = await api.request('POST', '/api/v1/lead-rules', {
      token: admin,
      body: { name: 'SSH password guessing', severity: 'high', conditions: { source: 'auth', pattern: '"Failed password"', threshold: 5, window: '1h', group_by: 'source.ip' } },
    });
    expect(rule.status, rule.text).toBe(201);
    for (const [who, role] of [
      [analyst, BUILTIN_ROLES.analyst.id],
      [viewer, BUILTIN_ROLES.viewer.id],
    ] as const) {
      const res = await api.request('POST', '/api/v1/users', { token: admin, body: { email: who.email, name: role === BUILTIN_ROLES.viewer.id ? 'Vera Viewer' : 'Ana Analyst', role_id: role, password: who.password } });
      expect(res.status, res.text).toBe(201);
    }
    const now = Date.now();
    const artifacts = [
      ...Array.from({ length: SSH_LINES }, (_, i) => ({
        source: 'auth',
        timestamp: new Date(now - (i + 1) * 60_000).toISOString(),
        raw: `Nov 27 10:00:00 web sshd[${1000 + i}]: Failed password for ${i % 3 === 0 ? 'root' : 'invalid user admin'} from 203.0.113.${i % 20} port ${40000 + i} ssh2`,
      })),
      { source: 'nginx', timestamp: new Date(now - 30_000).toISOString(), raw: SCRIPT_LINE },
    ];
    const ingested = await api.request('POST', '/api/v1/artifacts', { token: admin, body: { artifacts } });
    expect(ingested.status, ingested.text).toBe(202);
    await eventually(async () => expect(await total('')).toBe(artifacts.length), 30_000, 200);
    await eventually(async () => expect(await total('user.name:*')).toBe(SSH_LINES), 30_000, 200);
    // One lead per guessing address (each sent 6 lines in one window), each placed in an incident.
    await eventually(
      async () => {
        const leads = await api.request('GET', '/api/v1/leads?limit=100', { token: admin });
        const data = leads.body.data as { leads: { incident_id: string | null }[]; total: number };
        expect(data.total).toBe(20);
        expect(data.leads.every((l) => l.incident_id !== null)).toBe(true);
      },
      30_000,
      200,
    );
    const incidents = await api.request('GET', '/api/v1/incidents?limit=100&sort=oldest', { token: admin });
    const first = (incidents.body.data as { incidents: { id: string; title: string }[] }).incidents[0]!;
    [incidentId, incidentTitle] = [first.id, first.title];
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const { context } of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
    console.log(`[console] timings (ms): ${JSON.stringify(timings)}`);
  });

  it('logs in from a deep link and lands where it pointed, with no token in browser storage', async () => {
    const page = await open();
    await page.goto('/search?q=sshd&range=7d');
    await expect.poll(() => new URL(page.url()).pathname).toBe('/login');
    expect(new URL(page.url()).searchParams.get('next')).toBe('/search?q=sshd&range=7d');
    await page.getByRole('heading', { name: 'Log in to cairn' }).waitFor();
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'login');

    await submitLogin(page, { ...analyst, password: 'not the password at all' });
    await expect.poll(() => page.getByRole('alert').textContent()).toMatch(/invalid email or password/i);

    await submitLogin(page, analyst);
    await page.getByRole('heading', { name: 'Search' }).waitFor();
    expect(page.url()).toBe(`${api.url}/search?q=sshd&range=7d`);
    await expect.poll(() => countOf(page).textContent()).toBe(`${SSH_LINES} artifacts`);
    const stored = await page.evaluate(() => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }));
    expect(stored).toBe('{}{}');
    const cookies = await page.context().cookies();
    const session = cookies.find((c) => c.name === 'cairn_session');
    expect(session?.httpOnly).toBe(true);
    expect(session?.sameSite).toBe('Strict');
    expect(page.url()).not.toMatch(/token|eyJ/);
  });

  it('runs a search whose count matches the API, newest first, paged; reload shows the same search', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('heading', { name: 'Search' }).waitFor();
    const query = 'source:auth "invalid user"';
    await page.getByRole('combobox', { name: 'Query' }).fill(query);
    await page.getByRole('combobox', { name: 'Time range' }).selectOption({ label: 'Last 7 days' });
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const expected = await total(query);
    expect(expected).toBe(SSH_LINES - SSH_LINES / 3);
    const status = countOf(page);
    await expect.poll(() => status.textContent()).toBe(`${expected} artifacts`);
    const results = page.getByRole('table', { name: 'Search results, newest first' });
    const times = await results.locator('tbody time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')!));
    expect(times.length).toBe(50);
    expect([...times].sort().reverse()).toEqual(times);
    // Times in the browser's zone, UTC on hover.
    expect(await results.locator('tbody time').first().getAttribute('title')).toMatch(/UTC$/);
    timings.resultsRenderAfterAnswer = await page.evaluate(() => performance.getEntriesByName('cairn:results-render').at(-1)?.duration ?? -1);
    expect(timings.resultsRenderAfterAnswer).toBeGreaterThanOrEqual(0);
    expect(timings.resultsRenderAfterAnswer).toBeLessThan(300);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'search');

    // Arrow keys move between results; Enter opens one.
    const links = results.locator('tbody a');
    await links.nth(0).focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe(await links.nth(1).textContent());
    await page.keyboard.press('Enter');
    await page.getByRole('complementary', { name: 'Artifact' }).waitFor();
    await page.keyboard.press('Escape');

    await page.getByRole('link', { name: 'Next page' }).click();
    await expect.poll(() => page.getByRole('navigation', { name: 'Result pages' }).textContent()).toContain(`51–${expected} of ${expected}`);
    const url = page.url();
    expect(new URL(url).searchParams.get('q')).toBe(query);
    expect(new URL(url).searchParams.get('range')).toBe('7d');
    expect(new URL(url).searchParams.get('offset')).toBe('50');

    await page.reload();
    await page.getByRole('heading', { name: 'Search' }).waitFor();
    expect(page.url()).toBe(url);
    expect(await page.getByRole('combobox', { name: 'Query' }).inputValue()).toBe(query);
    expect(await page.getByRole('combobox', { name: 'Time range' }).inputValue()).toBe('7d');
    await expect.poll(() => page.getByRole('navigation', { name: 'Result pages' }).textContent()).toContain(`51–${expected} of ${expected}`);

    // `/` focuses the query box from anywhere on the page.
    await page.getByRole('heading', { name: 'Search' }).click();
    await page.keyboard.press('/');
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('query');

    // Saved, shared, and opened again from the list.
    await page.getByRole('button', { name: /^Saved searches/ }).click();
    await page.getByRole('textbox', { name: 'Name' }).fill('Invalid users, last week');
    await page.getByRole('checkbox', { name: 'Share with my organization' }).check();
    await page.getByRole('button', { name: 'Save search' }).click();
    const savedLink = page.getByRole('list', { name: 'Saved searches' }).getByRole('link', { name: 'Invalid users, last week' });
    await savedLink.waitFor();
    const savedList = await api.request('GET', '/api/v1/saved-searches?limit=100', { token: admin });
    expect((savedList.body.data as { saved_searches: unknown[] }).saved_searches).toEqual([
      expect.objectContaining({ name: 'Invalid users, last week', query, shared: true, filters: { range: 'last 7d' } }),
    ]);
    // From another page of results, the saved search opens at its first page.
    await page.getByRole('link', { name: 'Previous page' }).click();
    await page.getByRole('combobox', { name: 'Query' }).fill('sshd');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => countOf(page).textContent()).toBe(`${SSH_LINES} artifacts`);
    await savedLink.click();
    await expect.poll(() => countOf(page).textContent()).toBe(`${expected} artifacts`);
    const opened = new URL(page.url());
    expect([opened.pathname, opened.searchParams.get('q'), opened.searchParams.get('range'), opened.searchParams.get('offset')]).toEqual(['/search', query, '7d', null]);
  });

  it('searches an absolute time range, counted as the API counts it', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('combobox', { name: 'Query' }).fill('sshd');
    await page.getByRole('combobox', { name: 'Time range' }).selectOption({ label: 'Custom range' });
    // Minutes in the browser's zone, as the inputs take them.
    const minute = 60_000;
    const from = new Date(Math.floor((Date.now() - 61 * minute) / minute) * minute);
    const to = new Date(Math.floor((Date.now() - 31 * minute) / minute) * minute);
    const local = (d: Date) => page.evaluate((iso) => {
      const date = new Date(iso);
      return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    }, d.toISOString());
    await page.getByRole('textbox', { name: 'From', exact: true }).fill(await local(from));
    await page.getByRole('textbox', { name: 'To', exact: true }).fill(await local(to));
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('custom');
    const params = new URL(page.url()).searchParams;
    expect(params.get('from')).toBe(from.toISOString());
    expect(params.get('to')).toBe(to.toISOString());
    const res = await api.request('GET', `/api/v1/artifacts?limit=1&query=sshd&start=${from.toISOString()}&end=${to.toISOString()}`, { token: admin });
    const expected = (res.body.data as { total: number }).total;
    expect(expected).toBeGreaterThan(25);
    expect(expected).toBeLessThan(35);
    await expect.poll(() => countOf(page).textContent()).toBe(`${expected} artifacts`);
    await page.reload();
    await expect.poll(() => countOf(page).textContent()).toBe(`${expected} artifacts`);
    expect(await page.getByRole('textbox', { name: 'From', exact: true }).inputValue()).toBe(await local(from));
    await expectAccessible(page);
  });

  it('charts matches over time, and zooms the search to a stretch dragged across the chart', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('combobox', { name: 'Query' }).fill('sshd');
    // All time: the chart spans the oldest to the newest match.
    await page.getByRole('combobox', { name: 'Time range' }).selectOption({ label: 'All time' });
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const chart = page.getByRole('img', { name: /^Matches over time: 120 from/ });
    await chart.waitFor();
    const box = (await chart.boundingBox())!;
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width * 0.4, y);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, y, { steps: 5 });
    await page.mouse.move(box.x + box.width * 0.95, y, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('custom');
    const params = new URL(page.url()).searchParams;
    const from = params.get('from')!;
    const to = params.get('to')!;
    expect(Date.parse(from)).toBeLessThan(Date.parse(to));
    const res = await api.request('GET', `/api/v1/artifacts?limit=1&query=sshd&start=${from}&end=${to}`, { token: admin });
    const expected = (res.body.data as { total: number }).total;
    expect(expected).toBeGreaterThan(0);
    expect(expected).toBeLessThan(SSH_LINES);
    await expect.poll(() => countOf(page).textContent()).toBe(`${expected} artifacts`);
    await expect.poll(() => page.getByRole('img', { name: new RegExp(`^Matches over time: ${expected} from`) }).count()).toBe(1);
    await expectAccessible(page);
  });

  it('adds a value from the field sidebar to the query, or leaves it out, with counts equal to the API\'s', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('combobox', { name: 'Query' }).fill('sshd');
    await page.getByRole('combobox', { name: 'Time range' }).selectOption({ label: 'All time' });
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const fields = page.getByRole('navigation', { name: 'Fields' });
    await fields.getByRole('button', { name: 'user.name', exact: true }).click();
    const values = fields.getByRole('list', { name: 'Top values of user.name' });
    await values.waitFor();
    expect(await values.getByRole('listitem').filter({ hasText: 'root' }).textContent()).toContain('40');
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'search-fields');

    // An artifact's parsed fields, as the API gives them.
    await page.getByRole('table', { name: 'Search results, newest first' }).getByRole('link').first().click();
    const parsed = page.getByRole('complementary', { name: 'Artifact' }).getByRole('table', { name: /^Parsed fields, read by/ });
    await expect.poll(() => parsed.getByRole('row').filter({ hasText: 'user.name' }).getByRole('cell').textContent()).toMatch(/^(root|admin)$/);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'artifact-fields');
    await page.keyboard.press('Escape');

    await values.getByRole('link', { name: 'Add user.name: root' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('sshd user.name:"root"');
    const only = await total('sshd user.name:"root"');
    expect(only).toBe(40);
    await expect.poll(() => countOf(page).textContent()).toBe(`${only} artifacts`);
    expect(await page.getByRole('combobox', { name: 'Query' }).inputValue()).toBe('sshd user.name:"root"');

    await page.goBack();
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('sshd');
    // The field stays open across searches.
    expect(await fields.getByRole('button', { name: 'user.name', exact: true }).getAttribute('aria-expanded')).toBe('true');
    await fields.getByRole('link', { name: 'Exclude user.name: root' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('q')).toBe('sshd NOT user.name:"root"');
    const others = await total('sshd NOT user.name:"root"');
    expect(others).toBe(SSH_LINES - 40);
    await expect.poll(() => countOf(page).textContent()).toBe(`${others} artifacts`);
  });

  it('completes field names and values from the stored events, as a combobox, and colours the query', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    const box = page.getByRole('combobox', { name: 'Query' });
    await box.click();
    await page.keyboard.type('sshd user.na');
    const suggestions = page.getByRole('listbox', { name: 'Suggestions' });
    await expect.poll(() => suggestions.getByRole('option').allTextContents()).toEqual([expect.stringMatching(/^user\.name\s*120$/)]);
    expect(await box.getAttribute('aria-expanded')).toBe('true');
    await page.keyboard.press('ArrowDown');
    expect(await box.getAttribute('aria-activedescendant')).toBe(await suggestions.getByRole('option').first().getAttribute('id'));
    expect(await suggestions.getByRole('option').first().getAttribute('aria-selected')).toBe('true');
    await page.keyboard.press('Enter');
    await expect.poll(() => box.inputValue()).toBe('sshd user.name:');
    // The field's values follow, most common first, as the API counts them.
    const values = (await api.request('GET', '/api/v1/artifacts/fields?field=user.name&limit=100&start=' + new Date(Date.now() - 86_400_000).toISOString(), { token: admin })).body.data as { values: { value: string; count: number }[] };
    await expect.poll(() => suggestions.getByRole('option').allTextContents()).toEqual(values.values.map((v) => expect.stringMatching(new RegExp(`^${v.value}\\s*${v.count}$`))));
    await page.keyboard.type('r');
    await expect.poll(() => suggestions.getByRole('option').allTextContents()).toEqual([expect.stringMatching(/^root\s*40$/)]);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Tab');
    await expect.poll(() => box.inputValue()).toBe('sshd user.name:root');
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    // Coloured as the language reads it: a word, a field, its operator and value.
    const layer = page.locator('.query-layer');
    expect(await layer.locator('span').evaluateAll((spans) => spans.map((s) => `${s.className}:${s.textContent}`))).toEqual(['q-word:sshd', 'q-space: ', 'q-field:user.name', 'q-operator::', 'q-value:root']);
    await box.fill('sshd AND NOT user.name:"invalid user" OR source:/au.*/');
    expect(await layer.locator('span').evaluateAll((spans) => spans.filter((s) => s.className !== 'q-space').map((s) => `${s.className}:${s.textContent}`))).toEqual([
      'q-word:sshd', 'q-keyword:AND', 'q-not:NOT', 'q-field:user.name', 'q-operator::', 'q-phrase:"invalid user"', 'q-keyword:OR', 'q-field:source', 'q-operator::', 'q-regex:/au.*/',
    ]);
    await box.fill('sshd user.name:');
    await box.press('End');
    await page.keyboard.type('ad');
    await expect.poll(() => box.getAttribute('aria-expanded')).toBe('true');
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'search-completion');
    // Esc closes the list and leaves the text.
    await page.keyboard.press('Escape');
    expect(await box.getAttribute('aria-expanded')).toBe('false');
    expect(await box.inputValue()).toBe('sshd user.name:ad');
    await box.fill('sshd user.name:root');
    await page.keyboard.press('Enter');
    await expect.poll(() => countOf(page).textContent()).toBe(`${await total('sshd user.name:root')} artifacts`);
  });

  it('shows chosen fields as columns of the results, kept in the URL', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('combobox', { name: 'Query' }).fill('sshd');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => countOf(page).textContent()).toBe(`${SSH_LINES} artifacts`);
    await page.getByRole('button', { name: /^Columns/ }).click();
    const chooser = page.getByRole('group', { name: 'Fields shown as columns' });
    await chooser.getByRole('checkbox', { name: 'user.name' }).check();
    await expect.poll(() => new URL(page.url()).searchParams.get('cols')).toBe('user.name');
    await chooser.getByRole('checkbox', { name: 'source.ip' }).check();
    await expect.poll(() => new URL(page.url()).searchParams.get('cols')).toBe('user.name,source.ip');
    const results = page.getByRole('table', { name: 'Search results, newest first' });
    await expect.poll(() => results.getByRole('columnheader').allTextContents()).toEqual(['Time', 'Source', 'user.name', 'source.ip', 'Raw text']);
    // Each row's cells hold what its line says, once the page has the values of the column added last.
    const check = async () => {
      const mismatches = async () => {
        const rows = await results.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
        const wrong = rows.filter(([, , user, address, raw]) => {
          const [, expectedUser, expectedAddress] = /for (?:invalid user )?(\w+) from (\S+) /.exec(raw!)!;
          return user !== expectedUser || address !== expectedAddress;
        });
        return { rows: rows.length, wrong: wrong.slice(0, 3) };
      };
      await expect.poll(mismatches).toEqual({ rows: 50, wrong: [] });
    };
    await check();
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'search-columns');
    await page.reload();
    await expect.poll(() => results.getByRole('columnheader').allTextContents()).toEqual(['Time', 'Source', 'user.name', 'source.ip', 'Raw text']);
    await check();
    await page.getByRole('button', { name: /^Columns/ }).click();
    await chooser.getByRole('checkbox', { name: 'user.name' }).uncheck();
    await expect.poll(() => new URL(page.url()).searchParams.get('cols')).toBe('source.ip');
    await expect.poll(() => results.getByRole('columnheader').allTextContents()).toEqual(['Time', 'Source', 'source.ip', 'Raw text']);
  });

  it('measures the first contentful paint of the search page', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('heading', { name: 'Search' }).waitFor();
    await page.goto('/search?q=sshd&range=7d');
    await expect.poll(() => countOf(page).textContent()).toBe(`${SSH_LINES} artifacts`);
    const paint = await page.evaluate(() => ({
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? -1,
      firstResults: performance.getEntriesByName('cairn:results-shown')[0]?.startTime ?? -1,
    }));
    timings.searchFirstContentfulPaint = Math.round(paint.fcp);
    // From navigation start to the first page of results in the table (login's token renewal included).
    timings.searchFirstResults = Math.round(paint.firstResults);
    expect(paint.firstResults).toBeGreaterThan(0);
    expect(paint.firstResults).toBeLessThan(1500);
    expect(paint.fcp).toBeGreaterThan(0);
    expect(paint.fcp).toBeLessThan(1000);
  });

  it("shows a bad query's error at the position the API reports", async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    const query = 'source:auth AND (sshd';
    await page.getByRole('combobox', { name: 'Query' }).fill(query);
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const api400 = await api.request('GET', `/api/v1/artifacts?query=${encodeURIComponent(query)}`, { token: admin });
    expect(api400.status).toBe(400);
    const position = (api400.body.error!.details as { position: number }).position;
    const alert = page.locator('#query-error');
    await alert.waitFor();
    expect(await alert.getByRole('paragraph').textContent()).toBe(api400.body.message);
    const marked = await alert.locator('pre').evaluate((pre) => {
      const mark = pre.querySelector('mark')!;
      return { before: mark.previousSibling?.textContent ?? '', mark: mark.textContent };
    });
    expect(marked.before.length).toBe(position - 1);
    expect(await page.getByRole('combobox', { name: 'Query' }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.evaluate(() => (document.activeElement as HTMLInputElement).selectionStart)).toBe(position - 1);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'search-error');
  });

  it('renders a raw line holding <script> as text in the artifact detail; Esc closes it', async () => {
    const { page, problems } = await (async () => {
      const p = await open();
      return { page: p, problems: opened.at(-1)!.problems };
    })();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('combobox', { name: 'Query' }).fill('source:nginx');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('link', { name: SCRIPT_LINE }).click();
    const detail = page.getByRole('complementary', { name: 'Artifact' });
    await detail.waitFor();
    const raw = detail.getByLabel('Raw text');
    expect(await raw.textContent()).toBe(SCRIPT_LINE);
    expect(await raw.evaluate((pre) => pre.children.length)).toBe(0);
    expect(await page.evaluate(() => (window as { __cairnInjected?: boolean }).__cairnInjected)).toBeUndefined();
    expect(await page.locator('img[src="x"]').count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('artifact')).toMatch(/.+/);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'artifact');

    // A shared link to the artifact opens it too (fetched by id), and Esc closes it.
    await page.reload();
    await detail.waitFor();
    expect(await detail.getByLabel('Raw text').textContent()).toBe(SCRIPT_LINE);
    await page.keyboard.press('Escape');
    await expect.poll(() => detail.count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('artifact')).toBeNull();
    expect(problems).toEqual([]);
  });

  it('lists incidents, changes one\'s status, and shows it in the list', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents' }).click();
    await page.getByRole('heading', { name: 'Incidents' }).waitFor();
    const list = page.getByRole('table', { name: /^Incidents, / });
    const row = list.getByRole('row').filter({ has: page.getByRole('link', { name: incidentTitle, exact: true }) });
    await row.waitFor();
    // Columns: the selection box, title, severity, status, ...
    expect(await row.getByRole('cell').nth(3).textContent()).toBe('New');
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'incidents');

    await row.getByRole('link', { name: incidentTitle, exact: true }).click();
    await page.getByRole('heading', { name: incidentTitle }).waitFor();
    const detail = (await api.request('GET', `/api/v1/incidents/${incidentId}`, { token: admin })).body.data as {
      node_count: number;
      nodes: { value: string }[];
      leads: { rule_name: string; first_seen: string; artifact_ids: string[]; observation_id: string }[];
      observations: { id: string }[];
    };
    expect(detail.node_count).toBeGreaterThan(1);
    // The timeline: every lead (with the observation its firing wrote) and every other observation, oldest first, each with its severity in words.
    const timeline = page.getByRole('list', { name: 'Leads and observations, oldest first' });
    const ownObservations = detail.observations.filter((o) => !detail.leads.some((l) => l.observation_id === o.id));
    await expect.poll(() => timeline.getByRole('listitem').count()).toBe(detail.leads.length + ownObservations.length);
    const times = await timeline.locator('time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')!));
    expect(times).toEqual([...times].sort());
    expect(await timeline.getByRole('listitem').filter({ hasText: 'Lead' }).first().textContent()).toMatch(/Lead\s*high\s*SSH password guessing/);
    // The nodes: as many as the incident counts, each a link to its page, with its flags.
    const nodes = page.getByRole('table', { name: 'Nodes involved' });
    await expect.poll(() => nodes.locator('tbody tr').count()).toBe(detail.node_count);
    expect(await nodes.getByRole('link', { name: 'web', exact: true }).getAttribute('href')).toMatch(/^\/nodes\//);
    // The evidence: the leads' artifacts, each a link to itself in search.
    const evidence = page.getByRole('table', { name: 'Evidence artifacts' });
    const evidenceIds = [...new Set(detail.leads.flatMap((l) => l.artifact_ids))];
    await expect.poll(() => evidence.locator('tbody tr').count()).toBe(Math.min(25, evidenceIds.length));

    await page.getByRole('combobox', { name: 'New status' }).selectOption({ label: 'Investigating' });
    await page.getByRole('textbox', { name: 'Note (optional)' }).fill('Blocking 203.0.113.0/24 at the edge <b>now</b>');
    await page.getByRole('button', { name: 'Set status' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Incident status updated' }).textContent()).toBe('Incident status updated to Investigating');
    const history = page.getByRole('list', { name: 'Status history' });
    // Who changed it by name, not by id, and the note as text.
    await expect.poll(() => history.getByRole('listitem').filter({ hasText: 'New → Investigating by Ana Analyst' }).count()).toBe(1);
    expect(await history.locator('blockquote').textContent()).toBe('Blocking 203.0.113.0/24 at the edge <b>now</b>');
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'incident');
    const fromApi = (await api.request('GET', `/api/v1/incidents/${incidentId}`, { token: admin })).body.data as { status_name: string; status_history: { note: string }[] };
    expect(fromApi.status_name).toBe('Investigating');
    expect(fromApi.status_history.map((h) => h.note)).toEqual(['Blocking 203.0.113.0/24 at the edge <b>now</b>']);

    // An evidence artifact opens in search, beside its results.
    await evidence.getByRole('link').first().click();
    await page.getByRole('complementary', { name: 'Artifact' }).waitFor();
    expect(evidenceIds).toContain(new URL(page.url()).searchParams.get('artifact'));
    await page.goBack();

    await page.getByRole('link', { name: '← Incidents' }).click();
    await expect.poll(() => row.getByRole('cell').nth(3).textContent()).toBe('Investigating');

    // A new incident shows without a reload.
    const second = randomUUID();
    await saveIncident(second, 'Port scan of 198.51.100.7');
    await expect.poll(() => list.getByRole('link', { name: 'Port scan of 198.51.100.7' }).count(), { timeout: 20_000 }).toBe(1);

    // Both set to Resolved at once from the list.
    await page.getByRole('checkbox', { name: `Select ${incidentTitle}`, exact: true }).check();
    await page.getByRole('checkbox', { name: 'Select Port scan of 198.51.100.7' }).check();
    await page.getByRole('combobox', { name: 'Set status of selected to' }).selectOption({ label: 'Resolved' });
    await page.getByRole('button', { name: 'Apply to selected' }).click();
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'Set 2 incidents' }).textContent()).toBe('Set 2 incidents to Resolved');
    for (const id of [incidentId, second]) {
      const res = await api.request('GET', `/api/v1/incidents/${id}`, { token: admin });
      expect((res.body.data as { status_name: string }).status_name).toBe('Resolved');
    }
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption({ label: 'Resolved' });
    await expect.poll(() => new URL(page.url()).searchParams.get('status')).toBe('3');
    await expect.poll(() => countOf(page).textContent()).toBe('2 incidents');
  });

  it('shows a viewer no write control, and the API refuses the write anyway', async () => {
    const page = await open();
    await page.goto(`/incidents/${incidentId}`);
    await submitLogin(page, viewer);
    await page.getByRole('heading', { name: incidentTitle }).waitFor();
    expect(await page.getByRole('button', { name: 'Set status' }).count()).toBe(0);
    expect(await page.getByRole('combobox', { name: 'New status' }).count()).toBe(0);
    expect(await page.getByText('Vera Viewer').count()).toBe(1);
    await expectAccessible(page);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Search' }).click();
    await page.getByRole('button', { name: /^Saved searches/ }).click();
    expect(await page.getByRole('button', { name: 'Save search' }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents' }).click();
    expect(await page.getByRole('checkbox').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Apply to selected' }).count()).toBe(0);
    const login = await api.request('POST', '/api/v1/auth/login', { body: viewer });
    const refused = await api.request('PUT', `/api/v1/incidents/${incidentId}/status`, { token: (login.body.data as { token: string }).token, body: { status: 3 } });
    expect(refused.status).toBe(403);
  });

  it("opens an artifact's node, with its facts, sightings, edges and incidents", async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('combobox', { name: 'Query' }).fill('source.ip:203.0.113.7');
    await page.getByRole('combobox', { name: 'Time range' }).selectOption({ label: 'All time' });
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => countOf(page).textContent()).toBe('6 artifacts');
    await page.getByRole('table', { name: 'Search results, newest first' }).getByRole('link').first().click();
    const made = page.getByRole('complementary', { name: 'Artifact' }).getByRole('list', { name: 'Nodes it made' });
    await made.waitFor();
    // The nodes the enricher made of the line: its address, host and user.
    expect((await made.getByRole('listitem').allTextContents()).map((t) => t.split(' from ')[0]!.trim()).sort()).toEqual(
      expect.arrayContaining(['IP 203.0.113.7', 'host web']),
    );
    await expectAccessible(page);
    await made.getByRole('link', { name: '203.0.113.7', exact: true }).click();
    await page.getByRole('heading', { name: 'IP 203.0.113.7' }).waitFor();
    const nodeId = decodeURIComponent(new URL(page.url()).pathname.split('/')[2]!);
    const fromApi = (await api.request('GET', `/api/v1/nodes/${nodeId}`, { token: admin })).body.data as { value: string; edges: unknown[] };
    expect(fromApi.value).toBe('203.0.113.7');

    // The incidents and leads holding it, as the API lists them.
    const incidents = (await api.request('GET', `/api/v1/incidents?node_id=${nodeId}`, { token: admin })).body.data as { incidents: { title: string }[] };
    expect(incidents.incidents.length).toBe(1);
    const holding = page.getByRole('list', { name: 'Incidents holding this node' });
    await expect.poll(() => holding.getByRole('link').allTextContents()).toEqual(incidents.incidents.map((i) => i.title));
    await expect.poll(() => page.getByRole('list', { name: 'Leads naming this node' }).getByRole('listitem').count()).toBe(1);
    await expect.poll(() => page.getByRole('list', { name: 'Observations naming this node' }).getByRole('listitem').count()).toBe(1);
    // Its sightings in the artifacts: the six lines from the address.
    await expect.poll(() => page.getByRole('table', { name: 'Artifacts holding this value, newest first' }).locator('tbody tr').count()).toBe(6);
    // Its edges, each to another node's page.
    const edges = page.getByRole('table', { name: 'Edges to other nodes, most recently seen first' });
    await expect.poll(() => edges.locator('tbody tr').count()).toBe(fromApi.edges.length);
    expect(fromApi.edges.length).toBeGreaterThan(0);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'node');
    await edges.getByRole('link').first().click();
    await expect.poll(() => new URL(page.url()).pathname).not.toBe(`/nodes/${nodeId}`);
    await page.getByRole('heading', { level: 1 }).waitFor();
    await page.goBack();
    await page.getByRole('heading', { name: 'IP 203.0.113.7' }).waitFor();
  });

  it('lists leads and observations with filters and order in the URL, arrow keys between rows', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Leads' }).click();
    await page.getByRole('heading', { name: 'Leads', exact: true }).waitFor();
    await expect.poll(() => countOf(page).textContent()).toBe('20 leads');
    await page.getByRole('combobox', { name: 'Severity' }).selectOption({ label: 'low' });
    await expect.poll(() => countOf(page).textContent()).toBe('0 leads');
    await page.getByRole('combobox', { name: 'Severity' }).selectOption({ label: 'high' });
    await page.getByRole('combobox', { name: 'Order' }).selectOption({ label: 'Oldest first' });
    await expect.poll(() => new URL(page.url()).search).toBe('?severity=high&sort=oldest');
    const table = page.getByRole('table', { name: 'Leads, oldest first' });
    await expect.poll(() => table.locator('tbody tr').count()).toBe(20);
    const raised = await table.locator('tbody tr td:last-child time').evaluateAll((els) => els.map((e) => e.getAttribute('datetime')!));
    expect(raised).toEqual([...raised].sort());
    const apiOrder = (await api.request('GET', '/api/v1/leads?severity=high&sort=oldest&limit=100', { token: admin })).body.data as { leads: { incident_id: string }[] };
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'leads');
    // Up and Down move between rows; Enter opens the lead's incident.
    const links = table.locator('tbody a');
    await links.nth(0).focus();
    await page.keyboard.press('ArrowDown');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('href'))).toBe(`/incidents/${apiOrder.leads[1]!.incident_id}`);
    await page.keyboard.press('Enter');
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/incidents/${apiOrder.leads[1]!.incident_id}`);
    await page.goBack();
    await page.reload();
    await expect.poll(() => countOf(page).textContent()).toBe('20 leads');
    expect(await page.getByRole('combobox', { name: 'Order' }).inputValue()).toBe('oldest');

    await page.getByRole('navigation', { name: 'Leads and observations' }).getByRole('link', { name: 'Observations' }).click();
    await page.getByRole('heading', { name: 'Observations', exact: true }).waitFor();
    await expect.poll(() => countOf(page).textContent()).toBe('20 observations');
    await page.getByRole('combobox', { name: 'Order' }).selectOption({ label: 'Highest severity first' });
    await expect.poll(() => new URL(page.url()).searchParams.get('sort')).toBe('severity');
    await page.getByRole('table', { name: 'Observations, highest severity first' }).waitFor();
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'observations');
    // An observation opens its evidence in search.
    await page.getByRole('table', { name: 'Observations, highest severity first' }).getByRole('link').first().click();
    await expect.poll(() => countOf(page).textContent()).toBe('6 artifacts');

    // Incidents take the same orders.
    await page.goto('/incidents?sort=severity');
    await page.getByRole('table', { name: 'Incidents, highest severity first' }).waitFor();
    expect(await page.getByRole('combobox', { name: 'Order' }).inputValue()).toBe('severity');
  });

  it('takes the user back to login when the session ends, and returns them to their place', async () => {
    const page = await open();
    await page.goto('/login');
    await submitLogin(page, analyst);
    await page.getByRole('heading', { name: 'Search' }).waitFor();
    await page.goto('/incidents?severity=high');
    await page.getByRole('heading', { name: 'Incidents' }).waitFor();
    // The place to come back to, chosen while the session is alive and shown once the list has answered.
    await page.getByRole('combobox', { name: 'Status', exact: true }).selectOption({ label: 'New' });
    await expect.poll(() => countOf(page).count()).toBe(1);
    expect(new URL(page.url()).search).toBe('?status=1&severity=high');
    // The session ends elsewhere (as at its idle timeout or a revocation): logged out with the browser's own cookie.
    const cookie = (await page.context().cookies()).find((c) => c.name === 'cairn_session')!;
    const ended = await fetch(`${api.url}/api/v1/auth/logout`, { method: 'POST', headers: { cookie: `cairn_session=${cookie.value}`, origin: api.url } });
    expect(ended.status).toBe(200);
    // The page's next request (the list asks again every 10 s) meets the ended session and goes to login, keeping the place.
    await page.waitForURL((url) => url.pathname === '/login', { timeout: 30_000 });
    expect(new URL(page.url()).searchParams.get('next')).toBe('/incidents?status=1&severity=high');
    await expect.poll(() => page.getByRole('status').filter({ hasText: 'session has ended' }).count()).toBe(1);
    await submitLogin(page, analyst);
    await page.getByRole('heading', { name: 'Incidents' }).waitFor();
    expect(page.url()).toBe(`${api.url}/incidents?status=1&severity=high`);

    // Logging out ends the session: a reload finds no session and asks to log in.
    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('heading', { name: 'Log in to cairn' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Log in to cairn' }).waitFor();
  });

  it('offers SAML login once it is configured, and logs in through the identity provider back to the place asked for', async () => {
    const page = await open();
    await page.goto('/incidents?severity=high');
    await page.getByRole('heading', { name: 'Log in to cairn' }).waitFor();
    // Local passwords only: no SSO button.
    await expect.poll(() => page.evaluate(() => fetch('/api/v1/auth/methods').then((r) => r.json()).then((b: { data: { methods: string[] } }) => b.data.methods))).toEqual(['local']);
    expect(await page.getByRole('link', { name: 'Log in with SSO' }).count()).toBe(0);

    const idp = await startTestIdp();
    try {
      const fetched = await api.request('POST', '/api/v1/admin/settings/auth/saml/fetch-metadata', { token: admin, body: { metadata_url: idp.metadataUrl } });
      expect(fetched.status, fetched.text).toBe(200);
      const metadata = fetched.body.data as { entity_id: string; sso_url: string; slo_url: string | null; certificate: string };
      expect((await api.request('POST', '/api/v1/admin/settings/auth/saml/generate-keypair', { token: admin })).status).toBe(201);
      const saml = {
        ...metadata,
        slo_url: metadata.slo_url ?? '',
        provider: 'generic',
        mode: 'provision',
        attribute_mapping: { email: CLAIMS.email, first_name: CLAIMS.first_name, last_name: CLAIMS.last_name, groups: CLAIMS.groups },
        group_mapping: { 'cairn-analysts': BUILTIN_ROLES.analyst.id },
      };
      const put = await api.request('PUT', '/api/v1/settings/auth', { token: admin, body: { method: 'saml', saml } });
      expect(put.status, put.text).toBe(200);
      const spMetadata = await (await fetch(`${api.url}/api/v1/auth/saml/metadata`)).text();

      await page.reload();
      const sso = page.getByRole('link', { name: 'Log in with SSO' });
      await sso.waitFor();
      expect(await sso.getAttribute('href')).toBe('/api/v1/auth/saml/login?return_to=%2Fincidents%3Fseverity%3Dhigh');
      await expectAccessible(page);
      await screenshotBothSchemes(page, 'login-saml');

      await sso.click();
      // At the identity provider, with cairn's signed request in the URL: it checks the request and shows its form, whose
      // Continue button posts the signed answer back to cairn, as a real IdP's page does.
      await page.waitForURL((url) => url.href.startsWith(idp.ssoUrl));
      const sp = idp.trust(spMetadata);
      const request = await idp.readRequest(sp, page.url());
      const response = await idp.loginResponse(sp, { inResponseTo: request.id, user: { nameId: 'sam-2', email: 'sam.sso@example.com', firstName: 'Sam', lastName: 'Sso', groups: ['cairn-analysts'] } });
      const field = (name: string, value: string) => `<input type="hidden" name="${name}" value="${value.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}">`;
      await page.setContent(`<form method="post" action="${api.url}/api/v1/auth/saml/acs">${field('SAMLResponse', response)}${field('RelayState', request.relayState ?? '')}<button type="submit">Continue</button></form>`);
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.waitForURL(`${api.url}/incidents?severity=high`);
      await page.getByRole('heading', { name: 'Incidents' }).waitFor();
      expect(await page.getByText('Sam Sso').count()).toBe(1);
    } finally {
      const local = await api.request('PUT', '/api/v1/settings/auth', { token: admin, body: { method: 'local' } });
      expect(local.status, local.text).toBe(200);
      await idp.close();
    }
  });
});
