// Operations through the API (issue 14): the Prometheus exposition passes
// promtool and counts what was ingested; services show up and down from
// their heartbeats and a stopped stage raises exactly one
// system.service_down; a lag rule fires under a backlog; history; the rows
// of SPEC 4.11 for health and metrics answer 401/403 and per contract.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startStages } from '../../cli/runtime.js';
import { PERMISSIONS } from '../../identity/permissions.js';
import type { DeliveredMessage, Subscription } from '../../pipeline/bus/types.js';
import { systemEvents } from '../../topics/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually, KAFKA_SESSION_TIMEOUT_MS, uniqueName } from '../helpers/buses.js';

const HEARTBEAT_MS = 300;

interface Container {
  name: string;
  kind: string;
  status: string;
  instances_up: number;
  lag: number | null;
}

describe.each([
  ['embedded', false],
  ['Kafka + Redis', true],
])('health and metrics (%s)', (_name, distributed) => {
  let api: TestApi;
  let token: string;
  let correlator: Subscription[] = [];
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const events: DeliveredMessage[] = [];
  let eventsSub: Subscription;

  beforeAll(async () => {
    // The store stage runs; the analysis stage does not, so artifacts.raw builds a backlog for it.
    api = await startTestApi({ distributed, stages: ['store'], env: { CAIRN_ORG_ID: orgId, CAIRN_HEARTBEAT_MS: String(HEARTBEAT_MS) } });
    token = api.token('all', orgId);
    correlator = await startStages(api.runtime, ['correlator']);
    eventsSub = await api.runtime.bus.subscribe({ group: uniqueName('health-events'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void events.push(...b) });
  });
  afterAll(async () => {
    await eventsSub?.stop();
    await Promise.all(correlator.map((s) => s.stop()));
    await api?.close();
  });

  const containers = async () => (await api.request('GET', '/api/v1/health/containers', { token })).body.data as { containers: Container[] };
  const byName = async (name: string) => (await containers()).containers.find((c) => c.name === name);
  const systemEventsOf = (type: string, subject: string) =>
    events.map((m) => JSON.parse(m.value.toString()) as { type: string; details: { subject?: string } }).filter((e) => e.type === type && e.details.subject === subject);

  it('answers the Prometheus exposition that promtool accepts, with the ingest counter growing by what was ingested', async () => {
    const scrape = async () => {
      const res = await fetch(`${api.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } });
      expect(res.headers.get('content-type')).toMatch(/text\/plain; version=0\.0\.4/);
      return res.text();
    };
    const accepted = (text: string) => Number(/^svc_ingest_artifacts_total\{outcome="accepted",instance="[^"]+"\} (\d+)/m.exec(text)?.[1] ?? 0);
    const before = accepted(await scrape());
    const artifacts = Array.from({ length: 25 }, (_, i) => ({ source: 'auth', raw: `sshd[${i}]: Failed password for root from 10.1.1.${i} port 22 ssh2` }));
    expect((await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts } })).status).toBe(202);
    await eventually(async () => {
      const text = await scrape();
      expect(accepted(text)).toBe(before + 25);
      for (const family of ['svc_http_requests_total', 'svc_store_insert_rows_total', 'svc_pipeline_messages_handled_total', 'svc_container_memory_bytes', 'svc_container_up', 'svc_appliance_uptime_seconds', 'svc_appliance_disk_free_bytes', 'svc_dependency_up', 'svc_pipeline_consumer_lag_messages']) {
        expect(text, family).toContain(`# TYPE ${family} `);
      }
    }, 10_000);
    const lint = spawnSync('promtool', ['check', 'metrics'], { input: await scrape(), encoding: 'utf8' });
    expect(lint.error, 'promtool (Debian package prometheus) must be installed').toBeUndefined();
    expect(`${lint.stdout}${lint.stderr}`.trim()).toBe('');
    expect(lint.status).toBe(0);
  });

  it('lists the API, the running stages and the dependencies as up, with one service\'s detail and history', async () => {
    await eventually(async () => {
      const list = await containers();
      const names = list.containers.map((c) => c.name);
      expect(names).toEqual(expect.arrayContaining(['api', 'store', 'correlator', distributed ? 'kafka' : 'bus-embedded', distributed ? 'redis' : 'state-embedded', 'clickhouse-embedded']));
      expect(list.containers.filter((c) => c.status !== 'up').map((c) => c.name)).toEqual([]);
    }, 10_000);
    const detail = await api.request('GET', '/api/v1/health/containers/store', { token });
    expect(detail.body.data).toMatchObject({ name: 'store', kind: 'stage', status: 'up', instances: [expect.objectContaining({ status: 'up', resource_source: expect.stringMatching(/cgroup|process/) })] });
    expect((await api.request('GET', '/api/v1/health/containers/no-such-service', { token })).status).toBe(404);
    await eventually(async () => {
      const history = await api.request('GET', '/api/v1/health/containers/api/history?step=1s', { token });
      expect(history.status).toBe(200);
      expect((history.body.data as { points: { up_ratio: number }[] }).points.length).toBeGreaterThan(0);
    }, 10_000);
    expect((await api.request('GET', '/api/v1/health/containers/api/history?step=1s&start=2026-01-01T00:00:00Z&end=2026-02-01T00:00:00Z', { token })).status).toBe(400);
  });

  it('shows a stopped stage down, raises exactly one system.service_down, and clears when it runs again', async () => {
    const rules = (await api.request('GET', '/api/v1/health/alerts', { token })).body.data as { rules: { id: string; name: string; builtin: boolean }[] };
    const down = rules.rules.find((r) => r.name === 'service down')!;
    expect(down.builtin).toBe(true);
    expect((await api.request('PUT', `/api/v1/health/alerts/${down.id}`, { token, body: { for_seconds: 1, service: 'correlator' } })).status).toBe(200);
    expect((await api.request('DELETE', `/api/v1/health/alerts/${down.id}`, { token })).status).toBe(409);

    await Promise.all(correlator.map((s) => s.stop()));
    const stoppedAt = Date.now();
    await eventually(async () => expect((await byName('correlator'))?.status).toBe('down'), 30_000, 100);
    expect(Date.now() - stoppedAt).toBeLessThan(30_000);
    // The evaluator's tick, then Kafka to this test's reader: seconds on a loaded machine.
    await eventually(() => expect(systemEventsOf('system.service_down', 'correlator').length).toBe(1), 30_000);
    const active = (await api.request('GET', '/api/v1/health/alerts', { token })).body.data as { alerts: { subject: string; state: string; event_type: string }[] };
    expect(active.alerts).toEqual(expect.arrayContaining([expect.objectContaining({ subject: 'correlator', state: 'firing', event_type: 'system.service_down' })]));
    // Still down a while later: still one event.
    await new Promise((r) => setTimeout(r, HEARTBEAT_MS * 4));
    expect(systemEventsOf('system.service_down', 'correlator').length).toBe(1);

    correlator = await startStages(api.runtime, ['correlator']);
    await eventually(async () => expect((await byName('correlator'))?.status).toBe('up'), 10_000);
    await eventually(async () => {
      const after = (await api.request('GET', '/api/v1/health/alerts', { token })).body.data as { alerts: { subject: string }[] };
      expect(after.alerts.filter((a) => a.subject === 'correlator')).toEqual([]);
    }, 10_000);
  });

  it('fires a lag rule under a backlog and lists it among the active alerts', async () => {
    const created = await api.request('POST', '/api/v1/health/alerts', {
      token,
      body: { name: 'analysis behind', metric: 'consumer_lag', comparison: '>', threshold: 10, for_seconds: '1s', severity: 'warning', service: 'analysis' },
    });
    expect(created.status, created.text).toBe(201);
    const ruleId = (created.body.data as { id: string }).id;
    const artifacts = Array.from({ length: 30 }, (_, i) => ({ source: 'auth', raw: `sshd[${i}]: Accepted password for u${i} from 10.2.2.${i} port 22 ssh2` }));
    await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts } });
    await eventually(async () => {
      const { alerts } = (await api.request('GET', '/api/v1/health/alerts', { token })).body.data as { alerts: { rule_id: string; state: string; value: number }[] };
      expect(alerts.find((a) => a.rule_id === ruleId)).toMatchObject({ state: 'firing' });
    }, 15_000);
    await eventually(() => expect(systemEventsOf('system.capacity_warning', 'analysis').length).toBe(1), 10_000);
    const bad = await api.request('POST', '/api/v1/health/alerts', { token, body: { name: 'x', metric: 'temperature', comparison: '>', threshold: 1 } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/metric must be one of/);
    expect((await api.request('DELETE', `/api/v1/health/alerts/${ruleId}`, { token })).status).toBe(200);
  });

  it('answers 401 without a token and 403 without the permission on the health and metrics rows', async () => {
    const rows: [string, string, string, unknown?][] = [
      ['GET', '/api/v1/health/containers', 'health:read'],
      ['GET', '/api/v1/health/containers/api', 'health:read'],
      ['GET', '/api/v1/health/containers/api/history', 'health:read'],
      ['GET', '/api/v1/health/alerts', 'health:read'],
      ['POST', '/api/v1/health/alerts', 'health:manage', { name: 'cpu', metric: 'cpu_ratio', comparison: '>', threshold: 8 }],
      ['PUT', `/api/v1/health/alerts/${randomUUID()}`, 'health:manage', { threshold: 9 }],
      ['DELETE', `/api/v1/health/alerts/${randomUUID()}`, 'health:manage'],
      ['GET', '/api/v1/metrics', 'metrics:read'],
    ];
    for (const [method, path, permission, body] of rows) {
      expect((await api.request(method, path, { body })).status, `${method} ${path} without a token`).toBe(401);
      expect((await api.request(method, path, { token: api.token(PERMISSIONS.filter((p) => p !== permission), orgId), body })).status, `${method} ${path} without ${permission}`).toBe(403);
      const allowed = await api.request(method, path, { token: api.token([permission], orgId), body });
      const expected = method === 'POST' ? 201 : method === 'GET' ? 200 : 404;
      expect(allowed.status, `${method} ${path}: ${allowed.text.slice(0, 200)}`).toBe(expected);
    }
  });
});

