// POST /v1/sql: the route `cairn sql` uses while a running cairn holds the
// embedded store (test/cli-sql-live.test.ts runs the command against it).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';

let api: TestApi;

beforeAll(async () => {
  api = await startTestApi();
}, 60_000);

afterAll(async () => {
  await api?.close();
});

describe('POST /v1/sql', () => {
  it('answers names, types and rows, cut at the limit', async () => {
    const res = await api.request('POST', '/api/v1/sql', { token: api.token(['admin']), body: { query: 'SELECT number, toString(number) AS s FROM system.numbers LIMIT 10', limit: 3 } });
    expect(res.status, res.text).toBe(200);
    expect(res.body.data).toEqual({ names: ['number', 's'], types: ['UInt64', 'String'], rows: [['0', '0'], ['1', '1'], ['2', '2']], cut: true });
  });

  it('is for admins only', async () => {
    const res = await api.request('POST', '/api/v1/sql', { token: api.token(['reports:read']), body: { query: 'SELECT 1' } });
    expect(res.status).toBe(403);
  });

  it('refuses what cairn sql refuses (400 refused_query) and answers the engine\'s refusals with 422 query_failed', async () => {
    const token = api.token(['admin']);
    for (const query of ['DROP TABLE lead_rules', 'SELECT 1; SELECT 2', 'SELECT 1 FORMAT JSON', "SELECT file('/etc/hostname')"]) {
      const res = await api.request('POST', '/api/v1/sql', { token, body: { query } });
      expect(res.status, query).toBe(400);
      expect(res.body.error?.code, query).toBe('refused_query');
    }
    const failed = await api.request('POST', '/api/v1/sql', { token, body: { query: 'SELECT * FROM no_such_table' } });
    expect(failed.status).toBe(422);
    expect(failed.body).toMatchObject({ success: false, error: { code: 'query_failed', details: { clickhouse_code: '60' } } });
    expect(failed.body.message).not.toContain('readonly');
    const write = await api.request('POST', '/api/v1/sql', { token, body: { query: "SELECT * FROM file('/etc/hostname', 'LineAsString')" } });
    expect(write.status).toBe(422);
    expect(write.body.message).toMatch(/readonly mode/);
  });

  it('is in the API document', async () => {
    const res = await api.request('GET', '/api/v1/openapi.json');
    const doc = res.body as unknown as { paths: Record<string, { post?: { tags: string[] } }> };
    expect(doc.paths['/api/v1/sql']?.post?.tags).toEqual(['Reporting']);
  });
});
