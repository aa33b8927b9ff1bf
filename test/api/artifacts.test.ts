// Artifact ingest and search through the API, with the store stage running.
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eventually } from '../helpers/buses.js';
import { startTestApi, type ApiResponse, type TestApi } from '../helpers/api.js';

interface ArtifactOut {
  id: string;
  source: string;
  raw: string;
  timestamp: string;
  metadata: Record<string, unknown>;
  org_id: string;
  created_at: string;
}
interface SearchData {
  artifacts: ArtifactOut[];
  total: number;
  limit: number;
  offset: number;
}

let api: TestApi;

async function ingest(token: string, artifacts: unknown[]): Promise<ApiResponse> {
  return api.request('POST', '/api/v1/artifacts', { token, body: { artifacts } });
}

async function search(token: string, query: string): Promise<SearchData> {
  const res = await api.request('GET', `/api/v1/artifacts?${query}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data as SearchData;
}

/** Waits until the store stage has made `count` artifacts of this org searchable. */
async function waitForStored(token: string, count: number): Promise<void> {
  await eventually(async () => expect((await search(token, 'limit=1')).total).toBe(count), 20_000, 100);
}

describe.each(['embedded', 'distributed'] as const)('artifacts API, %s', (mode) => {
  beforeAll(async () => {
    api = await startTestApi({ distributed: mode === 'distributed', stages: ['store'] });
  });
  afterAll(async () => {
    await api?.close();
  });

  describe('ingest', () => {
    it('accepts the valid items of a mixed batch and reports the others by index and reason', async () => {
      const token = api.token();
      const res = await ingest(token, [
        { source: 'auth', raw: 'sshd[1]: Failed password for root from 10.0.0.1 port 22 ssh2' },
        { source: 'auth' },
        { source: 'suricata', raw: '{"event_type":"alert"}', timestamp: '2026-11-01T10:00:00+02:00', metadata: { sensor: 'edge-1' } },
        { raw: 'no source' },
        { source: 'auth', raw: 'x', timestamp: 'yesterday' },
        'not an object',
        { source: 'auth', raw: 'x', metadata: ['not', 'an', 'object'] },
      ]);
      expect(res.status).toBe(202);
      expect(res.body.message).toMatch(/^2 artifact\(s\) accepted for processing, 5 rejected$/);
      const data = res.body.data as { accepted: number; rejected: number; ids: string[]; rejections: { index: number; reason: string }[] };
      expect(data).toMatchObject({ accepted: 2, rejected: 5 });
      expect(data.ids).toHaveLength(2);
      expect(data.rejections.map((r) => r.index)).toEqual([1, 3, 4, 5, 6]);
      expect(data.rejections[0]!.reason).toMatch(/raw is required/);
      expect(data.rejections[1]!.reason).toMatch(/source is required/);
      expect(data.rejections[2]!.reason).toMatch(/timestamp must be ISO 8601/);
      expect(data.rejections[4]!.reason).toMatch(/metadata must be an object/);

      await waitForStored(token, 2);
      const stored = await search(token, 'source=suricata');
      expect(stored.artifacts[0]).toMatchObject({ id: data.ids[1], raw: '{"event_type":"alert"}', timestamp: '2026-11-01T08:00:00.000Z', metadata: { sensor: 'edge-1' } });
    });

    it('answers 400 when no item is valid, and to a body without artifacts', async () => {
      const token = api.token();
      const none = await ingest(token, [{ source: 'a' }, { raw: 'b' }]);
      expect(none.status).toBe(400);
      expect(none.body.message).toMatch(/no artifact was accepted/);
      expect(none.body.error?.details).toHaveLength(2);
      expect((await api.request('POST', '/api/v1/artifacts', { token, body: {} })).status).toBe(400);
      expect((await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [] } })).status).toBe(400);
      expect((await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: 'x' } })).status).toBe(400);
    });

    it('answers 413 past the documented limits', async () => {
      const token = api.token();
      const many = await ingest(token, Array.from({ length: 10_001 }, () => ({ source: 's', raw: 'r' })));
      expect(many.status).toBe(413);
      expect(many.body.message).toMatch(/at most 10000 artifacts per request/);
      const big = await ingest(token, Array.from({ length: 50 }, () => ({ source: 's', raw: 'x'.repeat(250_000) })));
      expect(big.status).toBe(413);
      expect(big.body.error?.code).toBe('payload_too_large');
      const longRaw = await ingest(token, [{ source: 's', raw: 'x'.repeat(300_000) }]);
      expect(longRaw.status).toBe(400);
      expect(longRaw.body.message).toMatch(/raw must be at most 262144 bytes/);
    });

    it('stamps artifacts without a timestamp with the time they arrived', async () => {
      const token = api.token();
      const before = Date.now();
      await ingest(token, [{ source: 'auth', raw: 'no time given' }]);
      await waitForStored(token, 1);
      const [artifact] = (await search(token, 'limit=1')).artifacts;
      expect(Date.parse(artifact!.timestamp)).toBeGreaterThanOrEqual(before - 1000);
      expect(Date.parse(artifact!.timestamp)).toBeLessThanOrEqual(Date.now());
      expect(artifact!.org_id).toMatch(/^org-/);
    });

    it('needs signals:write to ingest and signals:read to search', async () => {
      expect((await ingest(api.token(['signals:read']), [{ source: 'a', raw: 'b' }])).status).toBe(403);
      expect((await api.request('GET', '/api/v1/artifacts', { token: api.token(['signals:write']) })).status).toBe(403);
      expect((await api.request('POST', '/api/v1/artifacts', { body: { artifacts: [] } })).status).toBe(401);
    });
  });

  describe('search', () => {
    const token = () => searchToken;
    let searchToken = '';
    const lines = [
      { source: 'auth', raw: 'Nov 22 06:01:02 web sshd[4242]: Failed password for root from 203.0.113.9 port 50022 ssh2', timestamp: '2026-11-22T06:01:02Z' },
      { source: 'auth', raw: 'Nov 22 06:01:05 web sshd[4243]: Failed password for invalid user admin from 203.0.113.9 port 50023 ssh2', timestamp: '2026-11-22T06:01:05Z' },
      { source: 'auth', raw: 'Nov 22 06:02:00 web sshd[4300]: Accepted publickey for alice from 192.0.2.10 port 40000 ssh2', timestamp: '2026-11-22T06:02:00Z' },
      { source: 'firewall', raw: 'kernel: IN=eth0 OUT= SRC=203.0.113.9 DST=192.0.2.1 PROTO=TCP DPT=22 PASSWORD-FREE', timestamp: '2026-11-22T06:00:30Z' },
      { source: 'suricata', raw: '{"event_type":"alert","alert":{"signature":"ET SCAN Potential SSH Scan"}}', timestamp: '2026-11-22T05:59:00Z' },
    ];

    beforeAll(async () => {
      searchToken = api.token();
      expect((await ingest(searchToken, lines)).status).toBe(202);
      await waitForStored(searchToken, lines.length);
    });

    it('finds an artifact by a word of its raw, ignoring case', async () => {
      const found = await search(token(), 'query=PUBLICKEY');
      expect(found.artifacts.map((a) => a.raw)).toEqual([lines[2]!.raw]);
    });

    it('ANDs the terms and matches quoted phrases as adjacent words', async () => {
      const matches = async (q: string) => {
        const found = await search(token(), `query=${encodeURIComponent(q)}`);
        expect(found.artifacts).toHaveLength(found.total);
        return found.artifacts.map((a) => a.raw);
      };
      expect(await matches('failed root')).toEqual([lines[0]!.raw]);
      expect(await matches('"invalid user admin"')).toEqual([lines[1]!.raw]);
      expect(await matches('"user invalid"')).toEqual([]);
      expect(await matches('failed AND password AND ssh2')).toEqual([lines[1]!.raw, lines[0]!.raw]);
    });

    it('matches words with separators exactly, and excludes with NOT', async () => {
      expect((await search(token(), `query=${encodeURIComponent('203.0.113.9')}`)).total).toBe(3);
      expect((await search(token(), `query=${encodeURIComponent('203.0.113')}`)).total).toBe(3);
      expect((await search(token(), `query=${encodeURIComponent('sshd[4242]')}`)).total).toBe(1);
      expect((await search(token(), `query=${encodeURIComponent('password NOT failed')}`)).total).toBe(1);
      expect((await search(token(), `query=${encodeURIComponent('203.0.113.9 -source:firewall')}`)).total).toBe(2);
    });

    it('sorts by timestamp, newest first, and pages with limit and offset', async () => {
      const all = await search(token(), 'limit=10');
      expect(all.total).toBe(5);
      expect(all.artifacts.map((a) => a.timestamp)).toEqual([...lines].map((l) => new Date(l.timestamp).toISOString()).sort().reverse());
      const page = await search(token(), 'limit=2&offset=2');
      expect(page).toMatchObject({ total: 5, limit: 2, offset: 2 });
      expect(page.artifacts.map((a) => a.id)).toEqual(all.artifacts.slice(2, 4).map((a) => a.id));
    });

    it('filters by source and by a time range with start inclusive and end exclusive', async () => {
      expect((await search(token(), 'source=auth')).total).toBe(3);
      const range = await search(token(), `start=${encodeURIComponent('2026-11-22T06:00:30Z')}&end=${encodeURIComponent('2026-11-22T06:02:00Z')}`);
      expect(range.artifacts.map((a) => a.timestamp)).toEqual(['2026-11-22T06:01:05.000Z', '2026-11-22T06:01:02.000Z', '2026-11-22T06:00:30.000Z']);
    });

    it.each([
      ['exact_total=yes', /exact_total: must be true or false/],
      ['limit=1001', /limit must be at most 1000/],
      ['start=yesterday', /start: must be an ISO 8601 timestamp/],
      ['start=2026-11-23T00:00:00Z&end=2026-11-22T00:00:00Z', /start must not be after end/],
      [`query=${encodeURIComponent('"unterminated')}`, /invalid query: unterminated quote/],
      [`query=${encodeURIComponent('a OR')}`, /invalid query: OR needs a term on both sides at character 3/],
      [`query=${encodeURIComponent('(a OR b')}`, /expected \) to close the \( at character 1 at character 8/],
      [`query=${encodeURIComponent('colour:')}`, /field colour needs a value/],
    ])('answers 400 to %s', async (query, message) => {
      const res = await api.request('GET', `/api/v1/artifacts?${query}`, { token: token() });
      expect(res.status).toBe(400);
      expect(res.body.message).toMatch(message);
    });

    it('does not show one organization the artifacts of another', async () => {
      expect((await search(api.token(), 'query=password')).total).toBe(0);
    });
  });
});

describe('ingest backpressure', () => {
  it('answers 429 with Retry-After while the store stage is too far behind', async () => {
    const slow = await startTestApi({ env: { CAIRN_INGEST_MAX_LAG: '5' } }); // no store stage: nothing drains
    try {
      const token = slow.token();
      const first = await slow.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [1, 2, 3].map((n) => ({ source: 's', raw: `line ${n}` })) } });
      expect(first.status).toBe(202);
      await new Promise((r) => setTimeout(r, 1100)); // lag is read at most once a second
      const second = await slow.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [4, 5, 6].map((n) => ({ source: 's', raw: `line ${n}` })) } });
      expect(second.status).toBe(429);
      expect(second.headers.get('retry-after')).toBe('5');
      expect(second.body).toMatchObject({ success: false, error: { code: 'too_many_requests', details: { lag: 3, stage: 'store', max_lag: 5 } } });
    } finally {
      await slow.close();
    }
  });
});

describe('ingest while the bus refuses', () => {
  it('answers 503 with Retry-After, without naming the brokers, when Kafka does not take the artifacts', async () => {
    const api = await startTestApi({ distributed: true });
    try {
      const token = api.token();
      await api.runtime.bus.close(); // the producer is gone: kafkajs refuses every send with a retriable error
      const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [{ source: 's', raw: 'line' }] } });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(res.body).toMatchObject({ success: false, error: { code: 'unavailable', details: { retry_after_seconds: 5 } } });
      expect(res.body.message).toMatch(/message bus did not take these artifacts.*send them again after 5 s/);
      expect(res.text).not.toContain(inject('kafkaBrokers'));
    } finally {
      await api.close();
    }
  });
});
