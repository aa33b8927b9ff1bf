// The graph explorer in a real browser (issue 41, item 2): a node's
// neighbourhood at two moments, as the tables show it, equal to
// GET /v1/graph/neighbourhood's answer at each; the "what changed" view
// marking new and quiet elements as GET /v1/graph/changes says; a node
// expanded and the types filtered, again as the API answers; GeoIP/ASN and
// flags on nodes; and the click through to a node's page and its incidents.
// The graph is written into the real store as the enricher writes it (a
// node sighting for each end of each edge sighting) at chosen times, so the
// neighbourhood differs between moments as those times say.
import { randomUUID } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertEdgeSightings, type EdgeSightingRow } from '../../clickhouse/tables/edges.js';
import { saveIncidents } from '../../clickhouse/tables/incidents.js';
import { insertNodeSightings, type NodeSighting } from '../../clickhouse/tables/nodes.js';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { expectAccessible, launchBrowser, logIn, openConsole, screenshotBothSchemes, type ConsolePage } from '../helpers/browser.js';

const PASSWORD = 'correct horse battery staple';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const T0 = Date.parse('2026-10-01T00:00:00Z');
const at = (day: number, hour = 0) => new Date(T0 + day * DAY + hour * HOUR).toISOString();
/** The two moments compared: between them three edges appear, and three went quiet before the second. */
const EARLY = at(6);
const LATE = at(12, 12);

interface TestNode {
  id: string;
  type: string;
  value: string;
}
const node = (type: string, value: string): TestNode => ({ id: randomUUID(), type, value });
const web = node('host', 'web-1');
const google = node('IP', '8.8.8.8');
const lan = node('IP', '10.0.0.5');
const alice = node('user', 'alice');
const gone = node('IP', '192.0.2.10');
const cloudflare = node('IP', '1.1.1.1');
const mallory = node('user', 'mallory');
const site = node('domain', 'example.net');
const dnsName = node('domain', 'dns.google');

/** Each edge with the times it was seen (one artifact each). */
const EDGES: Array<{ type: string; source: TestNode; target: TestNode; seen: string[] }> = [
  { type: 'communicates_with', source: web, target: gone, seen: [at(1)] },
  { type: 'communicates_with', source: web, target: google, seen: [at(1, 2), at(11)] },
  { type: 'communicates_with', source: web, target: lan, seen: [at(2)] },
  { type: 'authenticated_as', source: alice, target: web, seen: [at(3), at(4)] },
  { type: 'resolved_to', source: dnsName, target: google, seen: [at(5)] },
  { type: 'communicates_with', source: web, target: cloudflare, seen: [at(8), at(12)] },
  { type: 'authenticated_as', source: mallory, target: web, seen: [at(9)] },
  { type: 'related_to', source: web, target: site, seen: [at(10)] },
];

interface ApiNode {
  id: string;
  type: string;
  value: string;
  flags: Record<string, boolean>;
  geo: { country_iso_code: string | null } | null;
  as: { number: number; organization_name: string } | null;
}
interface ApiEdge {
  id: string;
  source_id: string;
  target_id: string;
  type: string;
  artifact_count: number;
  approximate: boolean;
}
interface Neighbourhood {
  as_of: string;
  nodes: ApiNode[];
  edges: ApiEdge[];
}
interface ChangeList {
  nodes: ApiNode[];
  edges: ApiEdge[];
}
interface Changes {
  new: ChangeList;
  quiet: ChangeList;
}

const words = (type: string) => type.replace(/_/g, ' ');

/** A busy host for the picture's size: as many edges as one neighbourhood answers at most (the API's limit). */
const hub = node('host', 'hub-1');
const HUB_EDGES = 2000;

