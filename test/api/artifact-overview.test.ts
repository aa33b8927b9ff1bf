// What the console shows around a search: GET /v1/artifacts/histogram (the
// same selection counted per time bucket) and GET /v1/artifacts/fields (the
// fields the matches hold and a field's top values), checked against counts
// made apart from what the test wrote and against search's own totals.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';

interface Histogram {
  start: string | null;
  end: string | null;
  interval_seconds: number;
  buckets: Array<{ start: string; count: number }>;
  total: number;
}

describe('artifact histogram and fields', () => {
  let api: TestApi;
  let token: string;
  const base = Date.parse('2026-03-02T10:00:00Z');
  // 90 lines over three hours: minute i holds one line; every third is a root login.
  const lines = Array.from({ length: 90 }, (_, i) => ({
    source: 'auth',
    timestamp: new Date(base + i * 2 * 60_000).toISOString(),
    raw: `Mar  2 10:00:00 web sshd[${i}]: Failed password for ${i % 3 === 0 ? 'root' : 'alice'} from 198.51.100.${i} port 22 ssh2`,
  }));

  beforeAll(async () => {
    // The analysis stage parses the lines into the events the field tests and lists read.
    api = await startTestApi({ stages: ['store', 'analysis'] });
    token = api.token('all', `org-${randomUUID().slice(0, 8)}`);
    const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: lines } });
    expect(res.status, res.text).toBe(202);
    await eventually(async () => expect(((await api.request('GET', '/api/v1/artifacts?limit=1', { token })).body.data as { total: number }).total).toBe(90), 20_000, 100);
    await eventually(async () => expect(((await api.request('GET', '/api/v1/artifacts?limit=1&query=user.name:*', { token })).body.data as { total: number }).total).toBe(90), 20_000, 100);
  });
  afterAll(async () => api?.close());

  async function histogram(query: string): Promise<Histogram> {
    const res = await api.request('GET', `/api/v1/artifacts/histogram?${query}`, { token });
    expect(res.status, res.text).toBe(200);
    return res.body.data as Histogram;
  }

  it('counts a query per bucket as the timestamps say, adding up to the search total', async () => {
    const start = '2026-03-02T10:00:00Z';
    const end = '2026-03-02T13:00:00Z';
    const got = await histogram(`query=root&start=${start}&end=${end}&buckets=12`);
    // Three hours in at most 12 buckets: 30 minutes each.
    expect(got.interval_seconds).toBe(1800);
    const expected = new Map<string, number>();
    for (const [i, line] of lines.entries()) {
      if (i % 3 !== 0) continue;
      const bucket = new Date(Math.floor(Date.parse(line.timestamp) / 1_800_000) * 1_800_000).toISOString();
      expected.set(bucket, (expected.get(bucket) ?? 0) + 1);
    }
    expect(got.buckets).toEqual([...expected].map(([bucketStart, count]) => ({ start: bucketStart, count })));
    const search = await api.request('GET', `/api/v1/artifacts?limit=1&query=root&start=${start}&end=${end}`, { token });
    expect(got.total).toBe((search.body.data as { total: number }).total);
    expect(got.total).toBe(30);
  });

  it('spans an open range from the oldest to the newest match, and a field query through the events', async () => {
    const all = await histogram('buckets=60');
    expect(all.start).toBe(lines[0]!.timestamp);
    expect(Date.parse(all.end!)).toBe(Date.parse(lines.at(-1)!.timestamp) + 1);
    expect(all.total).toBe(90);
    expect(all.interval_seconds).toBe(300);
    const field = await histogram(`query=${encodeURIComponent('user.name:alice')}`);
    const search = await api.request('GET', `/api/v1/artifacts?limit=1&exact_total=true&query=${encodeURIComponent('user.name:alice')}`, { token });
    expect(field.total).toBe((search.body.data as { total: number }).total);
    const none = await histogram('query=nothing-matches-this');
    expect(none.buckets).toEqual([]);
    expect(none.total).toBe(0);
  });

  it("answers a bad query with the parser's position, and bounds the buckets", async () => {
    const bad = await api.request('GET', `/api/v1/artifacts/histogram?query=${encodeURIComponent('a AND (b')}`, { token });
    expect(bad.status).toBe(400);
    expect(bad.body.error?.details).toMatchObject({ position: 9 });
    const tooMany = await api.request('GET', '/api/v1/artifacts/histogram?buckets=501', { token });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.message).toContain('buckets must be an integer from 1 to 500');
    const openapi = await api.request('GET', '/api/v1/openapi.json', { token });
    expect(Object.keys((openapi.body as unknown as { paths: Record<string, unknown> }).paths)).toContain('/api/v1/artifacts/histogram');
  });

  it("lists the matches' fields and a field's top values, each count equal to a search for it", async () => {
    const fields = await api.request('GET', '/api/v1/artifacts/fields?limit=100', { token });
    expect(fields.status, fields.text).toBe(200);
    const held = (fields.body.data as { fields: Array<{ field: string; count: number }> }).fields;
    expect(held).toContainEqual({ field: 'user.name', count: 90 });
    expect(held).toContainEqual({ field: 'source.ip', count: 90 });
    const values = await api.request('GET', '/api/v1/artifacts/fields?field=user.name', { token });
    expect((values.body.data as { values: unknown }).values).toEqual([
      { value: 'alice', count: 60 },
      { value: 'root', count: 30 },
    ]);
    for (const { value, count } of [{ value: 'alice', count: 60 }, { value: 'root', count: 30 }]) {
      const search = await api.request('GET', `/api/v1/artifacts?limit=1&exact_total=true&query=${encodeURIComponent(`user.name:"${value}"`)}`, { token });
      expect((search.body.data as { total: number }).total).toBe(count);
    }
    // Over a query on the raw text (the artifacts table) and a time range.
    const narrowed = await api.request('GET', `/api/v1/artifacts/fields?field=user.name&query=root&start=2026-03-02T10:00:00Z&end=2026-03-02T11:00:00Z`, { token });
    expect((narrowed.body.data as { values: unknown }).values).toEqual([{ value: 'root', count: 10 }]);
    const top3 = await api.request('GET', '/api/v1/artifacts/fields?field=source.ip&limit=3', { token });
    expect((top3.body.data as { values: unknown[] }).values).toHaveLength(3);
    const bad = await api.request('GET', `/api/v1/artifacts/fields?query=${encodeURIComponent('user.name:(a')}`, { token });
    expect(bad.status).toBe(400);
    expect((bad.body.error?.details as { position: number }).position).toBeGreaterThan(0);
  });

  it("answers one artifact's parsed event, and 404 for an artifact without one", async () => {
    const page = await api.request('GET', `/api/v1/artifacts?limit=1&query=${encodeURIComponent('"sshd[3]"')}`, { token });
    const artifact = (page.body.data as { artifacts: Array<{ id: string; raw: string }> }).artifacts[0]!;
    expect(artifact.raw).toContain('sshd[3]:');
    const event = await api.request('GET', `/api/v1/artifacts/${artifact.id}/event`, { token });
    expect(event.status, event.text).toBe(200);
    const fields = (event.body.data as { fields: Record<string, string[]> }).fields;
    expect(fields['user.name']).toEqual(['root']);
    expect(fields['source.ip']).toEqual(['198.51.100.3']);
    // Another organization's token does not see it.
    const other = await api.request('GET', `/api/v1/artifacts/${artifact.id}/event`, { token: api.token('all', `org-${randomUUID().slice(0, 8)}`) });
    expect(other.status).toBe(404);
    expect((await api.request('GET', `/api/v1/artifacts/${randomUUID()}/event`, { token })).status).toBe(404);
    expect((await api.request('GET', '/api/v1/artifacts/not-a-uuid/event', { token })).status).toBe(400);
  });

  it('answers the chosen parsed fields with each artifact of a page, and only those', async () => {
    const res = await api.request('GET', '/api/v1/artifacts?limit=30&offset=10&query=sshd&fields=user.name,source.ip,no.such.field', { token });
    expect(res.status, res.text).toBe(200);
    const page = (res.body.data as { artifacts: { raw: string; fields: Record<string, string[]> }[] }).artifacts;
    expect(page).toHaveLength(30);
    for (const artifact of page) {
      const [, user, address] = /for (\w+) from (\S+) /.exec(artifact.raw)!;
      expect(artifact.fields).toEqual({ 'user.name': [user], 'source.ip': [address] });
    }
    // Without `fields`, artifacts come as before.
    const plain = await api.request('GET', '/api/v1/artifacts?limit=1', { token });
    expect(Object.keys((plain.body.data as { artifacts: object[] }).artifacts[0]!)).not.toContain('fields');
    for (const bad of ['fields=', 'fields=user.name,,source.ip', `fields=${Array.from({ length: 21 }, (_, i) => `f${i}`).join(',')}`]) {
      expect((await api.request('GET', `/api/v1/artifacts?${bad}`, { token })).status, bad).toBe(400);
    }
  });
});
