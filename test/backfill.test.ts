// Lead-rule backfills (docs/backfill.md), through the API on both buses: a
// rule created after its events were ingested, run over them, raises what
// the same rule raised live (threshold, count_distinct, sequence, ordered
// sequence, first_seen, suppressed and single-event rules), marked as a
// backfill's; a second run raises nothing
// new; permissions and conflicts; a job interrupted by a restart resumes from
// its cursor to the same result; `cairn rules backfill` shows its progress.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { saveBackfillJob, type BackfillJob } from '../clickhouse/tables/lead-rule-backfills.js';
import { getLeadRule } from '../clickhouse/tables/lead-rules.js';
import { runBackfill } from '../pipeline/leads/backfill.js';
import { newBackfillJob } from '../pipeline/leads/backfill-jobs.js';
import { startTestApi, TEST_JWT_SECRET, type TestApi } from './helpers/api.js';
import { BUS_KINDS, eventually } from './helpers/buses.js';
import { drained, FUSED_STAGES, get, ingestLines, orgOf } from './helpers/pipeline.js';
import { freePort, stopProcess } from './services/process.js';

const FIXTURE = path.join(import.meta.dirname, 'fixtures', 'beats', 'secure-rhel7.log');
const LINES = fs.readFileSync(FIXTURE, 'utf8').split('\n').filter((l) => l.trim());
/** Before any event of the fixture (its lines carry no year: they fall in the last twelve months). */
const LONG_AGO = '2000-01-01T00:00:00.000Z';

/** One rule of each kind the rule stage evaluates. */
const RULES = [
  { name: 'brute force', severity: 'high', conditions: { pattern: '"Failed password"', source: 'auth', threshold: 5, window: '5m', group_by: 'source.ip' } },
  { name: 'many ports', severity: 'medium', conditions: { pattern: '"Failed password"', threshold: 3, window: '10m', group_by: 'source.ip', count_distinct: 'source.port' } },
  { name: 'guess then in', severity: 'critical', conditions: { pattern: '"Failed password" OR Accepted', window: '1h', group_by: 'host.hostname', sequence: ['"Failed password"', 'Accepted'] } },
  { name: 'accepted', severity: 'low', conditions: { pattern: 'Accepted' } },
  // The conditions of the rule engine's own kinds (pipeline/leads/ordered.ts, first-seen.ts, suppress.ts).
  { name: 'guessed in order', severity: 'high', conditions: { pattern: '"Failed password" OR Accepted', window: '10m', group_by: 'host.hostname', sequence: ['"Failed password"', 'Accepted'], ordered: true } },
  { name: 'new address for account', severity: 'medium', conditions: { pattern: '"Failed password"', first_seen: { field: 'source.ip', days: 30 }, group_by: 'user.name' } },
  { name: 'brute force, hourly', severity: 'high', conditions: { pattern: '"Failed password"', threshold: 5, window: '5m', group_by: 'source.ip', suppress: '1h' } },
  // An allow-list (docs/noise-control.md): the busiest attacker's network and the private ranges never match.
  { name: 'brute force, allowed', severity: 'high', conditions: { pattern: '"Failed password" NOT source.ip:(202.109.143.0/24 OR 10.0.0.0/8 OR 192.168.0.0/16)', threshold: 5, window: '5m', group_by: 'source.ip' } },
];

interface Observation {
  id: string;
  type: string;
  description: string;
  severity: string;
  node_ids: string[];
  artifact_ids: string[];
  rule_id: string | null;
  tags: string[];
  created_by: string;
  created_at: string;
}

type Job = Omit<BackfillJob, 'cursor' | 'org_id'> & { progress: number; evaluated_to: string | null };

async function createRule(api: TestApi, token: string, rule: (typeof RULES)[number]): Promise<string> {
  const res = await api.request('POST', '/api/v1/lead-rules', { token, body: rule });
  expect(res.status, res.text).toBe(201);
  return (res.body.data as { id: string }).id;
}