describe('the graph explorer in a browser', () => {
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const analyst = { email: `analyst-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  const incidentId = randomUUID();
  let api: TestApi;
  let admin: string;
  let browser: Browser;
  const opened: ConsolePage[] = [];

  async function open(): Promise<ConsolePage> {
    const consolePage = await openConsole(browser, api.url);
    opened.push(consolePage);
    await logIn(consolePage.page, analyst);
    return consolePage;
  }

  async function get<T>(path: string): Promise<T> {
    const res = await api.request('GET', path, { token: admin });
    expect(res.status, res.text).toBe(200);
    return res.body.data as T;
  }

  const neighbourhood = (nodeId: string, query: Record<string, string> = {}) =>
    get<Neighbourhood>(`/api/v1/graph/neighbourhood?${new URLSearchParams({ node_id: nodeId, limit: '200', ...query })}`);

  /** The API's nodes and edges as the tables write them: "type value" and [relation, from, to, artifacts]. */
  function expectedRows(answers: Neighbourhood[]) {
    const nodes = new Map(answers.flatMap((a) => a.nodes).map((n) => [n.id, n]));
    const edges = new Map(answers.flatMap((a) => a.edges).map((e) => [e.id, e]));
    return {
      nodes: [...nodes.values()].map((n) => `${n.type} ${n.value}`).sort(),
      edges: [...edges.values()]
        .map((e) => [words(e.type), nodes.get(e.source_id)!.value, nodes.get(e.target_id)!.value, e.approximate ? `at most ${e.artifact_count}` : String(e.artifact_count)].join(' | '))
        .sort(),
    };
  }

  const nodesTable = (page: Page) => page.getByRole('table', { name: 'Nodes' });
  const edgesTable = (page: Page) => page.getByRole('table', { name: 'Edges' });

  /** The tables as a screen-reader user reads them: each node row's header, each edge row's first cells. */
  async function shownRows(page: Page) {
    const nodes = (await nodesTable(page).locator('tbody tr').getByRole('rowheader').allTextContents()).map((t) => t.trim()).sort();
    const edgeRows = await edgesTable(page).locator('tbody tr').all();
    const edges: string[] = [];
    for (const row of edgeRows) {
      const cells = await row.locator('th, td').allTextContents();
      edges.push([cells[0], cells[1], cells[2], cells[5]].join(' | '));
    }
    return { nodes, edges: edges.sort() };
  }

  /** The tables once they hold what the API answered (they fill after the page's requests). */
  async function expectTables(page: Page, answers: Neighbourhood[]) {
    const expected = expectedRows(answers);
    await expect.poll(() => shownRows(page), { timeout: 15_000, interval: 200 }).toEqual(expected);
  }

  /** Rows whose Change cell says `change`, as "type value" (nodes) or "relation from to" (edges). */
  async function changedRows(page: Page, change: string) {
    const pick = async (table: ReturnType<typeof nodesTable>, cellsOf: (cells: string[]) => string) => {
      const header = await table.locator('thead th').allTextContents();
      const column = header.indexOf('Change');
      const out: string[] = [];
      for (const row of await table.locator('tbody tr').all()) {
        const cells = (await row.locator('th, td').allTextContents()).map((t) => t.trim());
        if (cells[column] === change) out.push(cellsOf(cells));
      }
      return out.sort();
    };
    return { nodes: await pick(nodesTable(page), (c) => c[0]!), edges: await pick(edgesTable(page), (c) => c.slice(0, 3).join(' | ')) };
  }

  beforeAll(async () => {
    // web-1 is a managed host; 10.0.0.5 is internal by the default networks.
    api = await startTestApi({ env: { CAIRN_ORG_ID: orgId, CAIRN_MANAGED: 'web-1', CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' } });
    admin = api.token('all', orgId);
    const user = await api.request('POST', '/api/v1/users', { token: admin, body: { email: analyst.email, name: 'Ana Analyst', role_id: BUILTIN_ROLES.analyst.id, password: analyst.password } });
    expect(user.status, user.text).toBe(201);
    const nodeRows: NodeSighting[] = [];
    const edgeRows: EdgeSightingRow[] = [];
    for (const e of EDGES) {
      const id = randomUUID();
      for (const seen of e.seen) {
        for (const n of [e.source, e.target]) nodeRows.push({ org_id: orgId, id: n.id, type: n.type, value: n.value, first_seen: seen, last_seen: seen });
        edgeRows.push({ org_id: orgId, id, type: e.type, source_id: e.source.id, target_id: e.target.id, artifact_id: randomUUID(), seen_at: seen });
      }
    }
    for (let i = 0; i < HUB_EDGES; i++) {
      const peer = node('IP', `10.1.${i >> 8}.${i & 255}`);
      const seen = at(1, i % 24);
      for (const n of [hub, peer]) nodeRows.push({ org_id: orgId, id: n.id, type: n.type, value: n.value, first_seen: seen, last_seen: seen });
      edgeRows.push({ org_id: orgId, id: randomUUID(), type: 'communicates_with', source_id: hub.id, target_id: peer.id, artifact_id: randomUUID(), seen_at: seen });
    }
    await insertNodeSightings(api.runtime.store, nodeRows);
    await insertEdgeSightings(api.runtime.store, edgeRows);
    // An incident holding 8.8.8.8, to be reached from the explorer.
    await saveIncidents(api.runtime.store, [
      {
        id: incidentId,
        org_id: orgId,
        title: 'Beaconing to 8.8.8.8',
        severity: 'high',
        artifact_count: 2,
        node_count: 2,
        node_ids: [web.id, google.id],
        observation_ids: [],
        first_seen: at(11),
        last_seen: at(11),
        created_at: at(11),
        updated_at: at(11),
      },
    ]);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const { context } of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await api?.close();
  });

  it("draws a node's neighbourhood, and at two moments the tables hold what the API answers at each", async () => {
    const { page, problems } = await open();
    // From the node's page, as an analyst would come.
    await page.goto(`/nodes/${web.id}`);
    await page.getByRole('link', { name: 'Explore graph' }).click();
    await page.getByRole('heading', { name: 'Graph around host web-1' }).waitFor();
    expect(new URL(page.url()).searchParams.get('node_id')).toBe(web.id);
    expect(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Graph' }).getAttribute('aria-current')).toBe('page');

    // Now (no as_of): everything.
    const now = await neighbourhood(web.id);
    expect(now.edges).toHaveLength(7);
    await expectTables(page, [now]);

    // The slider at its left end: the centre's first sighting, when only the first edge existed (as_of is inclusive).
    const slider = page.getByRole('slider', { name: 'As of' });
    await slider.focus();
    await page.keyboard.press('Home');
    await expect.poll(() => new URL(page.url()).searchParams.get('as_of'), { timeout: 5000 }).toBe(at(1));
    const first = await neighbourhood(web.id, { as_of: at(1) });
    expect(first.edges).toHaveLength(1);
    await expectTables(page, [first]);
    expect(await slider.getAttribute('aria-valuetext')).toBe(await page.evaluate((iso) => new Date(iso).toLocaleString(), at(1)));

    // Two moments, as a shared link gives them: the neighbourhood differs as the sightings say.
    const early = await neighbourhood(web.id, { as_of: EARLY });
    const late = await neighbourhood(web.id, { as_of: LATE });
    expect(early.edges.length).toBeGreaterThan(0);
    expect(late.edges.length).toBeGreaterThan(early.edges.length);
    await page.goto(`/graph?node_id=${web.id}&as_of=${EARLY}`);
    await expectTables(page, [early]);
    // An edge seen again after the moment shows its count as an upper bound.
    expect(early.edges.find((e) => e.target_id === google.id)?.approximate).toBe(true);
    await page.goto(`/graph?node_id=${web.id}&as_of=${LATE}`);
    await expectTables(page, [late]);

    // GeoIP/ASN and flags, as the API gives them.
    const googleNode = late.nodes.find((n) => n.id === google.id)!;
    expect(googleNode.geo?.country_iso_code).toBeTruthy();
    expect(googleNode.as?.number).toBeGreaterThan(0);
    const rowOf = (value: string) => nodesTable(page).locator('tbody tr').filter({ has: page.getByRole('rowheader', { name: value }) });
    expect((await rowOf('8.8.8.8').getByRole('cell').allTextContents())[1]).toBe(`${googleNode.geo!.country_iso_code} · AS${googleNode.as!.number} ${googleNode.as!.organization_name}`);
    expect((await rowOf('web-1').getByRole('cell').allTextContents())[2]).toBe('managed');
    expect(late.nodes.find((n) => n.id === web.id)?.flags.managed).toBe(true);
    expect((await rowOf('10.0.0.5').getByRole('cell').allTextContents())[2]).toBe('internal');

    // The picture (cytoscape, loaded on this page only) holds the same elements, and says what it is.
    const picture = page.getByRole('img', { name: /^The graph around host web-1 as of .*: 8 nodes and 7 edges, also listed in the Nodes and Edges tables below\.$/ });
    await expect.poll(() => picture.getAttribute('data-drawn'), { timeout: 15_000 }).toBe(`${late.nodes.length} ${late.edges.length}`);
    expect(await picture.locator('canvas').count()).toBeGreaterThan(0);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'graph');
    expect(problems).toEqual([]);
  });

  it('marks what is new and what went quiet since a time, as GET /v1/graph/changes says', async () => {
    const { page, problems } = await open();
    await page.goto(`/graph?node_id=${web.id}&as_of=${LATE}`);
    const late = await neighbourhood(web.id, { as_of: LATE });
    await expectTables(page, [late]);
    // The form takes the browser's local time, to the minute.
    const since = at(6);
    const local = await page.evaluate((iso) => {
      const date = new Date(iso);
      return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
    }, since);
    await page.getByLabel('Since').fill(local);
    await page.getByRole('button', { name: 'Show changes' }).click();
    await page.getByRole('status').filter({ hasText: /went quiet\.$/ }).waitFor();
    expect(new URL(page.url()).searchParams.get('since')).toBe(since);

    // The page asks for [since, the moment shown]: the moment is inclusive, a range's end is not.
    const end = new Date(Date.parse(LATE) + 1).toISOString();
    const changes = await get<Changes>(`/api/v1/graph/changes?${new URLSearchParams({ start: since, end, node_id: web.id, depth: '1', limit: '200' })}`);
    // The data has both kinds (else this test would say nothing).
    expect(changes.new.edges.length).toBe(3);
    expect(changes.quiet.edges.length).toBeGreaterThan(0);
    const valueOf = new Map(late.nodes.map((n) => [n.id, n.value]));
    const asRows = (list: ChangeList) => ({
      nodes: list.nodes.map((n) => `${n.type} ${n.value}`).sort(),
      edges: list.edges.map((e) => [words(e.type), valueOf.get(e.source_id), valueOf.get(e.target_id)].join(' | ')).sort(),
    });
    await expect.poll(() => changedRows(page, 'New'), { timeout: 10_000 }).toEqual(asRows(changes.new));
    expect(await changedRows(page, 'Went quiet')).toEqual(asRows(changes.quiet));
    const counts = `${changes.new.nodes.length} new nodes and ${changes.new.edges.length} new edges; ${changes.quiet.nodes.length} nodes and ${changes.quiet.edges.length} edges went quiet.`;
    expect(await page.getByRole('status').filter({ hasText: /went quiet\.$/ }).textContent()).toContain(counts);
    await expect.poll(() => page.locator('.graph-canvas').getAttribute('data-drawn'), { timeout: 15_000 }).toBe(`${late.nodes.length} ${late.edges.length}`);
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'graph-changes');
    expect(problems).toEqual([]);
  });

  it("expands a node, filters by type, and leads to a node's page and its incidents", async () => {
    const { page, problems } = await open();
    await page.goto(`/graph?node_id=${web.id}&as_of=${LATE}`);
    const late = await neighbourhood(web.id, { as_of: LATE });
    await expectTables(page, [late]);
    expect(await nodesTable(page).getByRole('rowheader', { name: 'dns.google' }).count()).toBe(0);

    // In the picture: a click on a node opens its details, a double click expands it. The centre is in the middle;
    // straight above it is the first node of the first ring (types in order: the domain).
    const picture = page.getByRole('img', { name: /^The graph around host web-1/ });
    await expect.poll(() => picture.getAttribute('data-drawn'), { timeout: 15_000 }).toBe(`${late.nodes.length} ${late.edges.length}`);
    const box = (await picture.boundingBox())!;
    const details = page.getByRole('complementary');
    await picture.click({ position: { x: box.width / 2, y: box.height / 2 } });
    expect(await details.getByRole('heading', { level: 2 }).textContent()).toBe('host web-1');
    let above: number | null = null;
    for (let dy = 30; dy < box.height / 2 && above === null; dy += 6) {
      await picture.click({ position: { x: box.width / 2, y: box.height / 2 - dy } });
      if ((await details.count()) && (await details.getByRole('heading', { level: 2 }).textContent()) !== 'host web-1') above = dy;
    }
    expect(above, 'a node above the centre').not.toBeNull();
    expect(await details.getByRole('heading', { level: 2 }).textContent()).toBe('domain example.net');
    await picture.dblclick({ position: { x: box.width / 2, y: box.height / 2 - above! } });
    await expect.poll(() => new URL(page.url()).searchParams.get('expand')).toBe(site.id);
    await page.getByRole('button', { name: 'Collapse the 1 expanded' }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('expand')).toBeNull();

    // Expanding 8.8.8.8 merges its own neighbourhood (dns.google resolves to it).
    await page.getByRole('button', { name: 'Expand 8.8.8.8' }).click();
    const aroundGoogle = await neighbourhood(google.id, { as_of: LATE });
    expect(aroundGoogle.nodes.map((n) => n.value)).toContain('dns.google');
    await expectTables(page, [late, aroundGoogle]);
    expect(await page.getByRole('button', { name: 'Expand 8.8.8.8' }).isDisabled()).toBe(true);

    // Without communicates_with: the API's answer for the other edge types, around both nodes.
    await page.getByRole('group', { name: 'Edge types' }).getByLabel('communicates with').uncheck();
    const types = 'resolved_to,authenticated_as,member_of,related_to';
    await expect.poll(() => new URL(page.url()).searchParams.get('types')).toBe(types);
    const filtered = [await neighbourhood(web.id, { as_of: LATE, types }), await neighbourhood(google.id, { as_of: LATE, types })];
    expect(filtered[0]!.edges.length).toBeLessThan(late.edges.length);
    await expectTables(page, filtered);
    // Only IP nodes: the centre stays, and no edge leads to another type.
    await page.getByRole('group', { name: 'Edge types' }).getByLabel('communicates with').check();
    for (const type of ['domain', 'host', 'user', 'email']) await page.getByRole('group', { name: 'Node types' }).getByLabel(type, { exact: true }).uncheck();
    await expect.poll(() => new URL(page.url()).searchParams.get('types')).toBe('IP');
    await expectTables(page, [await neighbourhood(web.id, { as_of: LATE, types: 'IP' }), await neighbourhood(google.id, { as_of: LATE, types: 'IP' })]);

    // A node's details: its incidents (as the API lists them), its page.
    await page.getByRole('button', { name: 'Details of 8.8.8.8' }).click();
    await page.getByRole('complementary', { name: 'IP 8.8.8.8' }).waitFor();
    const incidents = await get<{ incidents: Array<{ id: string; title: string }> }>(`/api/v1/incidents?node_id=${google.id}`);
    expect(incidents.incidents.map((i) => i.title)).toEqual(['Beaconing to 8.8.8.8']);
    await details.getByRole('link', { name: 'Beaconing to 8.8.8.8' }).click();
    await page.getByRole('heading', { name: 'Beaconing to 8.8.8.8' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/incidents/${incidentId}`);
    await page.goBack();
    await page.getByRole('button', { name: 'Details of 8.8.8.8' }).click();
    await details.getByRole('link', { name: 'Open its page' }).click();
    await page.getByRole('heading', { name: 'IP 8.8.8.8' }).waitFor();
    expect(new URL(page.url()).pathname).toBe(`/nodes/${google.id}`);
    expect(problems).toEqual([]);
  });

  it('draws a neighbourhood of 2000 edges, and lists them all', async () => {
    const { page, problems } = await open();
    const answer = await neighbourhood(hub.id, { limit: '2000' });
    expect(answer.edges).toHaveLength(HUB_EDGES);
    const started = Date.now();
    await page.goto(`/graph?node_id=${hub.id}&limit=2000`);
    const picture = page.locator('.graph-canvas');
    await expect.poll(() => picture.getAttribute('data-drawn'), { timeout: 30_000, interval: 100 }).toBe(`${HUB_EDGES + 1} ${HUB_EDGES}`);
    const drawnMs = Date.now() - started;
    // Panning and zooming a picture this size: cytoscape redraws each wheel step within a frame or a few.
    const box = (await picture.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    const zoomStarted = Date.now();
    for (let i = 0; i < 10; i++) await page.mouse.wheel(0, -120);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const zoomMs = Date.now() - zoomStarted;
    console.log(`[graph] ${HUB_EDGES} edges: tables and picture ${drawnMs} ms after navigation; 10 wheel steps ${zoomMs} ms`);
    // The tables hold every element, a page of 200 rows at a time.
    const nodes = nodesTable(page).locator('tbody tr');
    expect(await nodes.count()).toBe(200);
    expect(await page.getByText(`Nodes 1–200 of ${(HUB_EDGES + 1).toLocaleString('en-US')}`).count()).toBe(1);
    const seen = new Set(await nodes.getByRole('rowheader').allTextContents());
    for (let pageNo = 1; pageNo * 200 < HUB_EDGES + 1; pageNo++) {
      await page.getByRole('button', { name: 'Next 200 nodes' }).click();
      await page.getByText(new RegExp(`^Nodes ${(pageNo * 200 + 1).toLocaleString('en-US')}–`)).waitFor();
      for (const header of await nodes.getByRole('rowheader').allTextContents()) seen.add(header);
    }
    expect(seen).toEqual(new Set(answer.nodes.map((n) => `${n.type} ${n.value}`)));
    expect(await page.getByRole('button', { name: 'Next 200 nodes' }).isDisabled()).toBe(true);
    expect(await edgesTable(page).locator('tbody tr').count()).toBe(200);
    expect(await page.getByText(`Edges 1–200 of ${HUB_EDGES.toLocaleString('en-US')}`).count()).toBe(1);
    expect(problems).toEqual([]);
  });

  it('finds the node to start from by its value', async () => {
    const { page, problems } = await open();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Graph' }).click();
    await page.getByRole('heading', { name: 'Graph explorer' }).waitFor();
    await page.getByLabel('Value').fill('8.8.8');
    await page.getByRole('button', { name: 'Find' }).click();
    await page.getByRole('list', { name: 'Nodes found' }).getByRole('link', { name: '8.8.8.8' }).click();
    await page.getByRole('heading', { name: 'Graph around IP 8.8.8.8' }).waitFor();
    await expectTables(page, [await neighbourhood(google.id)]);
    await expectAccessible(page);
    expect(problems).toEqual([]);
  });
});
