// The console's parsing pages in a real browser (issue 41, item 7): the
// parser coverage report as the API answers it, and a decoder written in the
// editor, tried on its test lines and on stored lines with the dry-run API's
// counts, then added. Debian's Chromium against a real API whose pipeline
// parsed the lines.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { expectAccessible, launchBrowser, logIn, openConsole, screenshotBothSchemes, type ConsolePage } from '../helpers/browser.js';

const PASSWORD = 'correct horse battery staple';
const SSH_LINES = 30;
const ACME_LINES = 12;
/** Lines of a made-up device no reader understands: the report's unrecognised shapes. */
const WIDGET_LINES = 8;

const DECODER = `service: acme
description: ACME VPN gateway
programs: [acmed]
sources: [acme-vpn]
defaults:
  event.category: [authentication]
  event.type: [info]
decoders:
  - name: refused
    match: '^login refused for {USER} from {IP}$'
    fields: { event.action: vpn-refused, event.outcome: failure }
tests:
  - line: 'Nov 27 10:00:00 gw acmed[31]: login refused for erin from 192.0.2.60'
    expect: { user.name: erin, source.ip: 192.0.2.60, event.outcome: failure }
  - line: 'Nov 27 10:00:01 gw acmed[31]: login refused for frank from 192.0.2.61'
    expect: { user.name: frank, event.action: vpn-refused }
`;

interface Coverage {
  unrecognised_shapes: Array<{ shape: string; count: number; source: string }>;
  totals: { lines: number; events: number; failures: number; categorised_share: number | null };
  sources: Array<{ source: string; lines: number; events: number; failures: number }>;
}