async function observationsOf(api: TestApi, token: string, ruleId: string): Promise<Observation[]> {
  const { observations } = await get<{ observations: Observation[] }>(api, token, '/api/v1/observations?limit=1000');
  return observations.filter((o) => o.rule_id === ruleId);
}

/** What an observation says, without what names its rule or its maker: equal for the same firing of two equal rules. */
function firingOf(o: Observation) {
  return { type: o.type, severity: o.severity, description: o.description, created_at: o.created_at, artifact_ids: [...o.artifact_ids].sort(), node_ids: [...o.node_ids].sort() };
}

function firings(observations: Observation[]) {
  return observations.map(firingOf).sort((a, b) => (a.description < b.description ? -1 : a.description > b.description ? 1 : 0));
}

async function backfill(api: TestApi, token: string, ruleId: string, body: Record<string, unknown> = { start: LONG_AGO }): Promise<Job> {
  const res = await api.request('POST', `/api/v1/lead-rules/${ruleId}/backfill`, { token, body });
  expect(res.status, res.text).toBe(202);
  const queued = res.body.data as Job;
  expect(queued).toMatchObject({ rule_id: ruleId, status: 'queued', trigger: 'manual', events_total: null, progress: 0 });
  return eventually(
    async () => {
      const job = await get<Job>(api, token, `/api/v1/lead-rules/${ruleId}/backfill/${queued.id}`);
      expect(job.status, job.error).toBe('succeeded');
      return job;
    },
    60_000,
    100,
  );
}

async function leadCount(api: TestApi, orgId: string, ruleId: string): Promise<number> {
  const result = await api.runtime.store.query({ query: 'SELECT count() AS n FROM leads FINAL WHERE org_id = {orgId:String} AND rule_id = {ruleId:UUID}', query_params: { orgId, ruleId }, format: 'JSONEachRow' });
  return Number((await result.json<{ n: string }>())[0]!.n);
}

