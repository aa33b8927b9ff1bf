// The MCP server at /api/v1/mcp through the official SDK's client (issue
// 18): API keys authenticate it, the tools listed follow the key's
// permissions and the server's configuration, artifact search answers the
// stored rows, a call without permission is refused, and every call is in
// the audit log.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveIncidents } from '../../clickhouse/tables/incidents.js';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { finishedJob, startFeedServer } from '../helpers/feeds.js';

const orgId = `org-${randomUUID().slice(0, 8)}`;
const PASSWORD = 'correct horse battery staple';
const MCP = '/api/v1/mcp';
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
const MCP_HEADERS = { accept: 'application/json, text/event-stream' };

let api: TestApi;
let admin: string;
let userToken: string;
const clients: Client[] = [];

beforeAll(async () => {
  // The feed server of the threat intel lookup runs on loopback.
  api = await startTestApi({ stages: ['store'], env: { CAIRN_ORG_ID: orgId, CAIRN_OUTBOUND_ALLOW: '127.0.0.1' } });
  admin = api.token('all', orgId);
  const user = await api.request('POST', '/api/v1/users', { token: admin, body: { email: `agent-owner-${randomUUID().slice(0, 6)}@example.com`, name: 'Agent Owner', role_id: BUILTIN_ROLES.analyst.id, password: PASSWORD } });
  expect(user.status, user.text).toBe(201);
  const login = await api.request('POST', '/api/v1/auth/login', { body: { email: (user.body.data as { email: string }).email, password: PASSWORD } });
  expect(login.status, login.text).toBe(200);
  userToken = (login.body.data as { token: string }).token;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await api?.close();
});