describe('the parsing pages in a browser', () => {
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const analyst = { email: `analyst-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  const viewer = { email: `viewer-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  let api: TestApi;
  let admin: string;
  let browser: Browser;
  const opened: ConsolePage[] = [];

  async function open(): Promise<Page> {
    const consolePage = await openConsole(browser, api.url);
    opened.push(consolePage);
    return consolePage.page;
  }



  const percent = (share: number | null) => (share === null ? '–' : `${(share * 100).toFixed(1)}%`);

  beforeAll(async () => {
    api = await startTestApi({ stages: ['store', 'analysis'], env: { CAIRN_ORG_ID: orgId, CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' } });
    admin = api.token('all', orgId);
    for (const [who, role] of [
      [analyst, BUILTIN_ROLES.analyst.id],
      [viewer, BUILTIN_ROLES.viewer.id],
    ] as const) {
      const res = await api.request('POST', '/api/v1/users', { token: admin, body: { email: who.email, name: role === BUILTIN_ROLES.viewer.id ? 'Vera Viewer' : 'Ana Analyst', role_id: role, password: who.password } });
      expect(res.status, res.text).toBe(201);
    }
    const now = Date.now();
    // The ACME lines first: once the sshd lines after them are parsed, so are they.
    const artifacts = [
      ...Array.from({ length: ACME_LINES }, (_, i) => ({
        source: 'acme-vpn',
        timestamp: new Date(now - (i + 1) * 20_000).toISOString(),
        raw: `Nov 27 10:00:00 gw acmed[${500 + i}]: login refused for user${i} from 192.0.2.${i + 1}`,
      })),
      ...Array.from({ length: WIDGET_LINES }, (_, i) => ({
        source: 'widget',
        timestamp: new Date(now - (i + 1) * 25_000).toISOString(),
        raw: `flux ${i * 7} phase ${i % 3} tick 0x${(4096 + i).toString(16)} nominal`,
      })),
      ...Array.from({ length: SSH_LINES }, (_, i) => ({
        source: 'auth',
        timestamp: new Date(now - (i + 1) * 30_000).toISOString(),
        raw: `Nov 27 10:00:00 web sshd[${1000 + i}]: Failed password for invalid user admin from 203.0.113.${i % 5} port ${40000 + i} ssh2`,
      })),
    ];
    const ingested = await api.request('POST', '/api/v1/artifacts', { token: admin, body: { artifacts } });
    expect(ingested.status, ingested.text).toBe(202);
    await eventually(
      async () => {
        const parsed = await api.request('GET', '/api/v1/artifacts?limit=1&query=user.name:admin', { token: admin });
        expect((parsed.body.data as { total: number }).total).toBe(SSH_LINES);
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

  it("shows the parser coverage report as the API answers it, with the lines nothing understood", async () => {
    const page = await open();
    await logIn(page, analyst);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Parsing' }).click();
    await page.getByRole('heading', { name: 'Parser coverage' }).waitFor();
    const figures = page.getByRole('definition');
    await figures.first().waitFor();
    const report = (await api.request('GET', '/api/v1/parser/coverage', { token: admin })).body.data as Coverage;
    expect(report.totals.lines).toBe(SSH_LINES + ACME_LINES + WIDGET_LINES);
    const figure = (name: string) => page.locator('.figures > div').filter({ has: page.getByRole('term').filter({ hasText: new RegExp(`^${name}$`) }) }).getByRole('definition');
    expect(await figure('Lines').textContent()).toBe(String(report.totals.lines));
    expect(await figure('Became events').textContent()).toBe(String(report.totals.events));
    expect(await figure('With a category').textContent()).toBe(percent(report.totals.categorised_share));
    const table = page.getByRole('table', { name: 'Coverage by source and reader, most lines first' });
    for (const source of report.sources) {
      const cells = table.getByRole('row').filter({ has: page.getByRole('rowheader', { name: source.source, exact: true }) }).getByRole('cell');
      expect((await cells.allTextContents()).slice(0, 3)).toEqual([source.lines, source.events, source.failures].map(String));
    }
    // The widget's lines, by shape, as the API counts them.
    const shapes = page.getByRole('table', { name: 'The most frequent shapes of lines without a category or not parsed' });
    const widget = report.unrecognised_shapes.filter((s) => s.source === 'widget');
    expect(widget.reduce((sum, s) => sum + s.count, 0)).toBe(WIDGET_LINES);
    expect(await shapes.locator('tbody tr').count()).toBe(report.unrecognised_shapes.length);
    expect((await shapes.locator('tbody tr').nth(0).getByRole('cell').allTextContents()).slice(0, 3)).toEqual([
      report.unrecognised_shapes[0]!.shape,
      String(report.unrecognised_shapes[0]!.count),
      report.unrecognised_shapes[0]!.source,
    ]);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'parsing-coverage');
    // A shape leads to a new decoder, its example line already a test line.
    await shapes.getByRole('link', { name: 'Write a decoder' }).click();
    await page.getByRole('heading', { name: 'New decoder' }).waitFor();
    await expect.poll(() => page.getByLabel('Service (YAML, as a catalogue file)').inputValue()).toMatch(/line: flux \d+ phase \d tick 0x10\w+ nominal/);
    expect(await page.getByLabel('Service (YAML, as a catalogue file)').inputValue()).toContain('- widget');
  });

  it('tries a decoder on its test lines and on stored lines with the dry-run API\'s counts, then adds it', async () => {
    const page = await open();
    await logIn(page, analyst);
    await page.goto('/parsing/decoders');
    await expect.poll(() => page.getByRole('status').filter({ hasText: /decoders?$/ }).textContent()).toBe('0 decoders');
    await page.getByRole('link', { name: 'New decoder' }).click();
    const editor = page.getByLabel('Service (YAML, as a catalogue file)');
    await editor.fill(DECODER);

    await page.getByRole('button', { name: 'Try on its test lines' }).click();
    const counts = page.getByRole('region', { name: 'Dry run on its test lines' }).getByRole('status');
    const onTests = (await api.request('POST', '/api/v1/decoders/test', {
      token: admin,
      body: { decoder: parseYaml(DECODER), lines: [...DECODER.matchAll(/line: '([^']+)'/g)].map((m) => m[1]) },
    })).body.data as { lines_read: number; lines_claimed: number; lines_changed: number; lines_recognised: number; problems: unknown[] };
    expect(onTests.lines_claimed).toBe(2);
    expect(onTests.problems).toEqual([]);
    await expect.poll(() => counts.textContent()).toBe(`${onTests.lines_claimed} of ${onTests.lines_read} lines claimed, ${onTests.lines_changed} changed, ${onTests.lines_recognised} newly recognised`);
    expect(await page.getByRole('list', { name: 'Test lines' }).getByRole('listitem').allTextContents()).toEqual([expect.stringMatching(/Passes$/), expect.stringMatching(/Passes$/)]);

    // A test line expecting what the decoder does not give: the line says why, in the API's words.
    const wrong = DECODER.replace('user.name: frank', 'user.name: mallory');
    await editor.fill(wrong);
    await page.getByRole('button', { name: 'Try on its test lines' }).click();
    const refused = (await api.request('POST', '/api/v1/decoders/test', {
      token: admin,
      body: { decoder: parseYaml(wrong), lines: [...wrong.matchAll(/line: '([^']+)'/g)].map((m) => m[1]) },
    })).body.data as { problems: { test?: number; message: string }[] };
    expect(refused.problems.map((p) => p.test)).toEqual([2]);
    await expect.poll(() => page.getByRole('list', { name: 'Test lines' }).getByRole('listitem').nth(1).textContent()).toContain(refused.problems[0]!.message);

    // On the stored lines of the last day: the twelve ACME lines become authentication events.
    await editor.fill(DECODER);
    await page.getByRole('button', { name: 'Try on stored lines (last day)' }).click();
    const stored = (await api.request('POST', '/api/v1/decoders/test', { token: admin, body: { decoder: parseYaml(DECODER) } })).body.data as {
      lines_read: number;
      lines_claimed: number;
      lines_changed: number;
      lines_recognised: number;
    };
    expect(stored.lines_claimed).toBe(ACME_LINES);
    expect(stored.lines_read).toBe(SSH_LINES + ACME_LINES + WIDGET_LINES);
    await expect
      .poll(() => page.getByRole('region', { name: 'Dry run on stored lines' }).getByRole('status').textContent())
      .toBe(`${stored.lines_claimed} of ${stored.lines_read} lines claimed, ${stored.lines_changed} changed, ${stored.lines_recognised} newly recognised`);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'parsing-decoder');

    await page.getByRole('button', { name: 'Add decoder' }).click();
    await page.getByRole('heading', { name: 'Decoder acme' }).waitFor();
    const list = (await api.request('GET', '/api/v1/decoders', { token: admin })).body.data as { decoders: { id: string; service: string }[] };
    expect(list.decoders.map((d) => d.service)).toEqual(['acme']);
    expect(new URL(page.url()).pathname).toBe(`/parsing/decoders/${list.decoders[0]!.id}`);
  });

  it('lets a viewer read the report and decoders but change nothing, and the API refuses the change anyway', async () => {
    const page = await open();
    await logIn(page, viewer);
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Parsing' }).click();
    await page.getByRole('heading', { name: 'Parser coverage' }).waitFor();
    expect(await page.getByRole('link', { name: 'Write a decoder' }).count()).toBe(0);
    await page.getByRole('navigation', { name: 'Parsing' }).getByRole('link', { name: 'Decoders' }).click();
    await page.getByRole('link', { name: 'acme' }).click();
    await page.getByRole('heading', { name: 'Decoder acme' }).waitFor();
    expect(await page.getByRole('button', { name: 'Save decoder' }).count()).toBe(0);
    expect(await page.getByLabel('Service (YAML, as a catalogue file)').getAttribute('readonly')).not.toBeNull();
    await expectAccessible(page);
    const login = await api.request('POST', '/api/v1/auth/login', { body: viewer });
    const refused = await api.request('POST', '/api/v1/decoders', { token: (login.body.data as { token: string }).token, body: parseYaml(DECODER) });
    expect(refused.status).toBe(403);
  });
});
