// The read-only ClickHouse HTTP interface (api/clickhouse-http) as BI tools
// and ClickHouse clients meet it: the official client, and plain requests
// per format, against the embedded store of a running API.
import { randomUUID } from 'node:crypto';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startClickHouseHttp, type ClickHouseHttpServer } from '../api/clickhouse-http/server.js';
import { saveLeadRule, type LeadRule } from '../clickhouse/tables/lead-rules.js';
import { createApiKey } from '../identity/api-keys.js';
import { Identity } from '../identity/index.js';
import { builtinRole } from '../identity/roles.js';
import { createUser } from '../identity/users.js';
import { startTestApi, type TestApi } from './helpers/api.js';
import { testLogger } from './helpers/buses.js';

const PASSWORD = 'correct horse battery staple';
const OTHER_ORG = `other-${randomUUID().slice(0, 8)}`;

let api: TestApi;
let reporting: ClickHouseHttpServer;
let url: string;
let orgId: string;
let otherOrgKey: string;
let noReportsKey: string;
const clients: ClickHouseClient[] = [];

function rule(org: string, name: string, severity: string, tags: string[] = []): LeadRule {
  const now = new Date().toISOString();
  return { id: randomUUID(), org_id: org, name, description: `${name} description`, enabled: true, conditions: { pattern: 'x' }, severity: severity as LeadRule['severity'], tags, origin: null, created_at: now, updated_at: now };
}

function client(username: string, password: string): ClickHouseClient {
  const c = createClient({ url, username, password, database: 'cairn' });
  clients.push(c);
  return c;
}

function basic(user: string, password: string): Record<string, string> {
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}` };
}

async function post(query: string, headers: Record<string, string> = basic('alice@example.com', PASSWORD), search = ''): Promise<Response> {
  return fetch(`${url}/${search}`, { method: 'POST', headers, body: query });
}

/** An error answered as ClickHouse answers it: status, code header, and a body clients parse. */
async function expectError(res: Response, status: number, code: number, pattern?: RegExp): Promise<void> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get('x-clickhouse-exception-code'), text).toBe(String(code));
  expect(text).toMatch(new RegExp(`^Code: ${code}\\. DB::Exception: .*\\. \\([A-Z_]+\\) \\(version cairn `));
  if (pattern) expect(text).toMatch(pattern);
}

beforeAll(async () => {
  api = await startTestApi();
  const { runtime } = api;
  orgId = runtime.config.orgId;
  const identity = new Identity(runtime.store, runtime.state, runtime.config);
  for (const r of [rule(orgId, 'SSH brute force', 'high', ['T1110']), rule(orgId, 'DNS tunnel', 'medium'), rule(orgId, 'Port scan', 'high')]) await saveLeadRule(runtime.store, r);
  await saveLeadRule(runtime.store, rule(OTHER_ORG, 'secret rule of another organization', 'high'));
  const alice = await createUser(identity.directory, { orgId, email: 'alice@example.com', name: 'Alice', roleId: builtinRole('viewer')!.id, password: PASSWORD });
  const bob = await createUser(identity.directory, { orgId: OTHER_ORG, email: 'bob@example.com', name: 'Bob', roleId: builtinRole('viewer')!.id, password: PASSWORD });
  otherOrgKey = (await createApiKey(runtime.store, { orgId: OTHER_ORG, userId: bob.id, name: 'bi', permissions: ['reports:read'], expiresAt: null })).token;
  noReportsKey = (await createApiKey(runtime.store, { orgId, userId: alice.id, name: 'no-reports', permissions: ['signals:read'], expiresAt: null })).token;
  const config = { ...runtime.config, reports: { ...runtime.config.reports, clickhouseHttp: { port: 0, host: '127.0.0.1', maxExecutionSeconds: 2, maxMemoryBytes: 300_000_000 } } };
  reporting = (await startClickHouseHttp({ store: runtime.store, identity, config, logger: testLogger }))!;
  url = `http://127.0.0.1:${reporting.port}`;
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await reporting?.close();
  await api?.close();
});

