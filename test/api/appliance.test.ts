// The appliance endpoints (issue 14): health in one line, stats, and the
// runtime config applied without a restart, audited and announced.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../identity/permissions.js';
import { saveStored } from '../../ops/appliance/runtime-config.js';
import type { DeliveredMessage, Subscription } from '../../pipeline/bus/types.js';
import { systemEvents } from '../../topics/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually, uniqueName } from '../helpers/buses.js';

describe('appliance', () => {
  let api: TestApi;
  let token: string;
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const events: DeliveredMessage[] = [];
  let eventsSub: Subscription;

  beforeAll(async () => {
    // Only the store stage runs: artifacts.raw keeps a backlog for the analysis stage, which the ingest limit watches.
    api = await startTestApi({ stages: ['store'], env: { CAIRN_ORG_ID: orgId, CAIRN_HEARTBEAT_MS: '300' } });
    token = api.token('all', orgId);
    eventsSub = await api.runtime.bus.subscribe({ group: uniqueName('appliance-events'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void events.push(...b) });
  });
  afterAll(async () => {
    await eventsSub?.stop();
    await api?.close();
  });

  const ingest = (n: number) =>
    api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: Array.from({ length: n }, (_, i) => ({ source: 'auth', raw: `sshd[${i}]: Failed password for root from 10.3.3.${i % 250} port 22 ssh2` })) } });

  it('answers its health as {success, data: {status, role, uptime, version}} only', async () => {
    await eventually(async () => {
      const res = await api.request('GET', '/api/v1/appliance/health', { token });
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['data', 'success']);
      expect(res.body.data).toMatchObject({ status: 'healthy', role: 'standalone', uptime: expect.stringMatching(/^(\d+d )?(\d+h )?\d+m$/), version: expect.any(String) });
    }, 10_000);
  });

  it('counts what it holds and how it works', async () => {
    expect((await ingest(40)).status).toBe(202);
    await eventually(async () => {
      const stats = (await api.request('GET', '/api/v1/appliance/stats', { token })).body.data as {
        ingest: { accepted_total: number };
        totals: { artifacts: number; incidents_by_status: Record<string, number> };
        tables: { table: string; bytes_on_disk: number }[];
        lag: Record<string, number>;
        disk: { free_bytes: number; used_ratio: number };
      };
      expect(stats.totals.artifacts).toBe(40);
      expect(stats.ingest.accepted_total).toBeGreaterThanOrEqual(40);
      expect(stats.tables.find((t) => t.table === 'artifacts')!.bytes_on_disk).toBeGreaterThan(0);
      expect(stats.lag.analysis).toBeGreaterThanOrEqual(40);
      expect(stats.disk.free_bytes).toBeGreaterThan(0);
    }, 10_000);
  });

  it('applies a config change without a restart, records it in the audit log and raises system.config_changed', async () => {
    const before = (await api.request('GET', '/api/v1/appliance/config', { token })).body.data as { ingest_max_lag: number; stored: string[] };
    expect(before.ingest_max_lag).toBe(2_000_000);
    expect((await ingest(5)).status).toBe(202);

    const put = await api.request('PUT', '/api/v1/appliance/config', { token, body: { ingest_max_lag: 10, correlation_window: '2h' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body.data).toMatchObject({ ingest_max_lag: 10, correlation_window: '2h', stored: expect.arrayContaining(['ingest_max_lag', 'correlation_window']) });
    // The analysis backlog (45 and more) is now over the limit: ingest is turned away (once the gate's one-second lag reading renews).
    await eventually(async () => {
      const refused = await ingest(1);
      expect(refused.status).toBe(429);
      expect(refused.body.message).toMatch(/the limit is 10/);
    }, 5000, 250);
    expect(api.runtime.config.correlation.windowMs).toBe(7_200_000);

    const audit = await api.request('GET', '/api/v1/audit-log?target_type=appliance/config', { token });
    const entry = (audit.body.data as { entries: { action: string; before: { ingest_max_lag: number }; after: { ingest_max_lag: number } }[] }).entries[0]!;
    expect(entry).toMatchObject({ action: 'PUT /v1/appliance/config', before: { ingest_max_lag: 2_000_000 }, after: { ingest_max_lag: 10 } });
    await eventually(() =>
      expect(events.map((m) => JSON.parse(m.value.toString()) as { type: string; details: { fields: string[] } }).some((e) => e.type === 'system.config_changed' && e.details.fields.includes('ingest_max_lag'))).toBe(true),
    );

    // Written by another process (straight to the store): this one applies it on its next look.
    await saveStored(api.runtime.store, api.runtime.config, { ingest_max_lag: 1_000_000 }, 'another process');
    await eventually(async () => expect((await ingest(5)).status).toBe(202), 10_000, 100);

    expect((await api.request('PUT', '/api/v1/appliance/config', { token, body: { ingest_max_lag: null, correlation_window: null } })).status).toBe(200);
    expect(api.runtime.config.ingestMaxLag).toBe(2_000_000);
    expect(api.runtime.config.correlation.windowMs).toBe(3_600_000);
  });

  it('refuses bad settings with a message naming them', async () => {
    for (const [body, field] of [
      [{ internal_networks: '10.0.0.0/33' }, 'internal_networks'],
      [{ framework_scopes: 'pci' }, 'framework_scopes'],
      [{ correlation_window: 'an hour' }, 'correlation_window'],
      [{ artifact_retention_days: 0 }, 'artifact_retention_days'],
      [{ no_such_setting: 1 }, 'no_such_setting'],
      [{}, 'at least one'],
    ] as const) {
      const res = await api.request('PUT', '/api/v1/appliance/config', { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.text, JSON.stringify(body)).toContain(field);
    }
  });

  it('answers 401 without a token and 403 without the permission on the 4 appliance rows', async () => {
    const rows: [string, string, string, unknown?][] = [
      ['GET', '/api/v1/appliance/health', 'health:read'],
      ['GET', '/api/v1/appliance/stats', 'metrics:read'],
      ['GET', '/api/v1/appliance/config', 'settings:read'],
      ['PUT', '/api/v1/appliance/config', 'settings:manage', { rule_refresh_ms: 3000 }],
    ];
    for (const [method, path, permission, body] of rows) {
      expect((await api.request(method, path, { body })).status, `${method} ${path} without a token`).toBe(401);
      expect((await api.request(method, path, { token: api.token(PERMISSIONS.filter((p) => p !== permission), orgId), body })).status, `${method} ${path} without ${permission}`).toBe(403);
      expect((await api.request(method, path, { token: api.token([permission], orgId), body })).status, `${method} ${path} with ${permission}`).toBe(200);
    }
    expect(api.runtime.config.pipeline.ruleRefreshMs).toBe(3000);
  });
});