describe.each(BUS_KINDS)('lead-rule backfill on the %s bus', (kind) => {
  let api: TestApi;
  let token = '';
  /** Each rule created before the ingest (live) and after it (late), by rule name. */
  const live = new Map<string, string>();
  const late = new Map<string, string>();

  beforeAll(async () => {
    // One partition: the live run sees the lines in the order of the file, which is their order in event time. Over several, rules
    // that decide by arrival (ordered context, first_seen, suppress) raise what arrived first, and a backfill raises what came first.
    const env = { CAIRN_BACKFILL_PAGE_SIZE: '100', CAIRN_RULES_BACKFILL_DAYS: '3650', CAIRN_KAFKA_PARTITIONS: '1' };
    api = await startTestApi({ distributed: kind === 'kafka', stages: FUSED_STAGES, env });
    token = api.token();
    for (const rule of RULES) live.set(rule.name, await createRule(api, token, rule));
    await ingestLines(api, token, LINES);
    await drained(api);
    for (const rule of RULES) late.set(rule.name, await createRule(api, token, rule));
  }, 180_000);
  afterAll(async () => {
    await api?.close();
  });

  it('raises, over the stored events, what the same rule raised live: every kind of rule, dated by event time, marked backfill', async () => {
    for (const rule of RULES) {
      const liveObservations = await eventually(async () => {
        const found = await observationsOf(api, token, live.get(rule.name)!);
        expect(found.length, rule.name).toBeGreaterThan(0);
        return found;
      });
      const lateId = late.get(rule.name)!;
      expect(await observationsOf(api, token, lateId)).toEqual([]);
      const job = await backfill(api, token, lateId);
      const raised = await observationsOf(api, token, lateId);
      expect(firings(raised), rule.name).toEqual(firings(liveObservations));
      for (const o of raised) {
        expect(o.tags).toContain('backfill');
        expect(o.created_by).toBe(`backfill:${job.id}`);
      }
      expect(job).toMatchObject({ raised: liveObservations.length, already_raised: 0, progress: 1 });
      expect(job.events_done).toBe(job.events_total);
      expect(job.matched).toBeGreaterThan(0);
      expect(job.matched).toBeLessThanOrEqual(job.events_done);
      expect(Date.parse(job.evaluated_to!)).toBeGreaterThan(Date.parse(LONG_AGO));
      // Each firing is a lead too, and the correlator places it in an incident.
      const orgId = orgOf(token);
      expect(await leadCount(api, orgId, lateId)).toBe(raised.length);
      await eventually(async () => {
        const result = await api.runtime.store.query({
          query: 'SELECT count() AS n FROM incident_leads FINAL WHERE org_id = {orgId:String} AND lead_id IN {ids:Array(UUID)}',
          query_params: { orgId, ids: raised.map((o) => o.id) },
          format: 'JSONEachRow',
        });
        expect(Number((await result.json<{ n: string }>())[0]!.n), rule.name).toBe(raised.length);
      }, 30_000, 100);
    }
  });

  it('keeps an allow-list\'s addresses out, live and over history', async () => {
    const everyone = await observationsOf(api, token, live.get('brute force')!);
    expect(everyone.some((o) => o.description.includes('202.109.143.106'))).toBe(true);
    for (const id of [live.get('brute force, allowed')!, late.get('brute force, allowed')!]) {
      const allowed = await observationsOf(api, token, id);
      expect(allowed.length).toBeGreaterThan(0);
      expect(allowed.filter((o) => o.description.includes('202.109.143.'))).toEqual([]);
      expect(allowed.length).toBe(everyone.filter((o) => !o.description.includes('202.109.143.106')).length);
    }
  });

  it('raises nothing new when run again, nor for what the rule raised at ingest', async () => {
    const orgId = orgOf(token);
    const total = async () => (await get<{ total: number }>(api, token, '/api/v1/observations?limit=1')).total;
    for (const rule of RULES) {
      const lateId = late.get(rule.name)!;
      const before = { total: await total(), leads: await leadCount(api, orgId, lateId), mine: firings(await observationsOf(api, token, lateId)) };
      expect(before.mine.length).toBeGreaterThan(0);
      const again = await backfill(api, token, lateId);
      expect(again).toMatchObject({ raised: 0, already_raised: before.mine.length });
      expect(firings(await observationsOf(api, token, lateId))).toEqual(before.mine);
      expect(await total()).toBe(before.total);
      expect(await leadCount(api, orgId, lateId)).toBe(before.leads);

      const liveId = live.get(rule.name)!;
      const atIngest = await observationsOf(api, token, liveId);
      const overLive = await backfill(api, token, liveId);
      expect(overLive).toMatchObject({ raised: 0, already_raised: atIngest.length });
      const after = await observationsOf(api, token, liveId);
      expect(after.map((o) => o.created_by)).toEqual(atIngest.map(() => `rule:${liveId}`));
      expect(await total()).toBe(before.total);
    }
    const { jobs, total: jobCount } = await get<{ jobs: Job[]; total: number }>(api, token, `/api/v1/lead-rules/${late.get('brute force')}/backfill`);
    expect(jobCount).toBe(2);
    expect(jobs.map((j) => j.raised)).toEqual([0, jobs[1]!.raised]); // newest first
  });

  it('evaluates only the range asked for, in event time', async () => {
    const id = await createRule(api, token, { ...RULES[0]!, name: 'brute force, ranged' });
    const all = await observationsOf(api, token, live.get('brute force')!);
    const windowOf = (o: Observation) => Date.parse(/window from (\S+) /.exec(o.description)![1]!);
    const windows = [...new Set(all.map(windowOf))].sort((a, b) => a - b);
    expect(windows.length).toBeGreaterThan(2);
    // From the start of a window: the windows before it hold no event of the range.
    const start = new Date(windows[Math.floor(windows.length / 2)]!).toISOString();
    const job = await backfill(api, token, id, { start });
    expect(job.start).toBe(start);
    const raised = await observationsOf(api, token, id);
    expect(raised.length).toBe(job.raised);
    const inRange = all.filter((o) => windowOf(o) >= Date.parse(start));
    expect(inRange.length).toBeLessThan(all.length);
    expect(raised.map(windowOf).sort()).toEqual(inRange.map(windowOf).sort());
  });

  it('remembers, from before the range, what the rule would have remembered: a value seen earlier is not new in it', async () => {
    const id = await createRule(api, token, { ...RULES.find((r) => r.name === 'new address for account')!, name: 'new address, ranged' });
    const all = await observationsOf(api, token, live.get('new address for account')!);
    const times = all.map((o) => Date.parse(o.created_at)).sort((a, b) => a - b);
    expect(times.length).toBeGreaterThanOrEqual(3);
    // After the second address was first seen: the first two keep failing in the range, but were seen before it.
    const start = new Date(times[1]! + 1).toISOString();
    const job = await backfill(api, token, id, { start });
    const raised = await observationsOf(api, token, id);
    expect(job.matched).toBeGreaterThan(raised.length);
    expect(raised.map((o) => o.created_at).sort()).toEqual(all.filter((o) => Date.parse(o.created_at) >= Date.parse(start)).map((o) => o.created_at).sort());
  });

  it('backfills the rules an import enables over the last days when asked (backfill_days), not the others', async () => {
    const sigma = (id: string, title: string) =>
      `title: ${title}\nid: ${id}\nstatus: test\nlogsource:\n  product: linux\n  service: sshd\ndetection:\n  keywords:\n    - 'Accepted publickey'\n  condition: keywords\nlevel: low\n`;
    const rules = [sigma('6a1b2c3d-0000-4000-8000-00000000a001', 'Key login'), sigma('6a1b2c3d-0000-4000-8000-00000000a002', 'Key login, disabled')].join('---\n');
    const first = await api.request('POST', '/api/v1/lead-rules/import', { token, body: { rules: rules.split('---\n')[1], enabled: false, backfill_days: 400 } });
    expect(first.status, first.text).toBe(200);
    expect((first.body.data as { results: { backfill_job_id: string | null }[] }).results).toEqual([expect.objectContaining({ backfill_job_id: null })]);

    const res = await api.request('POST', '/api/v1/lead-rules/import', { token, body: { rules: rules.split('---\n')[0], backfill_days: 400 } });
    expect(res.status, res.text).toBe(200);
    const [result] = (res.body.data as { results: { rule_id: string; backfill_job_id: string | null }[] }).results;
    expect(result!.backfill_job_id).toMatch(/^[0-9a-f-]{36}$/);
    const job = await eventually(async () => {
      const j = await get<Job>(api, token, `/api/v1/lead-rules/${result!.rule_id}/backfill/${result!.backfill_job_id}`);
      expect(j.status, j.error).toBe('succeeded');
      return j;
    }, 60_000, 100);
    const accepted = LINES.filter((l) => l.includes('Accepted publickey')).length;
    expect(job).toMatchObject({ trigger: 'enable', raised: accepted, matched: accepted });
    expect(Date.parse(job.end) - Date.parse(job.start)).toBe(400 * 86_400_000);
    // Imported again: already enabled, so nothing is queued.
    const again = await api.request('POST', '/api/v1/lead-rules/import', { token, body: { rules: rules.split('---\n')[0], backfill_days: 400 } });
    expect((again.body.data as { results: { backfill_job_id: string | null }[] }).results[0]!.backfill_job_id).toBeNull();

    // The disabled one switched on later backfills the CAIRN_RULES_BACKFILL_DAYS the server is set to; a rule written by hand does not.
    const disabledId = (first.body.data as { results: { rule_id: string }[] }).results[0]!.rule_id;
    const enabled = await api.request('PUT', `/api/v1/lead-rules/${disabledId}`, { token, body: { enabled: true } });
    expect(enabled.body.message).toMatch(/^Lead rule updated; backfill job [0-9a-f-]{36} queued$/);
    const [onEnable] = (await get<{ jobs: Job[] }>(api, token, `/api/v1/lead-rules/${disabledId}/backfill`)).jobs;
    expect(onEnable).toMatchObject({ trigger: 'enable' });
    expect(Date.parse(onEnable!.end) - Date.parse(onEnable!.start)).toBe(3650 * 86_400_000);
    const byHand = await createRule(api, token, { name: 'by hand', severity: 'low', conditions: { pattern: 'Accepted' } });
    await api.request('PUT', `/api/v1/lead-rules/${byHand}`, { token, body: { enabled: false } });
    expect((await api.request('PUT', `/api/v1/lead-rules/${byHand}`, { token, body: { enabled: true } })).body.message).toBe('Lead rule updated');
    await eventually(async () => expect((await get<Job>(api, token, `/api/v1/lead-rules/${disabledId}/backfill/${onEnable!.id}`)).status).toBe('succeeded'), 60_000, 100);
  });

  it('refuses callers without signals:manage, other organizations and bad ranges; answers 409 while the rule has a backfill unfinished', async () => {
    const id = late.get('accepted')!;
    const reader = api.token(['signals:read'], orgOf(token));
    expect((await api.request('POST', `/api/v1/lead-rules/${id}/backfill`, { token: reader, body: { start: LONG_AGO } })).status).toBe(403);
    expect((await api.request('GET', `/api/v1/lead-rules/${id}/backfill`, { token: reader })).status).toBe(200);
    expect((await api.request('POST', `/api/v1/lead-rules/${id}/backfill`, { body: { start: LONG_AGO } })).status).toBe(401);
    expect((await api.request('GET', `/api/v1/lead-rules/${id}/backfill`, { token: api.token(['signals:read']) })).status).toBe(404);
    expect((await api.request('POST', `/api/v1/lead-rules/${id}/backfill`, { token: api.token(), body: { start: LONG_AGO } })).status).toBe(404);
    const bad = await api.request('POST', `/api/v1/lead-rules/${id}/backfill`, { token, body: { start: '2030-01-02T00:00:00Z', end: '2030-01-01T00:00:00Z' } });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/start must be before end/);
    expect((await api.request('POST', `/api/v1/lead-rules/${id}/backfill`, { token, body: {} })).status).toBe(400);
    expect((await api.request('GET', `/api/v1/lead-rules/${id}/backfill/${id}`, { token })).status).toBe(404);

    // A job some process holds (its lease taken) and has not finished.
    const rule = (await getLeadRule(api.runtime.store, orgOf(token), id))!;
    const held = { ...newBackfillJob(rule, { start: LONG_AGO, end: new Date().toISOString(), trigger: 'manual', requestedBy: 'test' }), status: 'running' as const };
    await api.runtime.state.set(`backfill:lease:${held.id}`, 'another process', 60_000);
    await saveBackfillJob(api.runtime.store, held);
    const conflict = await api.request('POST', `/api/v1/lead-rules/${id}/backfill`, { token, body: { start: LONG_AGO } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error).toMatchObject({ code: 'conflict', details: { job_id: held.id } });
    await saveBackfillJob(api.runtime.store, { ...held, status: 'failed', error: 'test over' });
  });
});