describe('a killed worker process (Kafka + Redis)', () => {
  let api: TestApi;
  let token: string;
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const workers: ChildProcess[] = [];
  const events: DeliveredMessage[] = [];
  let eventsSub: Subscription;

  /** `cairn worker correlator` as its own process, on the test API's Kafka topics and Redis keys (and its own embedded store). */
  function startWorker(): ChildProcess {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, '..', '..', 'bin', 'cairn.mjs'), 'worker', 'correlator'], {
      env: {
        ...process.env,
        CAIRN_DATA_DIR: fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-worker-')),
        CAIRN_KAFKA_BROKERS: inject('kafkaBrokers'),
        CAIRN_KAFKA_TOPIC_PREFIX: `test-${path.basename(api.dataDir)}.`,
        CAIRN_REDIS_URL: inject('redisUrl'),
        CAIRN_ORG_ID: orgId,
        CAIRN_HEARTBEAT_MS: String(HEARTBEAT_MS),
        // The new worker gets the partitions once the broker gives up on the killed one.
        CAIRN_KAFKA_SESSION_TIMEOUT_MS: String(KAFKA_SESSION_TIMEOUT_MS),
        CAIRN_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    workers.push(child);
    return child;
  }

  beforeAll(async () => {
    api = await startTestApi({ distributed: true, stages: ['store'], env: { CAIRN_ORG_ID: orgId, CAIRN_HEARTBEAT_MS: String(HEARTBEAT_MS) } });
    token = api.token('all', orgId);
    eventsSub = await api.runtime.bus.subscribe({ group: uniqueName('worker-events'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void events.push(...b) });
  });
  afterAll(async () => {
    for (const child of workers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await eventsSub?.stop();
    await api?.close();
  });

  const correlator = async () =>
    ((await api.request('GET', '/api/v1/health/containers/correlator', { token })).body.data ?? null) as { status: string; instances: { pid: number; status: string }[] } | null;

  it('shows the stage down within 30 s of a SIGKILL, raises one system.service_down, and up again with a new worker', async () => {
    const first = startWorker();
    await eventually(async () => expect((await correlator())?.instances.find((i) => i.pid === first.pid)?.status).toBe('up'), 60_000, 200);
    const rules = (await api.request('GET', '/api/v1/health/alerts', { token })).body.data as { rules: { id: string; name: string }[] };
    const down = rules.rules.find((r) => r.name === 'service down')!;
    await api.request('PUT', `/api/v1/health/alerts/${down.id}`, { token, body: { for_seconds: 1, service: 'correlator' } });

    first.kill('SIGKILL');
    const killedAt = Date.now();
    await eventually(async () => expect((await correlator())?.status).toBe('down'), 30_000, 100);
    expect(Date.now() - killedAt).toBeLessThan(30_000);
    const downEvents = () => events.map((m) => JSON.parse(m.value.toString()) as { type: string; details: { subject?: string } }).filter((e) => e.type === 'system.service_down' && e.details.subject === 'correlator');
    await eventually(() => expect(downEvents().length).toBe(1), 15_000);

    const second = startWorker();
    await eventually(async () => expect((await correlator())?.status).toBe('up'), 60_000, 200);
    expect((await correlator())!.instances.find((i) => i.pid === second.pid)?.status).toBe('up');
    await eventually(async () => {
      const { alerts } = (await api.request('GET', '/api/v1/health/alerts', { token })).body.data as { alerts: { subject: string }[] };
      expect(alerts.filter((a) => a.subject === 'correlator')).toEqual([]);
    }, 10_000);
    expect(downEvents().length).toBe(1);
  });
});
