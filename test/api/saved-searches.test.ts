// Saved searches (issue 16 point 1) through the real API with the store
// stage: CRUD, the query checked by the parser, who sees and who may change
// private and shared searches, results equal to GET /v1/artifacts with the
// same search, relative ranges, and the six endpoint rows per contract.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintToken } from '../../api/auth.js';
import { eventually } from '../helpers/buses.js';
import { startTestApi, TEST_JWT_SECRET, type ApiResponse, type TestApi } from '../helpers/api.js';

interface SavedSearchOut {
  id: string;
  name: string;
  query: string;
  filters: { source?: string; start?: string; end?: string; range?: string };
  created_by: string;
  shared: boolean;
  created_at: string;
  updated_at: string;
}
interface ListOut {
  saved_searches: SavedSearchOut[];
  total: number;
  limit: number;
  offset: number;
}
interface ArtifactPageOut {
  artifacts: { id: string; raw: string; source: string; timestamp: string }[];
  total: number;
  total_exact: boolean;
  limit: number;
  offset: number;
}

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const now = Date.now();
const ago = (ms: number) => new Date(now - ms).toISOString();

// Real sshd shapes; the artifact timestamps place them in time (the store stage keeps them).
const LINES = [
  { source: 'auth', raw: 'Nov 23 06:26:14 labsz sshd[24200]: Failed password for root from 203.0.113.9 port 42722 ssh2', timestamp: ago(1 * HOUR) },
  { source: 'auth', raw: 'Nov 23 06:26:16 labsz sshd[24200]: Failed password for invalid user admin from 203.0.113.9 port 42730 ssh2', timestamp: ago(2 * HOUR) },
  { source: 'auth', raw: 'Nov 23 06:27:01 labsz sshd[24203]: Accepted password for alice from 10.0.0.5 port 51000 ssh2', timestamp: ago(3 * HOUR) },
  { source: 'auth', raw: 'Nov 22 04:10:00 labsz sshd[23111]: Failed password for root from 198.51.100.7 port 50111 ssh2', timestamp: ago(30 * HOUR) },
  { source: 'auth', raw: 'Nov 20 01:00:00 labsz sshd[22001]: Failed password for root from 198.51.100.8 port 50200 ssh2', timestamp: ago(3 * DAY) },
  { source: 'auth', raw: 'Nov 13 01:00:00 labsz sshd[21001]: Failed password for root from 192.0.2.44 port 50300 ssh2', timestamp: ago(10 * DAY) },
  { source: 'syslog', raw: 'Nov 23 06:30:00 labsz sshd[24210]: Failed password for root from 203.0.113.10 port 40000 ssh2', timestamp: ago(1 * HOUR) },
];