describe('a backfill interrupted by a restart', () => {
  it('resumes from its cursor and raises exactly what an uninterrupted run raises', async () => {
    let api = await startTestApi({ stages: FUSED_STAGES, env: { CAIRN_BACKFILL_PAGE_SIZE: '40' } });
    try {
      const token = api.token();
      const orgId = orgOf(token);
      const liveId = await createRule(api, token, RULES[0]!);
      await ingestLines(api, token, LINES);
      await drained(api);
      const lateId = await createRule(api, token, RULES[0]!);
      const liveObservations = await eventually(async () => {
        const found = await observationsOf(api, token, liveId);
        expect(found.length).toBeGreaterThan(3);
        return found;
      });

      // The job runs a few pages, then the process stops.
      const rule = (await getLeadRule(api.runtime.store, orgId, lateId))!;
      const job = newBackfillJob(rule, { start: LONG_AGO, end: new Date().toISOString(), trigger: 'manual', requestedBy: 'test' });
      await saveBackfillJob(api.runtime.store, job);
      const abort = new AbortController();
      const progress: BackfillJob[] = [];
      const stopped = await runBackfill(api.runtime, job, {
        pageSize: 40,
        signal: abort.signal,
        onProgress: (j) => {
          progress.push(j);
          if (progress.filter((p) => p.cursor).length === 3) abort.abort();
        },
      });
      expect(stopped.status).toBe('running');
      const total = stopped.events_total!;
      expect(total).toBe(LINES.filter((l) => l.includes('Failed password')).length);
      // Progress is saved page by page: counted first, then the events done grow by at most a page, the cursor moves on.
      expect(progress[0]).toMatchObject({ status: 'running', events_total: total, events_done: 0, cursor: null });
      const steps = progress.slice(1);
      expect(steps).toHaveLength(3);
      for (const [i, step] of steps.entries()) {
        const before = i === 0 ? 0 : steps[i - 1]!.events_done;
        expect(step.events_done - before).toBeGreaterThan(0);
        expect(step.events_done - before).toBeLessThanOrEqual(40);
        if (i > 0) expect(step.cursor!.at).toBeGreaterThanOrEqual(steps[i - 1]!.cursor!.at);
      }
      expect(stopped.events_done).toBeLessThan(total);
      const partial = await observationsOf(api, token, lateId);
      expect(partial.length).toBeLessThan(liveObservations.length);

      const dataDir = api.dataDir;
      await api.close();
      api = await startTestApi({ dataDir, stages: FUSED_STAGES, env: { CAIRN_BACKFILL_PAGE_SIZE: '40' } });
      const resumed = await get<Job>(api, token, `/api/v1/lead-rules/${lateId}/backfill/${job.id}`);
      expect(resumed).toMatchObject({ status: 'running', events_done: stopped.events_done, evaluated_to: new Date(stopped.cursor!.at).toISOString() });
      expect(resumed.progress).toBeCloseTo(stopped.events_done / total, 5);
      // Had the process died rather than stopped, its lease would still hold the job a while: nobody takes it before it lapses.
      await api.runtime.state.set(`backfill:lease:${job.id}`, 'a process that died', 1500);
      await api.runtime.backfills.check();
      expect(api.runtime.backfills.runningJobs()).toEqual([]);
      await new Promise((r) => setTimeout(r, 1600));
      await api.runtime.backfills.check();
      expect(api.runtime.backfills.runningJobs()).toEqual([job.id]);
      const done = await eventually(
        async () => {
          const j = await get<Job>(api, token, `/api/v1/lead-rules/${lateId}/backfill/${job.id}`);
          expect(j.status, j.error).toBe('succeeded');
          return j;
        },
        60_000,
        100,
      );
      expect(done).toMatchObject({ events_done: total, raised: liveObservations.length, already_raised: 0, progress: 1 });
      expect(firings(await observationsOf(api, token, lateId))).toEqual(firings(liveObservations));
      expect(await leadCount(api, orgId, lateId)).toBe(liveObservations.length);
    } finally {
      await api.close();
    }
  }, 180_000);
});

