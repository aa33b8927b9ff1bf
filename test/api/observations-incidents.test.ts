// Observations written by analysts, and the incident endpoints' validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
});
afterAll(async () => {
  await api?.close();
});

const UNKNOWN = '01930000-0000-7000-8000-0000000000ff';

describe('observations', () => {
  it('creates with severity medium by default and answers id, type, description, severity, created_at', async () => {
    const token = api.token();
    const res = await api.request('POST', '/api/v1/observations', { token, body: { type: 'network', description: 'beaconing to a rare domain' } });
    expect(res.status).toBe(201);
    const data = res.body.data as Record<string, unknown>;
    expect(Object.keys(data).sort()).toEqual(['created_at', 'description', 'id', 'severity', 'type']);
    expect(data).toMatchObject({ type: 'network', description: 'beaconing to a rare domain', severity: 'medium' });
    const stored = await api.request('GET', `/api/v1/observations/${data.id as string}`, { token });
    expect(stored.body.data).toMatchObject({ node_ids: [], artifact_ids: [], rule_id: null, created_by: 'tester' });
  });

  it('lists with type, severity and time filters, newest first, with paging', async () => {
    const token = api.token();
    for (const [type, severity] of [['auth', 'low'], ['auth', 'high'], ['malware', 'critical']]) {
      await api.request('POST', '/api/v1/observations', { token, body: { type, severity, description: `${type} ${severity}` } });
    }
    const list = async (q: string) => (await api.request('GET', `/api/v1/observations?${q}`, { token })).body.data as { observations: { description: string }[]; total: number; limit: number; offset: number };
    expect((await list('type=auth')).total).toBe(2);
    expect((await list('severity=critical')).observations.map((o) => o.description)).toEqual(['malware critical']);
    const page = await list('limit=1&offset=1');
    expect(page).toMatchObject({ total: 3, limit: 1, offset: 1 });
    expect(page.observations.map((o) => o.description)).toEqual(['auth high']);
    expect((await list(`start=${encodeURIComponent(new Date(Date.now() + 60_000).toISOString())}`)).total).toBe(0);
  });

  it('updates only the fields given and deletes with a confirmation', async () => {
    const token = api.token();
    const created = await api.request('POST', '/api/v1/observations', { token, body: { type: 'auth', description: 'x', node_ids: [UNKNOWN] } });
    const id = (created.body.data as { id: string }).id;
    const updated = await api.request('PUT', `/api/v1/observations/${id}`, { token, body: { severity: 'high' } });
    expect(updated.status).toBe(200);
    expect(updated.body.data).toMatchObject({ id, type: 'auth', description: 'x', severity: 'high', node_ids: [UNKNOWN] });
    const deleted = await api.request('DELETE', `/api/v1/observations/${id}`, { token });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ success: true, data: null, message: 'Observation deleted' });
    expect((await api.request('GET', `/api/v1/observations/${id}`, { token })).status).toBe(404);
  });

  it.each([
    ['POST', '/api/v1/observations', { description: 'no type' }, 400],
    ['POST', '/api/v1/observations', { type: 'auth' }, 400],
    ['POST', '/api/v1/observations', { type: 'auth', description: 'd', severity: 'urgent' }, 400],
    ['POST', '/api/v1/observations', { type: 'auth', description: 'd', node_ids: ['nope'] }, 400],
    ['PUT', `/api/v1/observations/${UNKNOWN}`, { severity: 'low' }, 404],
    ['PUT', '/api/v1/observations/nope', { severity: 'low' }, 400],
    ['GET', '/api/v1/observations/nope', undefined, 400],
    ['GET', `/api/v1/observations/${UNKNOWN}`, undefined, 404],
    ['GET', '/api/v1/observations?limit=1001', undefined, 400],
    ['DELETE', `/api/v1/observations/${UNKNOWN}`, undefined, 404],
  ] as const)('%s %s %o answers %i', async (method, path, body, status) => {
    expect((await api.request(method, path, { token: api.token(), body })).status).toBe(status);
  });

  it('needs observations:read and observations:write', async () => {
    expect((await api.request('GET', '/api/v1/observations', { token: api.token(['incidents:read']) })).status).toBe(403);
    expect((await api.request('POST', '/api/v1/observations', { token: api.token(['observations:read']), body: { type: 'a', description: 'b' } })).status).toBe(403);
  });
});

describe('incidents', () => {
  it('lists nothing for a new organization, in the documented shape', async () => {
    const res = await api.request('GET', '/api/v1/incidents', { token: api.token(['incidents:read']) });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ incidents: [], total: 0, limit: 50, offset: 0 });
  });

  it.each([
    ['GET', '/api/v1/incidents/nope', undefined, 400],
    ['GET', `/api/v1/incidents/${UNKNOWN}`, undefined, 404],
    ['PUT', `/api/v1/incidents/${UNKNOWN}/status`, { status: 3 }, 404],
    ['PUT', '/api/v1/incidents/nope/status', { status: 3 }, 400],
    ['PUT', `/api/v1/incidents/${UNKNOWN}/status`, { status: 0 }, 400],
    ['PUT', `/api/v1/incidents/${UNKNOWN}/status`, { status: 6 }, 400],
    ['PUT', `/api/v1/incidents/${UNKNOWN}/status`, { status: 2.5 }, 400],
    ['PUT', `/api/v1/incidents/${UNKNOWN}/status`, { status: '3' }, 400],
    ['PUT', `/api/v1/incidents/${UNKNOWN}/status`, {}, 400],
    ['GET', '/api/v1/incidents?status=6', undefined, 400],
    ['GET', '/api/v1/incidents?severity=urgent', undefined, 400],
    ['GET', '/api/v1/incidents?limit=1001', undefined, 400],
  ] as const)('%s %s %o answers %i', async (method, path, body, status) => {
    const res = await api.request(method, path, { token: api.token(), body });
    expect(res.status).toBe(status);
    if (status === 400 && path === `/api/v1/incidents/${UNKNOWN}/status`) expect(res.body.message).toMatch(/status must be an integer from 1 to 5/);
  });

  it('needs incidents:read and incidents:write', async () => {
    expect((await api.request('GET', '/api/v1/incidents', { token: api.token(['observations:read']) })).status).toBe(403);
    expect((await api.request('PUT', `/api/v1/incidents/${UNKNOWN}/status`, { token: api.token(['incidents:read']), body: { status: 2 } })).status).toBe(403);
  });
});
