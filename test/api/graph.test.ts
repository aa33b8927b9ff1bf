// Parse and enrich into the graph, end to end: ingest, the parser and
// enricher stages, and the node, edge and field-search endpoints.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveredMessage } from '../../pipeline/bus/types.js';
import { artifactsRaw, systemEvents } from '../../topics/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually, uniqueName } from '../helpers/buses.js';

interface NodeOut {
  id: string;
  type: string;
  value: string;
  flags: Record<string, boolean>;
  frameworks: number[];
  edge_count: number;
  created_at: string;
  edges?: { id: string; source_id: string; target_id: string; type: string }[];
}
interface EdgeOut {
  id: string;
  source_id: string;
  target_id: string;
  type: string;
  weight: number;
  artifact_count: number;
  first_seen: string;
  last_seen: string;
  source?: { id: string; type: string; value: string };
  target?: { id: string; type: string; value: string };
}

let api: TestApi;

function authEvent(ip: string, user: string, outcome: 'success' | 'failure', at: string) {
  return {
    source: 'custom-auth',
    raw: JSON.stringify({ '@timestamp': at, event: { category: ['authentication'], outcome }, source: { ip }, user: { name: user }, host: { hostname: 'bastion-1' } }),
  };
}

async function get<T>(token: string, path: string): Promise<T> {
  const res = await api.request('GET', path, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data as T;
}

async function nodes(token: string, query: string): Promise<{ nodes: NodeOut[]; total: number }> {
  return get(token, `/api/v1/nodes?${query}`);
}

describe.each(['embedded', 'distributed'] as const)('graph, %s', (mode) => {
  beforeAll(async () => {
    api = await startTestApi({
      distributed: mode === 'distributed',
      stages: ['store', 'parser', 'enricher'],
      env: { CAIRN_FRAMEWORK_SCOPES: '1=10.20.0.0/16;3=*.pay.example.com', CAIRN_TRUSTED: '*.example.org' },
    });
  });
  afterAll(async () => {
    await api?.close();
  });

  it('builds IP, user and host nodes with edges from authentication events, and counts the edges', async () => {
    const token = api.token();
    const attempts = [
      authEvent('203.0.113.9', 'root', 'failure', '2026-11-20T10:00:00Z'),
      authEvent('203.0.113.9', 'admin', 'failure', '2026-11-20T10:00:05Z'),
      authEvent('203.0.113.9', 'root', 'failure', '2026-11-20T10:00:09Z'),
      authEvent('198.51.100.4', 'alice', 'success', '2026-11-20T11:00:00Z'),
    ];
    expect((await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: attempts } })).status).toBe(202);

    // Events may be handled in any order across partitions: wait until all three are in.
    const found = await eventually(async () => {
      const result = await nodes(token, 'type=IP&value=203.0.113');
      expect(result.nodes).toHaveLength(1);
      expect(result.nodes[0]!.edge_count).toBe(2);
      expect(result.nodes[0]!.created_at).toBe('2026-11-20T10:00:00.000Z');
      return result;
    });
    const attacker = found.nodes[0]!;
    expect(attacker).toMatchObject({ type: 'IP', value: '203.0.113.9', flags: { internal: false, managed: false, trusted: false, infrastructure: false }, frameworks: [] });
    expect(attacker.created_at).toBe('2026-11-20T10:00:00.000Z');

    const single = await get<NodeOut>(token, `/api/v1/nodes/${attacker.id}`);
    expect(single.edges).toHaveLength(single.edge_count);
    const users = await nodes(token, 'type=user');
    const byValue = new Map(users.nodes.map((n) => [n.value, n]));
    expect(new Set(single.edges!.map((e) => e.target_id))).toEqual(new Set([byValue.get('root')!.id, byValue.get('admin')!.id]));
    expect(single.edges!.every((e) => e.type === 'related_to' && e.source_id === attacker.id)).toBe(true);

    const rootEdge = single.edges!.find((e) => e.target_id === byValue.get('root')!.id)!;
    const edge = await eventually(async () => {
      const e = await get<EdgeOut>(token, `/api/v1/edges/${rootEdge.id}`);
      expect(e.artifact_count).toBe(2);
      return e;
    });
    expect(edge).toMatchObject({ artifact_count: 2, weight: 2, first_seen: '2026-11-20T10:00:00.000Z', last_seen: '2026-11-20T10:00:09.000Z' });
    expect(edge.source).toEqual({ id: attacker.id, type: 'IP', value: '203.0.113.9' });
    expect(edge.target).toMatchObject({ type: 'user', value: 'root' });

    const host = (await nodes(token, 'type=host')).nodes.find((n) => n.value === 'bastion-1')!;
    await eventually(async () => {
      const logins = await get<{ edges: EdgeOut[]; total: number }>(token, `/api/v1/edges?type=authenticated_as&target_id=${host.id}`);
      expect(logins.total).toBe(3); // root, admin, alice used bastion-1
    });
  });

  it('turns a real sshd log into attacking addresses linked to the accounts they tried', async () => {
    const token = api.token();
    const lines = fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'beats', 'secure-rhel7.log'), 'utf8').split('\n').filter((l) => l.trim());
    // What the file says, independently of the parser: address -> accounts it failed or succeeded with.
    const tried = new Map<string, Set<string>>();
    for (const line of lines) {
      const m = /(?:Failed|Accepted) \w+ for (?:invalid user )?(\S+) from (\S+) port/.exec(line);
      if (m) tried.set(m[2]!, (tried.get(m[2]!) ?? new Set()).add(m[1]!));
    }
    expect(tried.size).toBeGreaterThan(0);
    for (let i = 0; i < lines.length; i += 500) {
      await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: lines.slice(i, i + 500).map((raw) => ({ source: 'auth', raw })) } });
    }
    for (const [ip, users] of tried) {
      const node = await eventually(async () => {
        const found = (await nodes(token, `type=IP&value=${encodeURIComponent(ip)}`)).nodes.find((n) => n.value === ip);
        expect(found).toBeDefined();
        return found!;
      }, 30_000);
      const single = await get<NodeOut>(token, `/api/v1/nodes/${node.id}`);
      expect(single.edges).toHaveLength(single.edge_count);
      const targets = await Promise.all(single.edges!.filter((e) => e.source_id === node.id && e.type === 'related_to').map((e) => get<NodeOut>(token, `/api/v1/nodes/${e.target_id}`)));
      expect(new Set(targets.filter((t) => t.type === 'user').map((t) => t.value))).toEqual(users);
    }
  });

  it('gives Suricata DNS answers resolved_to edges from the name to each address', async () => {
    const token = api.token();
    const lines = fs.readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'parser', 'suricata-eve.log'), 'utf8').split('\n').filter((l) => l.includes('"event_type":"dns"'));
    await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: lines.map((raw) => ({ source: 'suricata', raw })) } });
    const edge = await eventually(async () => {
      const domain = (await nodes(token, 'type=domain&value=edge.example.net')).nodes[0];
      expect(domain).toBeDefined();
      const resolved = await get<{ edges: EdgeOut[] }>(token, `/api/v1/edges?type=resolved_to&source_id=${domain!.id}`);
      expect(resolved.edges.length).toBeGreaterThan(0);
      return resolved.edges[0]!;
    });
    expect((await get<EdgeOut>(token, `/api/v1/edges/${edge.id}`)).target).toMatchObject({ type: 'IP', value: '203.0.113.80' });
  });

  it('links a domain to each address it resolved to', async () => {
    const token = api.token();
    const dns = { source: 'resolver', raw: JSON.stringify({ dns: { question: { name: 'Updates.Example.NET.' }, resolved_ip: ['192.0.2.10', '192.0.2.11'] }, source: { ip: '10.20.1.5' } }) };
    await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [dns] } });
    const domain = await eventually(async () => {
      const result = await nodes(token, 'type=domain');
      expect(result.nodes.map((n) => n.value)).toEqual(['updates.example.net']);
      expect(result.nodes[0]!.edge_count).toBe(2);
      return result.nodes[0]!;
    });
    const edges = await get<{ edges: EdgeOut[] }>(token, `/api/v1/edges?source_id=${domain.id}`);
    expect(edges.edges.map((e) => e.type)).toEqual(['resolved_to', 'resolved_to']);
    const targets = await Promise.all(edges.edges.map((e) => get<NodeOut>(token, `/api/v1/nodes/${e.target_id}`)));
    expect(targets.map((n) => n.value).sort()).toEqual(['192.0.2.10', '192.0.2.11']);
  });

  it('flags internal addresses from configuration, applies framework scopes, and lets an analyst override a flag for good', async () => {
    const token = api.token();
    const send = (ip: string) => api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [{ source: 'fw', raw: JSON.stringify({ source: { ip }, destination: { ip: '8.8.8.8' } }) }] } });
    await send('10.20.3.4');
    const inside = await eventually(async () => {
      const result = await nodes(token, 'internal=true');
      expect(result.nodes).toHaveLength(1);
      return result.nodes[0]!;
    });
    expect(inside).toMatchObject({ value: '10.20.3.4', flags: { internal: true }, frameworks: [1] });
    expect((await nodes(token, 'frameworks=1,2')).nodes.map((n) => n.value)).toEqual(['10.20.3.4']);
    expect((await nodes(token, 'internal=false')).nodes.map((n) => n.value)).toEqual(['8.8.8.8']);

    const put = await api.request('PUT', `/api/v1/nodes/${inside.id}/flags`, { token, body: { internal: false, managed: true } });
    expect(put.status).toBe(200);
    expect(put.body.data).toEqual({ id: inside.id, flags: { managed: true, internal: false, trusted: false, infrastructure: false } });

    await send('10.20.3.4'); // a later sighting does not undo the analyst's choice
    await eventually(async () => expect((await get<NodeOut>(token, `/api/v1/nodes/${inside.id}`)).edge_count).toBe(1));
    await new Promise((r) => setTimeout(r, 300));
    expect((await get<NodeOut>(token, `/api/v1/nodes/${inside.id}`)).flags).toEqual({ managed: true, internal: false, trusted: false, infrastructure: false });

    const cleared = await api.request('PUT', `/api/v1/nodes/${inside.id}/flags`, { token, body: { internal: null } });
    expect((cleared.body.data as { flags: Record<string, boolean> }).flags).toMatchObject({ internal: true, managed: true });
  });

  it('searches artifacts by parsed fields mixed with words', async () => {
    const token = api.token();
    const marker = uniqueName('m').replace('.', '');
    await api.request('POST', '/api/v1/artifacts', {
      token,
      body: {
        artifacts: [
          authEvent('173.234.31.186', 'root', 'failure', '2026-11-21T10:00:00Z'),
          authEvent('173.234.31.186', 'root', 'success', '2026-11-21T10:01:00Z'),
          authEvent('173.234.31.187', 'root', 'failure', '2026-11-21T10:02:00Z'),
          { source: 'note', raw: `plain text ${marker}` },
        ],
      },
    });
    const search = async (q: string) => (await get<{ total: number; artifacts: { raw: string }[] }>(token, `/api/v1/artifacts?query=${encodeURIComponent(q)}`));
    await eventually(async () => {
      expect((await search('source.ip:173.234.31.186 AND event.outcome:failure')).total).toBe(1);
      expect((await search('source.ip:173.234.31.186')).total).toBe(2);
      expect((await search('user.name:ROOT -event.outcome:success')).total).toBe(2);
      expect((await search(`${marker}`)).total).toBe(1);
    });
    expect((await search(`source.ip:173.234.31.186 ${marker}`)).total).toBe(0);
    // The richer language on the same artifacts: OR, groups, CIDR, wildcards, exists, ranges, regular expressions.
    expect((await search(`source.ip:173.234.31.187 OR ${marker}`)).total).toBe(2);
    expect((await search('source.ip:(173.234.31.186 OR 173.234.31.187) AND NOT event.outcome:success')).total).toBe(2);
    expect((await search('source.ip:173.234.31.0/24')).total).toBe(3);
    expect((await search('source.ip:173.234.0.0/16 AND user.name:ro*')).total).toBe(3);
    expect((await search('user.name:* AND NOT source.ip:10.0.0.0/8')).total).toBe(3);
    expect((await search(`-user.name:* ${marker.slice(0, 3)}*`)).total).toBe(1);
    expect((await search('@timestamp:[2026-11-21T10:00:30Z TO *] AND event.outcome:failure')).total).toBe(1);
    expect((await search('source.ip:/173\\.234\\.31\\.18[67]/ AND event.outcome:/fail.*/')).total).toBe(2);
  });

  it('keeps node and edge counts and artifact_count when the same artifacts are replayed', async () => {
    const token = api.token();
    const orgId = (JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { org_id: string }).org_id;
    const artifacts = [0, 1, 2].map((i) => ({
      id: `01930000-0000-7000-8000-00000000000${i}`,
      org_id: orgId,
      source: 'replay',
      raw: JSON.stringify({ '@timestamp': `2026-11-19T0${i}:00:00Z`, source: { ip: '192.0.2.50' }, destination: { ip: `192.0.2.6${i % 2}` } }),
      timestamp: `2026-11-19T0${i}:00:00Z`,
    }));
    const sendRaw = () => api.runtime.bus.send(artifactsRaw.name, artifacts.map((a) => ({ key: a.id, value: Buffer.from(JSON.stringify(a)) })));
    await sendRaw();
    const snapshot = async () => {
      const all = await nodes(token, 'limit=100');
      const edges = await get<{ edges: EdgeOut[]; total: number }>(token, '/api/v1/edges?limit=100');
      return {
        nodes: all.total,
        edgeCounts: all.nodes.map((n) => `${n.value}=${n.edge_count}`).sort(),
        edges: edges.edges.map((e) => `${e.id} ${e.artifact_count} ${e.first_seen} ${e.last_seen}`).sort(),
      };
    };
    const first = await eventually(async () => {
      const s = await snapshot();
      expect(s.edgeCounts).toEqual(['192.0.2.50=2', '192.0.2.60=1', '192.0.2.61=1']);
      expect(s.edges.map((e) => e.split(' ')[1]).sort()).toEqual(['1', '2']);
      return s;
    });
    await sendRaw();
    await eventually(async () => expect(await api.runtime.bus.lag('enricher', 'artifacts.parsed')).toBe(0));
    await eventually(async () => expect(await api.runtime.bus.lag('parser', 'artifacts.raw')).toBe(0));
    await new Promise((r) => setTimeout(r, 500));
    expect(await snapshot()).toEqual(first);
  });

  it('dead-letters an artifact that cannot be parsed and raises parser.failure', async () => {
    const token = api.token();
    const failures: DeliveredMessage[] = [];
    const sub = await api.runtime.bus.subscribe({ group: uniqueName('events-reader'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void failures.push(...b) });
    try {
      const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [{ source: 'suricata', raw: '{"event_type": "alert", ' }] } });
      const id = (res.body.data as { ids: string[] }).ids[0]!;
      await eventually(() => expect(failures.some((m) => JSON.parse(m.value.toString()).details.artifact_id === id)).toBe(true));
      const event = JSON.parse(failures.find((m) => JSON.parse(m.value.toString()).details.artifact_id === id)!.value.toString());
      expect(event).toMatchObject({ type: 'parser.failure', severity: 'warning', details: { source: 'suricata', artifact_id: id } });
      // the artifact itself is still stored and searchable
      await eventually(async () => expect((await get<{ total: number }>(token, '/api/v1/artifacts?source=suricata')).total).toBe(1));
    } finally {
      await sub.stop();
    }
  });

  it.each([
    ['/api/v1/nodes/not-a-uuid', 400],
    ['/api/v1/nodes/01930000-0000-7000-8000-0000000000ff', 404],
    ['/api/v1/edges/xyz', 400],
    ['/api/v1/edges/01930000-0000-7000-8000-0000000000ff', 404],
    ['/api/v1/nodes?type=router', 400],
    ['/api/v1/nodes?limit=1001', 400],
    ['/api/v1/nodes?frameworks=pci', 400],
    ['/api/v1/edges?type=knows', 400],
    ['/api/v1/edges?source_id=12', 400],
  ])('answers %s with %i', async (path, status) => {
    expect((await api.request('GET', path, { token: api.token() })).status).toBe(status);
  });

  it('needs graph:read to read and graph:write to set flags', async () => {
    expect((await api.request('GET', '/api/v1/nodes', { token: api.token(['signals:read']) })).status).toBe(403);
    expect((await api.request('PUT', '/api/v1/nodes/01930000-0000-7000-8000-0000000000ff/flags', { token: api.token(['graph:read']), body: { internal: true } })).status).toBe(403);
    const res = await api.request('PUT', '/api/v1/nodes/01930000-0000-7000-8000-0000000000ff/flags', { token: api.token(), body: { internal: 'yes' } });
    expect(res.status).toBe(400);
    expect((await api.request('PUT', '/api/v1/nodes/01930000-0000-7000-8000-0000000000ff/flags', { token: api.token(), body: { internal: true } })).status).toBe(404);
  });
});