describe('cairn rules backfill', () => {
  it('runs a rule over the last days through the API with a progress bar, and says what it raised', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-backfill-cli-'));
    const port = await freePort();
    const env = { ...process.env, CAIRN_LOG_LEVEL: 'warn', CAIRN_DATA_DIR: dataDir, PORT: String(port), CAIRN_JWT_SECRET: TEST_JWT_SECRET, CAIRN_BACKFILL_PAGE_SIZE: '50' };
    const bin = path.join(import.meta.dirname, '..', 'bin', 'cairn.mjs');
    const server = spawn(process.execPath, [bin, 'start'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    server.stdout.on('data', (d: Buffer) => (output += d.toString()));
    server.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const run = (args: string[]) =>
      new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
        const child = spawn(process.execPath, [bin, ...args], { env });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
        child.on('exit', (code) => resolve({ code, stdout, stderr }));
      });
    try {
      const url = `http://127.0.0.1:${port}`;
      await eventually(async () => expect((await fetch(`${url}/healthz`)).status, output).toBe(200), 60_000, 200);
      // Recent lines, so that --since finds them: failures within a minute, an hour ago, all in one 5-minute window.
      const at = new Date(Math.floor((Date.now() - 3_600_000) / 300_000) * 300_000 + 10_000);
      const stamp = (s: number) => {
        const t = new Date(at.getTime() + s * 1000);
        return `${t.toLocaleString('en-US', { month: 'short', timeZone: 'UTC' })} ${String(t.getUTCDate()).padStart(2, ' ')} ${t.toISOString().slice(11, 19)}`;
      };
      const lines = Array.from({ length: 120 }, (_, i) => `${stamp(i % 50)} web1 sshd[${100 + i}]: Failed password for root from 198.51.100.${Math.floor(i / 12)} port ${40_000 + i} ssh2`);
      const file = path.join(dataDir, 'auth.log');
      fs.writeFileSync(file, `${lines.join('\n')}\n`);
      const ingested = await run(['ingest', file, '--source', 'auth']);
      expect(ingested.code, ingested.stderr).toBe(0);
      const token = (await run(['token', '--permissions', 'signals:manage,signals:read'])).stdout.trim();
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      await eventually(async () => {
        const res = await fetch(`${url}/api/v1/artifacts?query=${encodeURIComponent('source.ip:*')}&exact_total=true&limit=1`, { headers });
        expect(((await res.json()) as { data: { total: number } }).data.total).toBe(lines.length);
      }, 60_000, 200);
      const created = await fetch(`${url}/api/v1/lead-rules`, { method: 'POST', headers, body: JSON.stringify(RULES[0]) });
      const ruleId = ((await created.json()) as { data: { id: string } }).data.id;

      const result = await run(['rules', 'backfill', ruleId, '--since', '2d']);
      expect(result.code, result.stderr).toBe(0);
      // One firing per address (12 failures each in one window, threshold 5): 10 addresses.
      expect(result.stdout).toMatch(new RegExp(`^backfill [0-9a-f-]{36} of "brute force" succeeded: ${lines.length} event\\(s\\) evaluated, ${lines.length} matched, 10 raised, 0 already raised`, 'm'));
      expect(result.stderr).toMatch(/100%/);

      const again = await run(['rules', 'backfill', ruleId, '--since', '2d']);
      expect(again.stdout).toMatch(/succeeded: .* 0 raised, 10 already raised/);
      const none = await run(['rules', 'backfill', ruleId, '--since', '2d', '--end', at.toISOString()]);
      expect(none.stdout).toMatch(/succeeded: 0 event\(s\) evaluated, 0 matched, 0 raised/);

      const missing = await run(['rules', 'backfill', '00000000-0000-4000-8000-000000000000', '--since', '2d']);
      expect(missing.code).toBe(1);
      expect(missing.stderr).toMatch(/^cairn: .*lead rule not found/);
    } finally {
      await stopProcess(server, 30_000);
    }
  }, 240_000);
});