async function apiKey(permissions: string[]): Promise<string> {
  const res = await api.request('POST', '/api/v1/api-keys', { token: userToken, body: { name: `agent-${randomUUID().slice(0, 6)}`, permissions } });
  expect(res.status, res.text).toBe(201);
  return (res.body.data as { token: string }).token;
}

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: 'cairn-test-agent', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${api.url}${MCP}`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  clients.push(client);
  return client;
}

const configure = async (body: Record<string, unknown>) => expect((await api.request('PUT', '/api/v1/ai/mcp/config', { token: admin, body })).status).toBe(200);
const names = async (client: Client) => (await client.listTools()).tools.map((t) => t.name).sort();
const textOf = (result: Awaited<ReturnType<Client['callTool']>>) => (result.content as { type: string; text: string }[]).map((c) => c.text).join('\n');

describe('the MCP server', () => {
  it('answers 404 while disabled, the default', async () => {
    const res = await api.request('POST', MCP, { token: admin, body: INITIALIZE, headers: MCP_HEADERS });
    expect(res.status).toBe(404);
    expect(res.body.message).toContain('the MCP server is disabled');
  });

  it('lists the tools a key may use, calls artifact search on the stored rows, refuses a call without permission, and audits every call', async () => {
    await configure({ enabled: true });
    const raw = `sshd[77]: Failed password for invalid user oracle from 192.0.2.44 port 40022 ssh2 ${randomUUID()}`;
    expect((await api.request('POST', '/api/v1/artifacts', { token: admin, body: { artifacts: [{ source: 'auth', raw }] } })).status).toBe(202);
    await eventually(async () => expect((await api.request('GET', '/api/v1/artifacts?query=oracle', { token: admin })).body.data).toMatchObject({ total: 1 }));

    const narrow = await connect(await apiKey(['ai:read', 'signals:read']));
    expect(await names(narrow)).toEqual(['search_artifacts']);
    const wide = await connect(await apiKey(['ai:read', 'signals:read', 'incidents:read', 'graph:read']));
    expect(await names(wide)).toEqual(['get_incident', 'graph_neighbours', 'list_incidents', 'search_artifacts']);

    const found = await narrow.callTool({ name: 'search_artifacts', arguments: { query: 'oracle AND "192.0.2.44"' } });
    expect(found.isError).toBeFalsy();
    const rows = found.structuredContent as { artifacts: { id: string; source: string; raw: string }[]; total: number };
    expect(rows.total).toBe(1);
    expect(rows.artifacts.map((a) => [a.source, a.raw])).toEqual([['auth', raw]]);
    const viaApi = (await api.request('GET', `/api/v1/artifacts?query=${encodeURIComponent('oracle AND "192.0.2.44"')}`, { token: admin })).body.data as { artifacts: { id: string }[] };
    expect(rows.artifacts.map((a) => a.id)).toEqual(viaApi.artifacts.map((a) => a.id));
    expect(textOf(found)).toMatch(/^<cairn_tool_result tool="search_artifacts" status="ok">/);

    const refused = await narrow.callTool({ name: 'get_incident', arguments: { id: randomUUID() } });
    expect(refused.isError).toBe(true);
    const invalid = await narrow.callTool({ name: 'search_artifacts', arguments: { limit: 'all' } });
    expect(invalid.isError).toBe(true);

    const audit = await api.request('GET', '/api/v1/audit-log?action=ai.tool_call', { token: admin });
    const entries = (audit.body.data as { entries: { target_id: string; outcome: string; actor_via: string; after: { surface: string; result: string; key_id?: string; error?: string } }[] }).entries;
    expect(entries.map((e) => [e.target_id, e.outcome, e.actor_via, e.after.surface, e.after.result]).reverse()).toEqual([
      ['search_artifacts', 'success', 'api_key', 'mcp', 'ok'],
      ['get_incident', 'failure', 'api_key', 'mcp', 'refused'],
      ['search_artifacts', 'failure', 'api_key', 'mcp', 'error'],
    ]);
    expect(entries.find((e) => e.target_id === 'get_incident')!.after.error).toContain('needs the "incidents:read" permission');
    expect(entries.every((e) => typeof e.after.key_id === 'string')).toBe(true);
  });

  it('serves incidents as resources to a key with incidents:read', async () => {
    await configure({ enabled: true, exposed_tools: null });
    const now = new Date().toISOString();
    const id = randomUUID();
    await saveIncidents(api.runtime.store, [{ id, org_id: orgId, title: 'Beaconing from build-07', severity: 'medium', artifact_count: 3, node_count: 0, node_ids: [], observation_ids: [], first_seen: now, last_seen: now, created_at: now, updated_at: now }]);
    const client = await connect(await apiKey(['ai:read', 'incidents:read']));
    const listed = await client.listResources();
    expect(listed.resources).toContainEqual(expect.objectContaining({ uri: `cairn://incidents/${id}`, name: 'Beaconing from build-07', mimeType: 'application/json' }));
    const read = await client.readResource({ uri: `cairn://incidents/${id}` });
    expect(JSON.parse((read.contents[0] as { text: string }).text)).toMatchObject({ id, title: 'Beaconing from build-07', status_name: 'New', nodes: [], observations: [] });
    const none = await connect(await apiKey(['ai:read', 'signals:read']));
    expect((await none.listResources()).resources).toEqual([]);
  });

  it('looks indicators up in the threat intel library for a key with threatfeed:read', async () => {
    await configure({ enabled: true, exposed_tools: null });
    const feeds = await startFeedServer();
    try {
      feeds.set('/c2.txt', '# command and control\n203.0.113.77\nc2.bad.example\n');
      const created = await api.request('POST', '/api/v1/threatfeed/subscriptions', { token: admin, body: { name: 'c2 list', kind: 'plain', url: `${feeds.url}/c2.txt` } });
      expect(created.status, created.text).toBe(201);
      expect(await finishedJob(api, admin, (created.body.data as { id: string }).id)).toMatchObject({ status: 'succeeded', added: 2 });
      const client = await connect(await apiKey(['ai:read', 'threatfeed:read']));
      expect(await names(client)).toEqual(['lookup_indicators']);
      const lookup = async (value: string) => (await client.callTool({ name: 'lookup_indicators', arguments: { value } })).structuredContent;
      expect(await lookup('c2.bad.example')).toMatchObject({ total: 1, indicators: [{ type: 'domain', value: 'c2.bad.example', feeds: [{ name: 'c2 list' }] }] });
      expect(await lookup('198.51.100.1')).toMatchObject({ total: 0, indicators: [] });
    } finally {
      await feeds.close();
    }
  });

  it('exposes only the tools the configuration names', async () => {
    await configure({ enabled: true, exposed_tools: ['list_incidents'] });
    const client = await connect(await apiKey(['ai:read', 'signals:read', 'incidents:read']));
    expect(await names(client)).toEqual(['list_incidents']);
    const hidden = await client.callTool({ name: 'search_artifacts', arguments: {} });
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden)).toContain('not found');
    await configure({ exposed_tools: null });
  });

  it('refuses without a token (401), without ai:read (403), from a browser origin not allowed (403), and past the per-key rate limit (429)', async () => {
    await configure({ enabled: true, rate_limit_per_minute: 2, allowed_origins: ['https://agent.example.com'] });
    expect((await api.request('POST', MCP, { body: INITIALIZE, headers: MCP_HEADERS })).status).toBe(401);
    expect((await api.request('POST', MCP, { token: await apiKey(['signals:read']), body: INITIALIZE, headers: MCP_HEADERS })).status).toBe(403);
    const key = await apiKey(['ai:read', 'signals:read']);
    // A fixed window per minute: the three requests below take well under a second; start them inside one window.
    if (Date.now() % 60_000 > 57_000) await new Promise((r) => setTimeout(r, 60_000 - (Date.now() % 60_000) + 50));
    const foreign = await api.request('POST', MCP, { token: key, body: INITIALIZE, headers: { ...MCP_HEADERS, origin: 'https://evil.example' } });
    expect(foreign.status).toBe(403);
    const allowed = await api.request('POST', MCP, { token: key, body: INITIALIZE, headers: { ...MCP_HEADERS, origin: 'https://agent.example.com' } });
    expect(allowed.status, allowed.text).toBe(200);
    const limited = await api.request('POST', MCP, { token: key, body: INITIALIZE, headers: MCP_HEADERS });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(limited.body.message).toContain('rate limit of 2 requests per minute');
    // Another key has its own window.
    expect((await api.request('POST', MCP, { token: await apiKey(['ai:read']), body: INITIALIZE, headers: MCP_HEADERS })).status).toBe(200);
    expect((await api.request('GET', MCP, { token: key, headers: MCP_HEADERS })).status).toBe(405);
  });
});