describe('saved searches', () => {
  let api: TestApi;
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const as = (subject: string, permissions: string[], org = orgId) => mintToken(TEST_JWT_SECRET, { subject, orgId: org, permissions, ttlSeconds: 600 });
  // Alice and Bob write, Carol only reads, Root is an admin; each a different creator.
  const alice = as('alice', ['signals:read', 'signals:write']);
  const bob = as('bob', ['signals:read', 'signals:write']);
  const carol = as('carol', ['signals:read']);
  const root = as('root-operator', ['admin', 'signals:read', 'signals:write']);

  const call = (method: string, path: string, token: string, body?: unknown): Promise<ApiResponse> => api.request(method, `/api/v1${path}`, { token, body });
  const create = async (token: string, body: unknown): Promise<SavedSearchOut> => {
    const res = await call('POST', '/saved-searches', token, body);
    expect(res.status, res.text).toBe(201);
    return res.body.data as SavedSearchOut;
  };
  const results = async (token: string, id: string, query = ''): Promise<ArtifactPageOut> => {
    const res = await call('GET', `/saved-searches/${id}/results${query}`, token);
    expect(res.status, res.text).toBe(200);
    return res.body.data as ArtifactPageOut;
  };
  const listed = async (token: string, query = ''): Promise<ListOut> => {
    const res = await call('GET', `/saved-searches${query}`, token);
    expect(res.status, res.text).toBe(200);
    return res.body.data as ListOut;
  };

  beforeAll(async () => {
    api = await startTestApi({ stages: ['store'] });
    const ingest = await call('POST', '/artifacts', alice, { artifacts: LINES });
    expect(ingest.status, ingest.text).toBe(202);
    await eventually(async () => expect(((await call('GET', '/artifacts?limit=1', alice)).body.data as ArtifactPageOut).total).toBe(LINES.length), 20_000, 100);
  });
  afterAll(async () => {
    await api?.close();
  });

  it('creates, reads, lists, changes and deletes, with created_by from the caller and the changes audited', async () => {
    const made = await create(alice, { name: 'root failures', query: '"Failed password" AND root', filters: { source: 'auth', start: '2026-01-01T02:00:00+02:00', end: '2027-01-01T00:00:00Z' } });
    expect(made).toMatchObject({ name: 'root failures', query: '"Failed password" AND root', filters: { source: 'auth', start: '2026-01-01T00:00:00.000Z', end: '2027-01-01T00:00:00.000Z' }, created_by: 'alice', shared: false });
    expect(made.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(made.created_at).toBe(made.updated_at);

    const got = await call('GET', `/saved-searches/${made.id}`, alice);
    expect(got.status).toBe(200);
    expect(got.body.data).toEqual(made);
    expect((await listed(alice)).saved_searches.map((s) => s.id)).toContain(made.id);

    const changed = await call('PUT', `/saved-searches/${made.id}`, alice, { name: 'root failures, last day', filters: { range: 'last 24h' }, shared: true });
    expect(changed.status, changed.text).toBe(200);
    const after = changed.body.data as SavedSearchOut;
    // Filters given replace the old ones whole; other fields stay.
    expect(after).toMatchObject({ id: made.id, name: 'root failures, last day', query: made.query, filters: { range: 'last 24h' }, created_by: 'alice', shared: true, created_at: made.created_at });
    expect(Date.parse(after.updated_at)).toBeGreaterThanOrEqual(Date.parse(made.updated_at));
    expect((await call('GET', `/saved-searches/${made.id}`, alice)).body.data).toEqual(after);

    const deleted = await call('DELETE', `/saved-searches/${made.id}`, alice);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ data: null, message: 'Saved search "root failures, last day" deleted' });
    expect((await call('GET', `/saved-searches/${made.id}`, alice)).status).toBe(404);
    expect((await call('DELETE', `/saved-searches/${made.id}`, alice)).status).toBe(404);

    const audit = await call('GET', `/audit-log?target_id=${made.id}`, root);
    const entries = (audit.body.data as { entries: { action: string; actor_id: string; before: unknown; after: unknown }[] }).entries;
    expect(entries.map((e) => e.action).sort()).toEqual(['DELETE /v1/saved-searches/:id', 'POST /v1/saved-searches', 'PUT /v1/saved-searches/:id']);
    const put = entries.find((e) => e.action.startsWith('PUT'))!;
    expect(put.actor_id).toBe('alice');
    expect(put.before).toMatchObject({ name: 'root failures', shared: false });
    expect(put.after).toMatchObject({ name: 'root failures, last day', shared: true });
  });

  it('refuses a query that does not parse with a 400 naming the position, on create and change', async () => {
    const bad = await call('POST', '/saved-searches', alice, { name: 'broken', query: 'failed OR' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toBe('invalid body: query: OR needs a term on both sides at character 8');
    expect(bad.body.error).toMatchObject({ code: 'validation_error', details: [{ in: 'body', path: 'query', position: 8, reason: 'OR needs a term on both sides' }] });

    const made = await create(alice, { name: 'fine', query: 'sshd' });
    const badChange = await call('PUT', `/saved-searches/${made.id}`, alice, { query: 'user.name:(root' });
    expect(badChange.status).toBe(400);
    expect(badChange.body.error?.details).toMatchObject([{ path: 'query', position: 16 }]);
    expect(((await call('GET', `/saved-searches/${made.id}`, alice)).body.data as SavedSearchOut).query).toBe('sshd');
  });

  it('refuses malformed fields and filters with 400', async () => {
    const cases: [unknown, RegExp][] = [
      [{ query: 'sshd' }, /name/],
      [{ name: 'x' }, /query is required/],
      [{ name: 'x', query: 'sshd', filters: { range: 'last week' } }, /range must be "last <n><unit>"/],
      [{ name: 'x', query: 'sshd', filters: { range: 'last 3651d' } }, /at most 3650d/],
      [{ name: 'x', query: 'sshd', filters: { range: 'last 1h', start: '2026-01-01T00:00:00Z' } }, /either range or start\/end/],
      [{ name: 'x', query: 'sshd', filters: { start: '2026-02-01T00:00:00Z', end: '2026-01-01T00:00:00Z' } }, /start must not be after end/],
      [{ name: 'x', query: 'sshd', filters: { start: 'yesterday' } }, /ISO 8601/],
      [{ name: 'x', query: 'sshd', filters: { sorce: 'auth' } }, /sorce/],
      [{ name: 'x', query: 'sshd', filters: 'auth' }, /filters/],
      [{ name: 'x', query: 'sshd', shared: 'yes' }, /shared/],
      [{ name: 'x', query: 'sshd', created_by: 'mallory' }, /created_by/],
    ];
    for (const [body, message] of cases) {
      const res = await call('POST', '/saved-searches', alice, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message, JSON.stringify(body)).toMatch(message);
    }
    // Valid JSON, but not text the store can hold.
    for (const rawBody of ['{"name":"a\\ud800","query":"x"}', '{"name":"a","query":"x \\udc00"}', '{"name":"a","query":"x","filters":{"source":"\\ud800"}}']) {
      const res = await api.request('POST', '/api/v1/saved-searches', { token: alice, rawBody });
      expect(res.status, rawBody).toBe(400);
      expect(res.body.message).toMatch(/lone surrogate/);
    }
    expect((await create(alice, { name: 'astral \u{1F600} name', query: '"\u{1F600}"' })).name).toBe('astral \u{1F600} name');
    const made = await create(alice, { name: 'to change', query: 'sshd' });
    expect((await call('PUT', `/saved-searches/${made.id}`, alice, {})).status).toBe(400);
    expect((await call('PUT', `/saved-searches/${made.id}`, alice, { created_by: 'bob' })).status).toBe(400);
  });

  it('keeps a private search to its creator: another user gets 404 everywhere, an admin sees and changes it', async () => {
    const mine = await create(alice, { name: 'alice private', query: 'root' });
    expect(mine.shared).toBe(false);
    expect((await call('GET', `/saved-searches/${mine.id}`, alice)).status).toBe(200);
    expect((await results(alice, mine.id)).total).toBeGreaterThan(0);

    for (const [method, path, body] of [
      ['GET', `/saved-searches/${mine.id}`, undefined],
      ['GET', `/saved-searches/${mine.id}/results`, undefined],
      ['PUT', `/saved-searches/${mine.id}`, { name: 'taken over' }],
      ['DELETE', `/saved-searches/${mine.id}`, undefined],
    ] as const) {
      // Carol may only read: on PUT and DELETE the missing permission answers first.
      for (const token of method === 'GET' ? [bob, carol] : [bob]) {
        const res = await call(method, path, token, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.error?.code).toBe('not_found');
      }
    }
    expect((await listed(bob)).saved_searches.map((s) => s.id)).not.toContain(mine.id);
    expect((await listed(alice)).saved_searches.map((s) => s.id)).toContain(mine.id);

    expect((await listed(root)).saved_searches.map((s) => s.id)).toContain(mine.id);
    expect((await call('GET', `/saved-searches/${mine.id}`, root)).status).toBe(200);
    const changed = await call('PUT', `/saved-searches/${mine.id}`, root, { name: 'renamed by admin' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({ name: 'renamed by admin', created_by: 'alice', shared: false });
    expect((await call('DELETE', `/saved-searches/${mine.id}`, root)).status).toBe(200);
    expect((await call('GET', `/saved-searches/${mine.id}`, alice)).status).toBe(404);
  });

  it('shows a shared search to everyone with signals:read, but only its creator or an admin changes or deletes it (403)', async () => {
    const shared = await create(alice, { name: 'alice shared', query: '"Failed password"', shared: true });
    for (const token of [bob, carol]) {
      expect((await call('GET', `/saved-searches/${shared.id}`, token)).body.data).toEqual(shared);
      expect((await listed(token)).saved_searches.map((s) => s.id)).toContain(shared.id);
      expect((await results(token, shared.id)).total).toBe(6);
    }
    const put = await call('PUT', `/saved-searches/${shared.id}`, bob, { name: 'bob was here' });
    expect(put.status).toBe(403);
    expect(put.body.error?.code).toBe('forbidden');
    expect((await call('DELETE', `/saved-searches/${shared.id}`, bob)).status).toBe(403);
    // Carol lacks signals:write: the permission check answers first, also 403.
    expect((await call('PUT', `/saved-searches/${shared.id}`, carol, { name: 'carol was here' })).status).toBe(403);
    expect(((await call('GET', `/saved-searches/${shared.id}`, alice)).body.data as SavedSearchOut).name).toBe('alice shared');

    // Its creator may make it private again; then the others lose it.
    expect((await call('PUT', `/saved-searches/${shared.id}`, alice, { shared: false })).status).toBe(200);
    expect((await call('GET', `/saved-searches/${shared.id}`, bob)).status).toBe(404);
    expect((await call('PUT', `/saved-searches/${shared.id}`, alice, { shared: true })).status).toBe(200);

    const byAdmin = await call('PUT', `/saved-searches/${shared.id}`, root, { query: '"Failed password" AND NOT root' });
    expect(byAdmin.status).toBe(200);
    expect((await results(bob, shared.id)).total).toBe(1);
    expect((await call('DELETE', `/saved-searches/${shared.id}`, root)).status).toBe(200);
    expect((await call('GET', `/saved-searches/${shared.id}`, bob)).status).toBe(404);
  });

  it('pages the list and filters it by shared and mine', async () => {
    const org = `org-${randomUUID().slice(0, 8)}`;
    const dave = as('dave', ['signals:read', 'signals:write'], org);
    const erin = as('erin', ['signals:read', 'signals:write'], org);
    const made = [
      await create(dave, { name: 'a dave private', query: 'x' }),
      await create(dave, { name: 'b dave shared', query: 'x', shared: true }),
      await create(erin, { name: 'c erin shared', query: 'x', shared: true }),
      await create(erin, { name: 'd erin private', query: 'x' }),
    ];
    const names = (list: ListOut) => list.saved_searches.map((s) => s.name);
    expect(names(await listed(dave))).toEqual(['a dave private', 'b dave shared', 'c erin shared']);
    expect(await listed(dave, '?limit=1&offset=1')).toMatchObject({ total: 3, limit: 1, offset: 1, saved_searches: [{ id: made[1]!.id }] });
    expect(names(await listed(dave, '?mine=true'))).toEqual(['a dave private', 'b dave shared']);
    expect(names(await listed(dave, '?mine=false'))).toEqual(['c erin shared']);
    expect(names(await listed(dave, '?shared=true'))).toEqual(['b dave shared', 'c erin shared']);
    expect(names(await listed(dave, '?shared=false'))).toEqual(['a dave private']);
    expect(names(await listed(erin, '?shared=false'))).toEqual(['d erin private']);
    // Another organization sees none of them, admin or not.
    expect((await listed(root)).saved_searches.map((s) => s.name)).not.toContain('b dave shared');
    expect((await call('GET', `/saved-searches/${made[1]!.id}`, root)).status).toBe(404);
    for (const bad of ['?limit=1001', '?limit=0', '?offset=-1', '?mine=yes', '?shared=1']) {
      expect((await call('GET', `/saved-searches${bad}`, dave)).status, bad).toBe(400);
    }
  });

  it('returns the same artifact page as GET /v1/artifacts with the same search', async () => {
    const start = ago(5 * DAY);
    const end = new Date(now).toISOString();
    const saved = await create(alice, { name: 'root failures', query: '"Failed password" AND root', filters: { source: 'auth', start, end } });
    const search = `query=${encodeURIComponent(saved.query)}&source=auth&start=${encodeURIComponent(start)}&end=${encodeURIComponent(end)}`;
    for (const page of ['', '?limit=1&offset=1', '?limit=2&offset=0', '?limit=50&offset=10']) {
      const direct = await call('GET', `/artifacts?${search}${page.replace('?', '&')}`, alice);
      expect(direct.status, direct.text).toBe(200);
      expect(await results(alice, saved.id, page), page).toEqual(direct.body.data);
    }
    const all = await results(alice, saved.id);
    // Inside five days, auth only: the 1 h, 30 h and 3 d root failures, newest first.
    expect(all.total).toBe(3);
    expect(all.total_exact).toBe(true);
    expect(all.artifacts.map((a) => a.raw)).toEqual([LINES[0]!.raw, LINES[3]!.raw, LINES[4]!.raw]);

    // Without filters the search covers every source and time.
    const everywhere = await create(alice, { name: 'all root failures', query: '"Failed password" AND root' });
    const direct = await call('GET', `/artifacts?query=${encodeURIComponent(everywhere.query)}`, alice);
    expect(await results(alice, everywhere.id)).toEqual(direct.body.data);
    expect((direct.body.data as ArtifactPageOut).total).toBe(5);
    expect((await call('GET', `/saved-searches/${everywhere.id}/results?limit=1001`, alice)).status).toBe(400);
  });

  it('resolves a relative range when the request arrives', async () => {
    const lastDay = await create(alice, { name: 'failures, last day', query: '"Failed password"', filters: { source: 'auth', range: 'last 24h' } });
    expect((await results(alice, lastDay.id)).artifacts.map((a) => a.raw)).toEqual([LINES[0]!.raw, LINES[1]!.raw]);
    const lastWeek = await create(alice, { name: 'failures, last week', query: '"Failed password"', filters: { range: 'last 7d' } });
    // Newest first; the syslog line is in (no source filter), the 10-day-old one out.
    expect((await results(alice, lastWeek.id)).total).toBe(5);
    const lastMinutes = await create(alice, { name: 'last 30m', query: '', filters: { range: 'last 30m' } });
    expect((await results(alice, lastMinutes.id)).total).toBe(0);
    const everything = await create(alice, { name: 'everything', query: '', filters: { range: 'last 3650d' } });
    expect((await results(alice, everything.id)).total).toBe(LINES.length);
  });

  describe('the endpoint rows', () => {
    let id: string;
    beforeAll(async () => {
      id = (await create(alice, { name: 'contract', query: 'sshd', shared: true })).id;
    });
    const rows = () =>
      [
        { method: 'GET', path: '/saved-searches', permission: 'signals:read', status: 200 },
        { method: 'GET', path: `/saved-searches/${id}`, permission: 'signals:read', status: 200 },
        { method: 'GET', path: `/saved-searches/${id}/results`, permission: 'signals:read', status: 200 },
        { method: 'POST', path: '/saved-searches', permission: 'signals:write', status: 201, body: { name: 'row', query: 'sshd' } },
        { method: 'PUT', path: `/saved-searches/${id}`, permission: 'signals:write', status: 200, body: { name: 'contract, changed' } },
        { method: 'DELETE', path: `/saved-searches/${id}`, permission: 'signals:write', status: 200 },
      ] as const;

    it('answers 401 without a token, 403 without the permission, and per contract with it', async () => {
      for (const row of rows()) {
        const label = `${row.method} ${row.path}`;
        const body = 'body' in row ? row.body : undefined;
        const anonymous = await api.request(row.method, `/api/v1${row.path}`, { body });
        expect(anonymous.status, label).toBe(401);
        expect(anonymous.body.error?.code).toBe('unauthorized');
        const without = await call(row.method, row.path, as('alice', ['reports:read', ...(row.permission === 'signals:write' ? ['signals:read'] : [])]), body);
        expect(without.status, label).toBe(403);
        expect(without.body.error?.details).toEqual({ required: row.permission });
        const ok = await call(row.method, row.path, as('alice', [row.permission]), body);
        expect(ok.status, `${label}: ${ok.text}`).toBe(row.status);
        expect(ok.body.success).toBe(true);
      }
    });

    it('answers 400 for a malformed id and 404 for an unknown one', async () => {
      const unknown = randomUUID();
      for (const [method, path, body] of [
        ['GET', '/saved-searches/:id', undefined],
        ['GET', '/saved-searches/:id/results', undefined],
        ['PUT', '/saved-searches/:id', { name: 'x' }],
        ['DELETE', '/saved-searches/:id', undefined],
      ] as const) {
        const malformed = await call(method, path.replace(':id', 'not-a-uuid'), alice, body);
        expect(malformed.status, `${method} ${path}`).toBe(400);
        expect(malformed.body.message).toMatch(/id must be a UUID/);
        const missing = await call(method, path.replace(':id', unknown), alice, body);
        expect(missing.status, `${method} ${path}`).toBe(404);
        expect(missing.body.message).toBe('saved search not found');
      }
    });
  });
});