describe('the ClickHouse HTTP interface', () => {
  it('answers /ping and GET / as ClickHouse does', async () => {
    for (const path of ['/ping', '/']) {
      const res = await fetch(`${url}${path}`);
      expect(res.status).toBe(200);
      expect(await res.text()).toBe('Ok.\n');
    }
    expect(await client('alice@example.com', PASSWORD).ping()).toEqual({ success: true });
  });

  it('runs a query with parameters through the official client, for a user (email and password)', async () => {
    const result = await client('alice@example.com', PASSWORD).query({
      query: 'SELECT name, tags FROM v_lead_rules WHERE severity = {severity:String} AND name != {not:String} ORDER BY name',
      query_params: { severity: 'high', not: "it's \\ not\tthis" },
      format: 'JSONEachRow',
    });
    expect(await result.json()).toEqual([
      { name: 'Port scan', tags: [] },
      { name: 'SSH brute force', tags: ['T1110'] },
    ]);
    // Arrays and numbers as parameters, cast to the placeholder's type.
    const counted = await client('alice@example.com', PASSWORD).query({
      query: 'SELECT count() AS n FROM v_lead_rules WHERE has({names:Array(String)}, name) AND length(name) > {min:UInt8}',
      query_params: { names: ['DNS tunnel', "SSH brute force", 'nothing'], min: 3 },
      format: 'JSONEachRow',
    });
    expect(await counted.json()).toEqual([{ n: '2' }]);
  });

  it('streams JSONEachRow rows through the official client', async () => {
    const result = await client('alice@example.com', PASSWORD).query({ query: 'SELECT name, severity FROM v_lead_rules ORDER BY name', format: 'JSONEachRow' });
    const names: string[] = [];
    for await (const rows of result.stream<{ name: string; severity: string }>()) for (const row of rows) names.push(row.json().name);
    expect(names).toEqual(['DNS tunnel', 'Port scan', 'SSH brute force']);
    expect(result.response_headers['x-clickhouse-format']).toBe('JSONEachRow');
  });

  it('answers each format, named by a FORMAT clause or default_format, with its headers', async () => {
    const query = "SELECT name, severity FROM v_lead_rules WHERE severity = 'high' ORDER BY name";
    const expected: Record<string, string> = {
      JSONEachRow: '{"name":"Port scan","severity":"high"}\n{"name":"SSH brute force","severity":"high"}\n',
      JSONCompactEachRow: '["Port scan", "high"]\n["SSH brute force", "high"]\n',
      TabSeparated: 'Port scan\thigh\nSSH brute force\thigh\n',
      TabSeparatedWithNames: 'name\tseverity\nPort scan\thigh\nSSH brute force\thigh\n',
      CSVWithNames: '"name","severity"\n"Port scan","high"\n"SSH brute force","high"\n',
    };
    for (const [format, body] of Object.entries(expected)) {
      const res = await post(`${query} FORMAT ${format}`);
      expect(await res.text(), format).toBe(body);
      expect(res.headers.get('x-clickhouse-format')).toBe(format);
      expect(JSON.parse(res.headers.get('x-clickhouse-summary')!)).toMatchObject({ written_rows: '0' });
    }
    const json = (await (await post(query, undefined, '?default_format=JSON')).json()) as { meta: unknown; data: unknown; rows: number };
    expect(json).toMatchObject({ meta: [{ name: 'name', type: 'String' }, { name: 'severity', type: 'LowCardinality(String)' }], data: [{ name: 'Port scan', severity: 'high' }, { name: 'SSH brute force', severity: 'high' }], rows: 2 });
    const compact = (await (await post(`${query} FORMAT JSONCompact`)).json()) as { data: unknown };
    expect(compact.data).toEqual([['Port scan', 'high'], ['SSH brute force', 'high']]);
    // RowBinary: each String as its length (LEB128) and bytes.
    const binary = Buffer.from(await (await post(`${query} FORMAT RowBinary`)).arrayBuffer());
    const strings = (...values: string[]) => Buffer.concat(values.map((v) => Buffer.concat([Buffer.from([v.length]), Buffer.from(v)])));
    expect(binary).toEqual(strings('Port scan', 'high', 'SSH brute force', 'high'));
    // TabSeparated without a format; the query in the URL and the body appended to it, as ClickHouse reads them; GET too.
    const split = await post("WHERE severity = 'medium'", basic('alice@example.com', PASSWORD), `?query=${encodeURIComponent('SELECT name FROM v_lead_rules')}`);
    expect(await split.text()).toBe('DNS tunnel\n');
    const got = await fetch(`${url}/?query=${encodeURIComponent('SELECT count() FROM v_lead_rules')}&user=alice@example.com&password=${encodeURIComponent(PASSWORD)}`);
    expect(await got.text()).toBe('3\n');
  });

  it('takes an API key as the password, with any user name, and X-ClickHouse-User/-Key headers', async () => {
    const res = await post('SELECT name FROM v_lead_rules', { 'x-clickhouse-user': 'grafana', 'x-clickhouse-key': otherOrgKey });
    expect(await res.text()).toBe('secret rule of another organization\n');
    const rows = await (await client('anyone', otherOrgKey).query({ query: 'SELECT count() AS n FROM v_lead_rules', format: 'JSONEachRow' })).json();
    expect(rows).toEqual([{ n: '1' }]);
  });

  it('refuses wrong or missing credentials with 401 and code 516, and a caller without reports:read with 403', async () => {
    await expectError(await post('SELECT 1', basic('alice@example.com', 'wrong password!')), 401, 516, /Authentication failed/);
    await expectError(await post('SELECT 1', {}), 401, 516);
    await expectError(await post('SELECT 1', basic('nobody@example.com', PASSWORD)), 401, 516);
    await expectError(await post('SELECT 1', basic('x', 'cairn_0000000000000000000000000000000_notakey')), 401, 516);
    await expect(client('alice@example.com', 'wrong password!').query({ query: 'SELECT 1' })).rejects.toMatchObject({ code: '516', type: 'AUTHENTICATION_FAILED' });
    await expectError(await post('SELECT 1', basic('x', noReportsKey)), 403, 497, /reports:read/);
  });

  it('refuses every write, and the data stays as it was', async () => {
    for (const query of [
      "INSERT INTO lead_rules (id, name) VALUES (generateUUIDv4(), 'x')",
      'ALTER TABLE lead_rules DELETE WHERE 1',
      'DROP TABLE v_lead_rules',
      'CREATE TABLE x (a UInt8) ENGINE = Memory',
      "SELECT * FROM v_lead_rules INTO OUTFILE '/tmp/cairn-ch-http.csv'",
      'SET readonly = 0',
    ]) {
      await expectError(await post(query), 403, 164, /readonly/);
    }
    await expectError(await post('SELECT 1; DROP TABLE lead_rules'), 400, 62);
    await expect(client('alice@example.com', PASSWORD).command({ query: 'TRUNCATE TABLE lead_rules' })).rejects.toMatchObject({ code: '164' });
    expect(await (await post('SELECT count() FROM v_lead_rules')).text()).toBe('3\n');
  });

  it("shows only the caller's organization's rows of the read views, and no base table, table function or other database", async () => {
    // Another organization's rows are not there, however asked for.
    expect(await (await post(`SELECT count() FROM v_lead_rules WHERE org_id = '${OTHER_ORG}'`)).text()).toBe('0\n');
    expect(await (await post('SELECT DISTINCT org_id FROM cairn.v_lead_rules')).text()).toBe(`${orgId}\n`);
    expect(await (await post(`SELECT count() FROM v_lead_rules AS a JOIN v_lead_rules AS b ON a.id = b.id WHERE b.org_id = '${OTHER_ORG}'`)).text()).toBe('0\n');
    // Base tables, however reached: directly, qualified, in a subquery, a scalar subquery, IN, a table function.
    const reads = [
      'SELECT count() FROM lead_rules',
      'SELECT count() FROM cairn.lead_rules',
      'SELECT * FROM (SELECT name FROM lead_rules)',
      'SELECT (SELECT count() FROM artifacts)',
      'SELECT 1 WHERE 1 IN cairn.users',
      'SELECT count() FROM v_lead_rules WHERE id IN (SELECT id FROM api_keys)',
      "SELECT * FROM merge('cairn', '^lead')",
      "SELECT file('/etc/hostname')",
      'SELECT * FROM system.users',
      'SHOW TABLES',
      'EXPLAIN SELECT 1',
    ];
    for (const query of reads) await expectError(await post(query), 403, 497, /Not enough privileges/);
    // The engine refuses this table function in readonly mode before the scope check sees it.
    await expectError(await post("SELECT * FROM file('/etc/hostname', 'LineAsString')"), 403, 164);
    // A query's own settings cannot lift the organization filter or the limits, in a subquery either.
    await expectError(await post("SELECT * FROM (SELECT name FROM v_lead_rules SETTINGS additional_table_filters = {'cairn.v_lead_rules': '1'})"), 403, 164);
    await expectError(await post('SELECT count() FROM v_lead_rules SETTINGS max_execution_time = 100000'), 403, 164);
    // What BI tools look at to list tables: the views, nothing else.
    expect(await (await post("SELECT name FROM system.tables WHERE database = 'cairn' AND name LIKE '%lead%' ORDER BY name")).text()).toBe('v_lead_rules\nv_leads\n');
    expect(await (await post('SELECT DISTINCT table FROM system.columns WHERE table IN (\'lead_rules\', \'users\', \'v_leads\')')).text()).toBe('v_leads\n');
    expect(await (await post('SELECT name FROM system.databases')).text()).toBe('cairn\n');
    expect(await (await post('DESCRIBE TABLE v_leads FORMAT TSV')).text()).toMatch(/^id\tUUID/);
    await expectError(await post('DESCRIBE TABLE users'), 403, 497);
    await expectError(await post('SELECT 1', basic('alice@example.com', PASSWORD), '?database=system'), 404, 81);
  });

  it('stops a runaway query at its time limit, and a greedy one at its memory limit', async () => {
    const started = Date.now();
    await expectError(await post('SELECT count() FROM system.numbers'), 500, 159, /Timeout exceeded/);
    expect(Date.now() - started).toBeLessThan(10_000);
    await expectError(await post('SELECT length(groupArray(randomString(1000))) FROM (SELECT number FROM system.numbers LIMIT 10000000)'), 500, 241, /memory limit/i);
    // A client may ask for less time, never more.
    const asked = Date.now();
    await expectError(await post('SELECT count() FROM system.numbers', undefined, '?max_execution_time=1'), 500, 159);
    expect(Date.now() - asked).toBeLessThan(1900);
  });
});
