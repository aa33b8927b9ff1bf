// Two cairn processes (issue 17, "must show"): A runs `cairn start` as a
// process of its own (embedded) and publishes the addresses of an incident
// it classified true positive; B runs on Kafka and Redis, subscribes to A's
// TAXII 2.1 collection with an API key made at A, and syncs. A second true
// positive at A reaches B on the next sync alone (incremental by added_after,
// asserted by count), its reclassification as a false positive reaches B as a
// revoked object that removes it, and an event at B naming A's first address
// becomes an `intel` observation and an incident at B.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, TEST_JWT_SECRET, TEST_MASTER_KEY, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { finishedJob, syncNow } from '../helpers/feeds.js';
import { drained, FUSED_STAGES } from '../helpers/pipeline.js';
import { freePort, stopProcess } from '../services/process.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/cairn.mjs');
const ADMIN = { email: 'admin@a.example', password: 'a-long-admin-password-1' };

describe('a cairn subscribing to another over TAXII 2.1', () => {
  let a: ChildProcess;
  let aUrl: string;
  let aDir: string;
  let aOutput = '';
  let b: TestApi;

  beforeAll(async () => {
    aDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-intel-a-'));
    const port = await freePort();
    aUrl = `http://127.0.0.1:${port}`;
    a = spawn(process.execPath, [BIN, 'start'], {
      env: {
        ...process.env,
        CAIRN_DATA_DIR: aDir,
        PORT: String(port),
        HOST: '127.0.0.1',
        CAIRN_JWT_SECRET: TEST_JWT_SECRET,
        CAIRN_MASTER_KEY: TEST_MASTER_KEY,
        CAIRN_ADMIN_EMAIL: ADMIN.email,
        CAIRN_ADMIN_PASSWORD: ADMIN.password,
        CAIRN_PASSWORD_KDF_COST: '10',
        CAIRN_PUBLIC_URL: aUrl,
        CAIRN_PIPELINE_WORKERS: '0',
        CAIRN_REPORT_SNAPSHOTS: '',
        CAIRN_LOG_LEVEL: 'warn',
        // Only the test's own brute-force rule makes incidents at A.
        CAIRN_DEFAULT_RULES: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    a.stdout!.on('data', (d: Buffer) => (aOutput += d.toString()));
    a.stderr!.on('data', (d: Buffer) => (aOutput += d.toString()));
    await Promise.all([
      eventually(async () => {
        if (a.exitCode !== null) throw new Error(`cairn A exited:\n${aOutput}`);
        expect((await fetch(`${aUrl}/healthz`)).status).toBe(200);
      }, 90_000, 200),
      startTestApi({ distributed: true, stages: FUSED_STAGES, env: { CAIRN_OUTBOUND_ALLOW: '127.0.0.1' } }).then((api) => (b = api)),
    ]);
  });

  afterAll(async () => {
    await b?.close();
    if (a) await stopProcess(a, 30_000);
    fs.rmSync(aDir, { recursive: true, force: true });
  });

  async function atA(method: string, route: string, token: string, body?: unknown): Promise<{ status: number; data: Record<string, unknown> }> {
    const res = await fetch(`${aUrl}${route}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = (await res.json()) as { data: Record<string, unknown> };
    return { status: res.status, data: json.data };
  }

  /** Failed logins from `address` at A until the lead rule fires, then the incident classified true positive (Resolved). */
  async function truePositiveAtA(token: string, address: string): Promise<string> {
    const stamp = new Date().toISOString();
    const artifacts = [1, 2, 3].map((i) => ({ source: 'auth', timestamp: stamp, raw: JSON.stringify({ timestamp: stamp, user: 'root', src_ip: address, event: 'login', result: 'failure', host: `web0${i}` }) }));
    expect((await atA('POST', '/api/v1/artifacts', token, { artifacts })).status).toBe(202);
    const incident = await eventually(async () => {
      const { data } = await atA('GET', '/api/v1/incidents?status=1&limit=100', token);
      const found = (data.incidents as { id: string; title: string }[]).find((i) => i.title.includes(address));
      expect(found).toBeDefined();
      return found!;
    }, 30_000, 200);
    expect((await atA('PUT', `/api/v1/incidents/${incident.id}/status`, token, { status: 3 })).status).toBe(200);
    return incident.id;
  }

  it('publishes a true positive at A, syncs it at B with an API key, syncs again incrementally, and matches at B', async () => {
    const login = await fetch(`${aUrl}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(ADMIN) });
    expect(login.status).toBe(200);
    const adminToken = ((await login.json()) as { data: { token: string } }).data.token;
    const rule = await atA('POST', '/api/v1/lead-rules', adminToken, { name: 'Brute force', severity: 'high', conditions: { source: 'auth', pattern: 'event.outcome:failure', threshold: 3, window: '1h', group_by: 'source.ip' } });
    expect(rule.status).toBe(201);
    await truePositiveAtA(adminToken, '203.0.113.77');
    const publication = await atA('POST', '/api/v1/threatfeed/publications', adminToken, { name: 'cairn A true positives', include_true_positives: true });
    expect(publication.status).toBe(201);
    expect(publication.data.object_count).toBe(1);
    const key = await atA('POST', '/api/v1/api-keys', adminToken, { name: 'cairn B', permissions: ['threatfeed:read'] });
    expect(key.status).toBe(201);

    const token = b.token('all');
    const res = await b.request('POST', '/api/v1/threatfeed/subscriptions', {
      token,
      body: { name: 'cairn A', kind: 'taxii', url: `${aUrl}/taxii2/`, settings: { collection_id: publication.data.id, auth_type: 'bearer', token: key.data.token } },
    });
    expect(res.status, res.text).toBe(201);
    const subscription = res.body.data as { id: string };
    // The first sync reads the whole collection: cairn A's identity and the address.
    const first = await finishedJob(b, token, subscription.id);
    expect(first).toMatchObject({ status: 'succeeded', fetched: 2, added: 1, error: null });
    expect(first.cursor).not.toBe('');

    const secondIncident = await truePositiveAtA(adminToken, '203.0.113.78');
    const second = await syncNow(b, token, subscription.id);
    expect(second).toMatchObject({ status: 'succeeded', fetched: 1, added: 1 });
    const library = await b.request('GET', '/api/v1/threatfeed/library', { token });
    expect((library.body.data as { indicators: { value: string; feeds: { name: string }[] }[] }).indicators.map((i) => [i.value, i.feeds[0]!.name]).sort()).toEqual([
      ['203.0.113.77', 'cairn A'],
      ['203.0.113.78', 'cairn A'],
    ]);

    // A reclassifies the second incident a false positive: its address is published again as revoked, and B removes it.
    expect((await atA('PUT', `/api/v1/incidents/${secondIncident}/status`, adminToken, { status: 4 })).status).toBe(200);
    expect(await syncNow(b, token, subscription.id)).toMatchObject({ status: 'succeeded', fetched: 1, added: 0, removed: 1 });
    const after = await b.request('GET', '/api/v1/threatfeed/library', { token });
    expect((after.body.data as { indicators: { value: string }[] }).indicators.map((i) => i.value)).toEqual(['203.0.113.77']);

    const stamp = new Date().toISOString();
    const ingest = await b.request('POST', '/api/v1/artifacts', { token, body: { artifacts: [{ source: 'app', timestamp: stamp, raw: JSON.stringify({ '@timestamp': stamp, source: { ip: '203.0.113.77' }, destination: { ip: '10.2.0.4', port: 443 } }) }] } });
    expect(ingest.status).toBe(202);
    await drained(b);
    const observation = await eventually(async () => {
      const found = await b.request('GET', '/api/v1/observations?type=intel', { token });
      const [one] = (found.body.data as { observations: { description: string; artifact_ids: string[] }[] }).observations;
      expect(one).toBeDefined();
      return one!;
    });
    expect(observation.description).toMatch(/^Threat intel match: ipv4-addr 203\.0\.113\.77 from "cairn A" \(confidence 80/);
    expect(observation.artifact_ids).toEqual((ingest.body.data as { ids: string[] }).ids);
    await eventually(async () => {
      const incidents = await b.request('GET', '/api/v1/incidents', { token });
      expect((incidents.body.data as { incidents: { title: string; severity: string }[] }).incidents).toEqual([expect.objectContaining({ title: expect.stringMatching(/^Threat intel ipv4-addr 203\.0\.113\.77/), severity: 'high' })]);
    });
  });
});
