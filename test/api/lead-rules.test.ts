// Lead rules through the whole API frame: auth, validation, envelope, store.
import jwt from 'jsonwebtoken';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, TEST_JWT_SECRET, type TestApi } from '../helpers/api.js';

let api: TestApi;

const RULE = { name: 'SSH brute force', conditions: { pattern: 'Failed password', source: 'auth', threshold: 5, window: '5m' } };

async function createRule(token: string, body: unknown = RULE): Promise<string> {
  const res = await api.request('POST', '/api/v1/lead-rules', { token, body });
  expect(res.status).toBe(201);
  return (res.body.data as { id: string }).id;
}

describe.each(['embedded', 'distributed'] as const)('lead rules API, %s', (mode) => {
  const distributed = mode === 'distributed';

  beforeAll(async () => {
    api = await startTestApi({ distributed });
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('authentication and permissions', () => {
    it('answers 401 without a token', async () => {
      const res = await api.request('GET', '/api/v1/lead-rules');
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'unauthorized' } });
      expect(res.body.message).toMatch(/bearer token/);
    });

    it.each([
      ['a malformed token', () => 'not.a.jwt'],
      ['a token signed with another secret', () => jwt.sign({ sub: 'x', org_id: 'o', permissions: ['signals:read'] }, 'another-secret-another-secret-another', { expiresIn: 60 })],
      ['an expired token', () => jwt.sign({ sub: 'x', org_id: 'o', permissions: ['signals:read'], exp: Math.floor(Date.now() / 1000) - 10 }, TEST_JWT_SECRET)],
      ['a token using another algorithm', () => jwt.sign({ sub: 'x', org_id: 'o', permissions: ['signals:read'] }, TEST_JWT_SECRET, { algorithm: 'HS512', expiresIn: 60 })],
      ['an unsigned token', () => jwt.sign({ sub: 'x', org_id: 'o', permissions: ['signals:read'] }, '', { algorithm: 'none', expiresIn: 60 })],
      ['a token without exp', () => jwt.sign({ sub: 'x', org_id: 'o', permissions: ['signals:read'] }, TEST_JWT_SECRET)],
      ['a token without org_id', () => jwt.sign({ sub: 'x', permissions: ['signals:read'] }, TEST_JWT_SECRET, { expiresIn: 60 })],
    ])('answers 401 to %s', async (_, token) => {
      const res = await api.request('GET', '/api/v1/lead-rules', { token: token() });
      expect(res.status).toBe(401);
      expect(res.body.error?.code).toBe('unauthorized');
    });

    it('says an expired token is expired', async () => {
      const token = jwt.sign({ sub: 'x', org_id: 'o', permissions: ['signals:read'], exp: Math.floor(Date.now() / 1000) - 10 }, TEST_JWT_SECRET);
      expect((await api.request('GET', '/api/v1/lead-rules', { token })).body.message).toBe('token expired');
    });

    it('answers 403 when the token lacks signals:read', async () => {
      const res = await api.request('GET', '/api/v1/lead-rules', { token: api.token(['signals:write', 'signals:manage']) });
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'forbidden', details: { required: 'signals:read' } } });
    });

    it('answers 403 to a create without signals:manage, and 403 comes before validation', async () => {
      const res = await api.request('POST', '/api/v1/lead-rules', { token: api.token(['signals:read']), body: {} });
      expect(res.status).toBe(403);
    });

    it('does not treat admin as every permission', async () => {
      expect((await api.request('GET', '/api/v1/lead-rules', { token: api.token(['admin']) })).status).toBe(403);
    });
  });

  describe('listing lead rules', () => {
    it('answers an empty list in the documented shape', async () => {
      const res = await api.request('GET', '/api/v1/lead-rules', { token: api.token(['signals:read']) });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: { rules: [], total: 0, limit: 50, offset: 0 } });
      expect(typeof res.body.message).toBe('string');
    });

    it('pages with limit and offset, newest first, and counts the total', async () => {
      const token = api.token();
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await createRule(token, { ...RULE, name: `rule ${i}` }));
      const page1 = await api.request('GET', '/api/v1/lead-rules?limit=2', { token });
      const page3 = await api.request('GET', '/api/v1/lead-rules?limit=2&offset=4', { token });
      const data1 = page1.body.data as { rules: { id: string }[]; total: number; limit: number; offset: number };
      expect(data1).toMatchObject({ total: 5, limit: 2, offset: 0 });
      expect(data1.rules.map((r) => r.id)).toEqual([ids[4], ids[3]]);
      expect((page3.body.data as { rules: { id: string }[]; offset: number }).rules.map((r) => r.id)).toEqual([ids[0]]);
    });

    it('filters on enabled', async () => {
      const token = api.token();
      await createRule(token, { ...RULE, name: 'on' });
      await createRule(token, { ...RULE, name: 'off', enabled: false });
      const on = await api.request('GET', '/api/v1/lead-rules?enabled=true', { token });
      const off = await api.request('GET', '/api/v1/lead-rules?enabled=false', { token });
      expect((on.body.data as { rules: { name: string }[] }).rules.map((r) => r.name)).toEqual(['on']);
      expect((off.body.data as { rules: { name: string }[]; total: number }).rules.map((r) => r.name)).toEqual(['off']);
    });

    it.each([
      ['limit=1001', /limit must be at most 1000/],
      ['limit=0', /limit must be at least 1/],
      ['limit=ten', /limit must be an integer/],
      ['limit=2.5', /limit must be an integer/],
      ['offset=-1', /offset must be 0 or more/],
      ['enabled=yes', /enabled: must be true or false/],
    ])('answers 400 to %s', async (query, message) => {
      const res = await api.request('GET', `/api/v1/lead-rules?${query}`, { token: api.token() });
      expect(res.status).toBe(400);
      expect(res.body.error?.code).toBe('validation_error');
      expect(res.body.message).toMatch(message);
    });

    it('accepts limit=1000, the maximum page size', async () => {
      expect((await api.request('GET', '/api/v1/lead-rules?limit=1000', { token: api.token() })).status).toBe(200);
    });
  });

  describe('creating lead rules', () => {
    it('answers 201 with id, name, enabled and created_at, enabled by default', async () => {
      const res = await api.request('POST', '/api/v1/lead-rules', { token: api.token(), body: RULE });
      expect(res.status).toBe(201);
      expect(res.body.success).toBe(true);
      const data = res.body.data as Record<string, unknown>;
      expect(Object.keys(data).sort()).toEqual(['created_at', 'enabled', 'id', 'name']);
      expect(data).toMatchObject({ name: RULE.name, enabled: true });
      expect(data.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(new Date(data.created_at as string).toISOString()).toBe(data.created_at);
    });

    it('stores every field, with severity medium by default', async () => {
      const token = api.token();
      const id = await createRule(token, { ...RULE, description: 'many failures from one address' });
      const res = await api.request('GET', `/api/v1/lead-rules/${id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({
        id,
        name: RULE.name,
        description: 'many failures from one address',
        enabled: true,
        severity: 'medium',
        conditions: RULE.conditions,
      });
      const data = res.body.data as { org_id: string; created_at: string; updated_at: string };
      expect(data.org_id).toMatch(/^org-/);
      expect(data.updated_at).toBe(data.created_at);
    });

    it('accepts a rule with only a pattern, and each allowed severity', async () => {
      const token = api.token();
      for (const severity of ['low', 'medium', 'high', 'critical']) {
        const res = await api.request('POST', '/api/v1/lead-rules', { token, body: { name: severity, severity, conditions: { pattern: 'x' } } });
        expect(res.status).toBe(201);
      }
    });

    it.each([
      ['no name', { conditions: { pattern: 'x' } }, /name/],
      ['an empty name', { name: '  ', conditions: { pattern: 'x' } }, /name is required/],
      ['no conditions', { name: 'r' }, /conditions/],
      ['no pattern', { name: 'r', conditions: { source: 'auth' } }, /pattern/],
      ['a window that is not a duration', { name: 'r', conditions: { pattern: 'x', threshold: 5, window: '5 minutes' } }, /window must be a duration/],
      ['a window above 30 days', { name: 'r', conditions: { pattern: 'x', threshold: 5, window: '31d' } }, /at most 30d/],
      ['a threshold without a window', { name: 'r', conditions: { pattern: 'x', threshold: 5 } }, /threshold and window go together/],
      ['a threshold of zero', { name: 'r', conditions: { pattern: 'x', threshold: 0, window: '1m' } }, /threshold must be at least 1/],
      ['a fractional threshold', { name: 'r', conditions: { pattern: 'x', threshold: 2.5, window: '1m' } }, /threshold must be an integer/],
      ['an unknown severity', { name: 'r', severity: 'urgent', conditions: { pattern: 'x' } }, /severity/],
      ['a misspelt condition', { name: 'r', conditions: { pattern: 'x', treshold: 5 } }, /treshold/],
      ['enabled as a string', { name: 'r', enabled: 'yes', conditions: { pattern: 'x' } }, /enabled must be true or false/],
      ['ordered without a sequence', { name: 'r', conditions: { pattern: 'x', ordered: true } }, /ordered applies to a sequence/],
      ['ordered as a string', { name: 'r', conditions: { pattern: 'x', sequence: ['a', 'b'], window: '5m', ordered: 'yes' } }, /ordered must be true or false/],
      ['first_seen without days', { name: 'r', conditions: { pattern: 'x', first_seen: { field: 'source.ip' } } }, /days/],
      ['first_seen over 90 days', { name: 'r', conditions: { pattern: 'x', first_seen: { field: 'source.ip', days: 91 } } }, /first_seen.days must be at most 90/],
      ['first_seen on a field that is not a name', { name: 'r', conditions: { pattern: 'x', first_seen: { field: 'source ip', days: 30 } } }, /first_seen.field must be a field name/],
      ['first_seen with a threshold', { name: 'r', conditions: { pattern: 'x', first_seen: { field: 'source.ip', days: 30 }, threshold: 3, window: '5m' } }, /first_seen fires on single events/],
      ['first_seen with a misspelt key', { name: 'r', conditions: { pattern: 'x', first_seen: { field: 'source.ip', day: 30 } } }, /day/],
      ['suppress that is not a duration', { name: 'r', conditions: { pattern: 'x', suppress: 'an hour' } }, /suppress must be a duration/],
      ['suppress above 30 days', { name: 'r', conditions: { pattern: 'x', suppress: '31d' } }, /suppress must be at most 30d/],
    ])('answers 400 to %s', async (_, body, message) => {
      const res = await api.request('POST', '/api/v1/lead-rules', { token: api.token(), body });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'validation_error' } });
      expect(res.body.message).toMatch(message);
      expect(Array.isArray(res.body.error?.details)).toBe(true);
    });

    it('stores ordered sequences, first_seen and suppress, and answers firing counts for the last 30 days', async () => {
      const token = api.token();
      const conditions = [
        { pattern: 'event.category:authentication', sequence: ['event.outcome:failure', 'event.outcome:success'], ordered: true, window: '10m', group_by: 'source.ip', suppress: '1h' },
        { pattern: 'event.outcome:success', first_seen: { field: 'source.geo.country_iso_code', days: 30 }, group_by: 'user.name' },
      ];
      for (const c of conditions) {
        const id = await createRule(token, { name: 'r', conditions: c });
        const res = await api.request('GET', `/api/v1/lead-rules/${id}`, { token });
        const data = res.body.data as { conditions: unknown; firings_by_day: { day: string; count: number; suppressed: number }[] };
        expect(data.conditions).toEqual(c);
        expect(data.firings_by_day).toHaveLength(30);
        expect(data.firings_by_day.at(-1)).toEqual({ day: new Date().toISOString().slice(0, 10), count: 0, suppressed: 0 });
        expect(data.firings_by_day[0]!.day < data.firings_by_day[1]!.day).toBe(true);
      }
    });

    it('answers 400 to a body that is not JSON', async () => {
      const res = await api.request('POST', '/api/v1/lead-rules', { token: api.token(), rawBody: '{"name": ' });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/not valid JSON/);
    });
  });

  describe('getting, updating and deleting one lead rule', () => {
    it('answers 404 for an unknown id and 400 for a malformed one', async () => {
      const token = api.token();
      const unknown = await api.request('GET', '/api/v1/lead-rules/0195f3a4-0000-7000-8000-000000000000', { token });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toMatchObject({ success: false, data: null, error: { code: 'not_found' }, message: 'lead rule not found' });
      const malformed = await api.request('GET', '/api/v1/lead-rules/12345', { token });
      expect(malformed.status).toBe(400);
      expect(malformed.body.message).toMatch(/id must be a UUID/);
    });

    it('does not show one organization the rules of another', async () => {
      const id = await createRule(api.token(['signals:manage'], 'org-a'));
      expect((await api.request('GET', `/api/v1/lead-rules/${id}`, { token: api.token(['signals:read'], 'org-b') })).status).toBe(404);
    });

    it('changes only the fields given', async () => {
      const token = api.token();
      const id = await createRule(token, { ...RULE, description: 'keep me' });
      const res = await api.request('PUT', `/api/v1/lead-rules/${id}`, { token, body: { name: 'renamed', enabled: false, severity: 'high' } });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ id, name: 'renamed', enabled: false, severity: 'high', description: 'keep me', conditions: RULE.conditions });
      const again = await api.request('GET', `/api/v1/lead-rules/${id}`, { token });
      expect(again.body.data).toMatchObject({ name: 'renamed', enabled: false, severity: 'high', description: 'keep me' });
      const data = again.body.data as { created_at: string; updated_at: string };
      expect(data.updated_at >= data.created_at).toBe(true);
    });

    it('merges conditions key by key, and null removes a key', async () => {
      const token = api.token();
      const id = await createRule(token);
      const raised = await api.request('PUT', `/api/v1/lead-rules/${id}`, { token, body: { conditions: { threshold: 10 } } });
      expect((raised.body.data as { conditions: unknown }).conditions).toEqual({ ...RULE.conditions, threshold: 10 });
      const plain = await api.request('PUT', `/api/v1/lead-rules/${id}`, { token, body: { conditions: { threshold: null, window: null, source: null } } });
      expect((plain.body.data as { conditions: unknown }).conditions).toEqual({ pattern: 'Failed password' });
    });

    it('refuses an update that would leave the rule invalid', async () => {
      const token = api.token();
      const id = await createRule(token);
      const res = await api.request('PUT', `/api/v1/lead-rules/${id}`, { token, body: { conditions: { window: null } } });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(/threshold and window go together/);
      const empty = await api.request('PUT', `/api/v1/lead-rules/${id}`, { token, body: {} });
      expect(empty.status).toBe(400);
      expect(empty.body.message).toMatch(/at least one field/);
    });

    it('answers 404 and 400 to updates of unknown and malformed ids', async () => {
      const token = api.token();
      expect((await api.request('PUT', '/api/v1/lead-rules/0195f3a4-0000-7000-8000-000000000000', { token, body: { name: 'x' } })).status).toBe(404);
      expect((await api.request('PUT', '/api/v1/lead-rules/nope', { token, body: { name: 'x' } })).status).toBe(400);
    });

    it('deletes with data null and a confirming message, then answers 404', async () => {
      const token = api.token();
      const id = await createRule(token);
      const res = await api.request('DELETE', `/api/v1/lead-rules/${id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ success: true, data: null });
      expect(res.body.message).toMatch(/deleted/);
      expect((await api.request('GET', `/api/v1/lead-rules/${id}`, { token })).status).toBe(404);
      expect((await api.request('DELETE', `/api/v1/lead-rules/${id}`, { token })).status).toBe(404);
      const list = await api.request('GET', '/api/v1/lead-rules', { token });
      expect((list.body.data as { total: number }).total).toBe(0);
    });

    it('answers 400 to a delete of a malformed id', async () => {
      expect((await api.request('DELETE', '/api/v1/lead-rules/abc', { token: api.token() })).status).toBe(400);
    });
  });

  describe('the API frame', () => {
    it('serves /healthz without a token', async () => {
      const res = await api.request('GET', '/healthz');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ status: 'ok' });
    });

    it('answers unknown routes with a JSON 404', async () => {
      const res = await api.request('GET', '/api/v1/nothing-here', { token: api.token() });
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'not_found' } });
    });

    it('answers a wrong method with a JSON 405', async () => {
      const res = await api.request('PATCH', '/api/v1/lead-rules', { token: api.token() });
      expect(res.status).toBe(405);
      expect(res.body.error?.code).toBe('method_not_allowed');
    });

    it('serves an OpenAPI 3.1 document generated from the routes', async () => {
      const res = await api.request('GET', '/api/v1/openapi.json');
      expect(res.status).toBe(200);
      const doc = res.body as unknown as { openapi: string; paths: Record<string, Record<string, { 'x-permission'?: string; parameters: { name: string }[]; requestBody?: unknown }>> };
      expect(doc.openapi).toBe('3.1.0');
      expect(doc.paths['/api/v1/lead-rules']!.get!['x-permission']).toBe('signals:read');
      expect(doc.paths['/api/v1/lead-rules']!.get!.parameters.map((p) => p.name).sort()).toEqual(['enabled', 'limit', 'offset']);
      expect(doc.paths['/api/v1/lead-rules']!.post!['x-permission']).toBe('signals:manage');
      expect(doc.paths['/api/v1/lead-rules']!.post!.requestBody).toBeDefined();
      expect(Object.keys(doc.paths['/api/v1/lead-rules/{id}']!).sort()).toEqual(['delete', 'get', 'put']);
      const described = JSON.stringify(doc);
      for (const word of ['firings_by_day', 'first_seen', 'ordered', 'suppress']) expect(described).toContain(`"${word}"`);
    });
  });

  describe('persistence', () => {
    it('keeps a rule created before a restart', async () => {
      const token = api.token();
      const id = await createRule(token, { ...RULE, name: 'survivor' });
      const dataDir = api.dataDir;
      await api.close();
      api = await startTestApi({ dataDir, distributed });
      const res = await api.request('GET', `/api/v1/lead-rules/${id}`, { token });
      expect(res.status).toBe(200);
      expect(res.body.data).toMatchObject({ name: 'survivor' });
    });

    it('answers 500 without leaking a stack when the store fails', async () => {
      const token = api.token();
      const dataDir = api.dataDir;
      await api.runtime.store.close();
      const res = await api.request('GET', '/api/v1/lead-rules', { token });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ success: false, message: 'Internal server error', data: null, error: { code: 'internal_error', details: null } });
      expect(res.text).not.toMatch(/at .*\.ts:\d+/);
      await api.close().catch(() => {});
      api = await startTestApi({ dataDir, distributed });
    });
  });
});
