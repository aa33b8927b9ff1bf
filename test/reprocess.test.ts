// Re-parsing stored artifacts (POST /v1/reprocess) on both buses: events
// stored as an older parser wrote them are replaced by what today's parser
// gives, with no moment at which a search counts an artifact twice; a second
// run over the same range changes nothing; a cairn process killed with
// SIGKILL in the middle of a job resumes it after a restart, and nothing is
// lost or doubled. A fresh ingest of the same lines in another organization
// of the same store is the reference for every count.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { Store } from '../clickhouse/client.js';
import { insertArtifacts, type Artifact } from '../clickhouse/tables/artifacts.js';
import { insertEvents } from '../clickhouse/tables/events.js';
import { newId } from '../lib/ids.js';
import { startStages } from '../cli/runtime.js';
import { startTestApi, TEST_JWT_SECRET, TEST_MASTER_KEY, type TestApi } from './helpers/api.js';
import { BUS_KINDS, eventually, type BusKind } from './helpers/buses.js';
import { drained, FUSED_STAGES, get, ingestLines } from './helpers/pipeline.js';

const ROOT = path.join(import.meta.dirname, '..');
const LINES = fs
  .readFileSync(path.join(import.meta.dirname, 'fixtures', 'beats', 'secure-rhel7.log'), 'utf8')
  .split('\n')
  .filter((l) => l.trim());
/** Small slices, so that a job has many and a kill lands between them. */
const SLICE = '100';

interface Job {
  id: string;
  status: string;
  progress: { artifacts_total: number; artifacts_done: number; slices_planned: number; planned: boolean; slices_done: number; slices_failed: number };
  counts: { unchanged: number; changed: number; added: number; removed: number; unparsed: number; unsettled: number };
}

const SEARCHES = ['', 'source.ip:*', 'event.category:authentication', 'event.outcome:failure', 'user.name:root', 'Failed password', 'sshd AND source.ip:10.0.0.0/8'];

/** What a search, the graph and the events table hold for the caller's organization. */
async function holdings(api: TestApi, token: string, orgId: string) {
  const totals: Record<string, number> = {};
  for (const query of SEARCHES) {
    totals[query || '(all)'] = (await get<{ total: number }>(api, token, `/api/v1/artifacts?exact_total=true&limit=1&query=${encodeURIComponent(query)}`)).total;
  }
  return {
    searches: totals,
    // Rows as they are, unmerged and without FINAL: what searches count.
    eventRows: await eventRows(api.runtime.store, orgId),
    nodes: (await get<{ total: number }>(api, token, '/api/v1/nodes?limit=1')).total,
    edges: (await get<{ total: number }>(api, token, '/api/v1/edges?limit=1')).total,
  };
}

async function eventRows(store: Store, orgId: string): Promise<number> {
  const [row] = await (await store.query({ query: 'SELECT count() AS n FROM events WHERE org_id = {org:String}', query_params: { org: orgId }, format: 'JSONEachRow' })).json<{ n: string }>();
  return Number(row!.n);
}

/** Each stored event by its artifact's raw line: parser and fields (as sorted entries). */
async function eventsByRaw(store: Store, orgId: string): Promise<Map<string, string>> {
  const rows = await (
    await store.query({
      query: `SELECT a.raw AS raw, e.parser AS parser, e.fields AS fields FROM events AS e INNER JOIN artifacts AS a ON a.id = e.artifact_id
              WHERE e.org_id = {org:String} AND a.org_id = {org:String}`,
      query_params: { org: orgId },
      format: 'JSONEachRow',
    })
  ).json<{ raw: string; parser: string; fields: Record<string, string[]> }>();
  return new Map(rows.map((r) => [r.raw, JSON.stringify([r.parser, Object.entries(r.fields).sort(([a], [b]) => a.localeCompare(b))])]));
}

/**
 * The organization's events as an older parser could have written them: no
 * event.category or outcome, no source.ip, another parser name. Written
 * into the parts (a mutation), as rows that were stored so would be.
 */
async function makeEventsOld(store: Store, orgId: string): Promise<void> {
  await store.command({
    query: `ALTER TABLE events UPDATE parser = 'legacy', fields = mapFilter((k, v) -> k NOT IN ('event.category', 'event.outcome', 'source.ip'), fields) WHERE org_id = {org:String}`,
    query_params: { org: orgId },
    clickhouse_settings: { mutations_sync: '1' },
  });
}

async function startJob(api: TestApi, token: string, body: Record<string, unknown>): Promise<Job> {
  const res = await api.request('POST', '/api/v1/reprocess', { token, body });
  expect(res.status, res.text).toBe(202);
  return res.body.data as Job;
}

async function finishedJob(api: TestApi, token: string, id: string, timeoutMs = 120_000): Promise<Job> {
  return eventually(
    async () => {
      const job = await get<Job>(api, token, `/api/v1/reprocess/${id}`);
      expect(['succeeded', 'failed', 'cancelled'], JSON.stringify(job)).toContain(job.status);
      return job;
    },
    timeoutMs,
    100,
  );
}

const RANGE = { start: '2000-01-01T00:00:00Z', end: '2100-01-01T00:00:00Z' };
const open: TestApi[] = [];
let child: ChildProcess | null = null;
afterAll(async () => {
  child?.kill('SIGKILL');
  await Promise.all(open.map((a) => a.close()));
});

/** A test API on a store of its own; one embedded engine per process, so the one open before closes first. */
async function reopen(options: Parameters<typeof startTestApi>[0]): Promise<TestApi> {
  await Promise.all(open.splice(0).map((a) => a.close()));
  const api = await startTestApi(options);
  open.push(api);
  return api;
}

describe.each(BUS_KINDS)('re-parsing on the %s bus', (kind: BusKind) => {
  const distributed = kind === 'kafka';

  it('replaces old events in place, counting nothing twice at any moment, and a second run changes nothing', async () => {
    const api = await reopen({ distributed, stages: FUSED_STAGES, env: { CAIRN_REPROCESS_SLICE: SLICE } });
    // On Kafka a second member of the reprocess group, joined well before the job: the slices spread over both.
    const members = distributed ? await startStages(api.runtime, ['reprocess']) : [];
    const [reference, reparsed] = [`ref-${kind}`, `old-${kind}`];
    const referenceToken = api.token('all', reference);
    const token = api.token('all', reparsed);
    await ingestLines(api, referenceToken, LINES);
    await ingestLines(api, token, LINES);
    await drained(api);
    await eventually(async () => expect(await eventRows(api.runtime.store, reparsed)).toBe(LINES.length), 30_000);
    const expected = await holdings(api, referenceToken, reference);
    expect(expected.eventRows).toBe(LINES.length);
    expect(expected.searches['source.ip:*']).toBeGreaterThan(0);

    await makeEventsOld(api.runtime.store, reparsed);
    const old = await holdings(api, token, reparsed);
    expect(old.eventRows).toBe(LINES.length);
    expect(old.searches['event.category:authentication']).toBe(0);

    // While the job runs, every look at the events counts each artifact once, and field searches find
    // an artifact once, old or new.
    const job = await startJob(api, token, RANGE);
    const seen = { looks: 0, rowsAbove: 0, authAbove: 0 };
    let running = true;
    const watcher = (async () => {
      while (running) {
        seen.looks++;
        if ((await eventRows(api.runtime.store, reparsed)) !== LINES.length) seen.rowsAbove++;
        const auth = (await get<{ total: number }>(api, token, '/api/v1/artifacts?exact_total=true&limit=1&query=event.category:authentication')).total;
        if (auth > expected.searches['event.category:authentication']!) seen.authAbove++;
      }
    })();
    const done = await finishedJob(api, token, job.id);
    running = false;
    await watcher;
    expect(done.status).toBe('succeeded');
    expect(seen.looks).toBeGreaterThan(1);
    expect(seen).toMatchObject({ rowsAbove: 0, authAbove: 0 });
    expect(done.progress).toMatchObject({ artifacts_total: LINES.length, artifacts_done: LINES.length, planned: true, slices_failed: 0 });
    expect(done.progress.slices_done).toBe(done.progress.slices_planned);
    expect(done.progress.slices_planned).toBeGreaterThanOrEqual(LINES.length / Number(SLICE));
    expect(done.counts).toMatchObject({ changed: LINES.length, unchanged: 0, added: 0, removed: 0 });
    if (distributed) {
      const [row] = await (
        await api.runtime.store.query({ query: 'SELECT uniqExact(member) AS members FROM reprocess_slices FINAL WHERE job_id = {job:UUID}', query_params: { job: job.id }, format: 'JSONEachRow' })
      ).json<{ members: string }>();
      expect(Number(row!.members)).toBe(2);
      await Promise.all(members.map((m) => m.stop()));
    }

    // Every event is now what a fresh ingest of its line gives; so are the searches, nodes and edges.
    expect(await eventsByRaw(api.runtime.store, reparsed)).toEqual(await eventsByRaw(api.runtime.store, reference));
    await drained(api);
    expect(await holdings(api, token, reparsed)).toEqual(expected);

    // Again over the same range: nothing to change, nothing doubled.
    const again = await finishedJob(api, token, (await startJob(api, token, RANGE)).id);
    expect(again.status).toBe('succeeded');
    expect(again.counts).toMatchObject({ changed: 0, unchanged: LINES.length, added: 0, removed: 0 });
    expect(await holdings(api, token, reparsed)).toEqual(expected);

    // The list shows both, newest first.
    const list = await get<{ jobs: Job[]; total: number }>(api, token, '/api/v1/reprocess');
    expect(list.jobs.map((j) => j.id)).toEqual([again.id, job.id]);
  }, 240_000);

  it('adds the events of artifacts that had none, removes those of artifacts that no longer parse, filters by source, and folds each partition it patched', async () => {
    // The previous test's API when it ran, else one of its own.
    const api = open[0] ?? (await reopen({ distributed, stages: FUSED_STAGES, env: { CAIRN_REPROCESS_SLICE: SLICE } }));
    const orgId = `gaps-${kind}`;
    const token = api.token('all', orgId);
    const referenceToken = api.token('all', `gaps-ref-${kind}`);
    const lines = LINES.slice(0, 300);
    await ingestLines(api, referenceToken, lines);
    // Stored on three days, long enough ago that the pipeline is done with them; the first 90 with an event an
    // older parser wrote, the others with none (as when a parser failed on them then).
    const stored: Artifact[] = lines.map((raw, i) => {
      const arrived = new Date(Date.now() - 3_600_000 - (i % 3) * 86_400_000 + i).toISOString();
      return { id: newId(), org_id: orgId, source: 'auth', raw, timestamp: arrived, metadata: {}, created_at: arrived };
    });
    const old = stored.slice(0, 90);
    // An artifact nothing parses today (a blank line) whose event an older parser wrote, and one of another source.
    const blank: Artifact = { ...stored[0]!, id: newId(), raw: '   ' };
    const other: Artifact = { ...stored[1]!, id: newId(), source: 'firewall' };
    await insertArtifacts(api.runtime.store, [...stored, blank, other]);
    await insertEvents(
      api.runtime.store,
      [...old, blank].map((a) => ({ artifact_id: a.id, org_id: orgId, source: 'auth', timestamp: a.timestamp, parser: 'legacy', fields: { message: 'old' }, created_at: a.created_at })),
    );

    const job = await finishedJob(api, token, (await startJob(api, token, { ...RANGE, source: 'auth' })).id);
    expect(job.status).toBe('succeeded');
    expect(job.progress.artifacts_done).toBe(lines.length + 1);
    expect(job.counts).toMatchObject({ changed: old.length, added: lines.length - old.length, removed: 1, unparsed: 1, unchanged: 0, unsettled: 0 });
    // A slice never spans two partitions.
    expect(job.progress.slices_planned).toBeGreaterThanOrEqual(3);
    await drained(api);
    const referenceRows = await eventRows(api.runtime.store, `gaps-ref-${kind}`);
    // Each artifact of the source has its one event; the blank line none; the other source's artifact was not read.
    expect(await eventRows(api.runtime.store, orgId)).toBe(referenceRows);
    expect((await eventsByRaw(api.runtime.store, orgId)).size).toBe(new Set(lines).size);
    expect((await get<{ total: number }>(api, token, '/api/v1/nodes?limit=1')).total).toBe((await get<{ total: number }>(api, referenceToken, '/api/v1/nodes?limit=1')).total);
    // Every partition it patched had its patches folded.
    const days = [...new Set(old.map((a) => a.created_at.slice(0, 10).replaceAll('-', '')))];
    expect(days).toHaveLength(3);
    const folds = await (
      await api.runtime.store.query({ query: `SELECT command FROM system.mutations WHERE database = currentDatabase() AND table = 'events'`, format: 'JSONEachRow' })
    ).json<{ command: string }>();
    for (const day of days) expect(folds.map((f) => f.command).join('\n')).toContain(`APPLY PATCHES IN PARTITION ID '${day}'`);

    // One unfinished job per organization; a finished one cannot be cancelled.
    const res = await api.request('POST', `/api/v1/reprocess/${job.id}/cancel`, { token });
    expect(res.status).toBe(409);
  }, 120_000);

  it("parses with the organization's own decoders, as live parsing does, and only its own", async () => {
    const api = open[0] ?? (await reopen({ distributed, stages: FUSED_STAGES, env: { CAIRN_REPROCESS_SLICE: SLICE } }));
    const [token, other] = [api.token('all', `decoders-${kind}`), api.token('all', `decoders-other-${kind}`)];
    const acme = Array.from({ length: 150 }, (_, i) => `Jan 10 00:${String(i % 60).padStart(2, '0')}:00 gw acmed[31]: denied user=u${i} from 192.0.2.${(i % 250) + 1}`);
    await ingestLines(api, token, acme, 'syslog');
    await ingestLines(api, other, acme, 'syslog');
    await drained(api);
    const count = async (t: string, query: string) => (await get<{ total: number }>(api, t, `/api/v1/artifacts?exact_total=true&limit=1&query=${encodeURIComponent(query)}`)).total;
    await eventually(async () => expect(await count(token, 'process.name:acmed')).toBe(acme.length), 30_000);
    expect(await count(token, 'cairn.decoder:"user/acme"')).toBe(0);

    // Stored before the decoder existed; re-parsed after, they read as the decoder says.
    const created = await api.request('POST', '/api/v1/decoders', {
      token,
      body: {
        service: 'acme',
        description: 'ACME gateway denials',
        programs: ['acmed'],
        defaults: { 'event.category': ['authentication'], 'event.type': ['info'] },
        decoders: [{ name: 'denied', match: '^denied user={USER} from {IP}$', fields: { 'event.action': 'acme-denied', 'event.outcome': 'failure' } }],
        tests: [{ line: 'Jan 10 00:00:00 gw acmed[31]: denied user=erin from 192.0.2.60', expect: { 'user.name': 'erin', 'event.action': 'acme-denied' } }],
      },
    });
    expect(created.status, created.text).toBe(201);
    const job = await finishedJob(api, token, (await startJob(api, token, RANGE)).id);
    expect(job.status).toBe('succeeded');
    expect(job.counts).toMatchObject({ changed: acme.length, added: 0, removed: 0 });
    expect(await count(token, 'cairn.decoder:"user/acme" AND event.action:acme-denied AND user.name:u7')).toBe(1);
    expect(await count(token, 'cairn.decoder:"user/acme"')).toBe(acme.length);
    expect(await eventRows(api.runtime.store, `decoders-${kind}`)).toBe(acme.length);
    // Another organization's re-parse does not use them.
    const theirs = await finishedJob(api, other, (await startJob(api, other, RANGE)).id);
    expect(theirs.counts).toMatchObject({ changed: 0, unchanged: acme.length });
    expect(await count(other, 'cairn.decoder:"user/acme"')).toBe(0);
  }, 120_000);

  it('resumes a job after the cairn process running it is killed with SIGKILL, with nothing lost or doubled', async () => {
    // Stored before: one organization's events as an older parser wrote them, another's fresh (the reference).
    const first = await reopen({ distributed, stages: FUSED_STAGES });
    const { dataDir } = first;
    const [reference, reparsed] = [`crash-ref-${kind}`, `crash-old-${kind}`];
    const lines = [...LINES, ...LINES.map((l) => `${l} `)];
    await ingestLines(first, first.token('all', reference), lines);
    await ingestLines(first, first.token('all', reparsed), lines);
    await drained(first);
    await eventually(async () => expect(await eventRows(first.runtime.store, reparsed)).toBe(lines.length), 30_000);
    await makeEventsOld(first.runtime.store, reparsed);
    await first.close();
    open.pop();

    // `cairn start` in a child process, killed once some slices of the job are done but not all.
    child = spawn(process.execPath, [path.join(ROOT, 'bin', 'cairn.mjs'), 'start'], {
      env: {
        ...process.env,
        CAIRN_DATA_DIR: dataDir,
        CAIRN_JWT_SECRET: TEST_JWT_SECRET,
        CAIRN_MASTER_KEY: TEST_MASTER_KEY,
        PORT: '0',
        HOST: '127.0.0.1',
        CAIRN_LOG_LEVEL: 'info',
        CAIRN_PIPELINE_TOPOLOGY: 'fused',
        CAIRN_REPROCESS_SLICE: SLICE,
        CAIRN_KAFKA_TOPIC_PREFIX: `test-${path.basename(dataDir)}.`,
        ...(distributed ? { CAIRN_KAFKA_BROKERS: inject('kafkaBrokers'), CAIRN_REDIS_URL: inject('redisUrl') } : {}),
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    await eventually(() => expect(output).toMatch(/API listening on http:\/\/[\d.]+:\d+/), 60_000, 100);
    const url = /API listening on (http:\/\/[\d.]+:\d+)/.exec(output)![1]!;
    const token = first.token('all', reparsed);
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${url}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      const text = await res.text();
      return { status: res.status, text, body: JSON.parse(text) as { data: unknown } };
    };
    const created = await call('POST', '/api/v1/reprocess', RANGE);
    expect(created.status, created.text).toBe(202);
    const job = created.body.data as Job;
    const atKill = await eventually(
      async () => {
        const current = (await call('GET', `/api/v1/reprocess/${job.id}`)).body.data as Job;
        expect(current.progress.slices_done).toBeGreaterThanOrEqual(2);
        return current;
      },
      60_000,
      10,
    );
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = null;
    // Killed mid-job: planned further than it had done.
    expect(atKill.status).not.toBe('succeeded');

    const restarted = await reopen({ dataDir, distributed, stages: FUSED_STAGES, env: { CAIRN_REPROCESS_SLICE: SLICE } });
    const done = await finishedJob(restarted, token, job.id);
    expect(done.status).toBe('succeeded');
    expect(done.progress).toMatchObject({ artifacts_done: lines.length, slices_failed: 0, planned: true });
    expect(done.progress.slices_done).toBe(done.progress.slices_planned);
    // Each slice's counts are those of its first pass, even for a slice the kill interrupted mid-write.
    expect(done.counts).toMatchObject({ changed: lines.length, unchanged: 0, added: 0, removed: 0 });
    await drained(restarted);
    const referenceToken = restarted.token('all', reference);
    expect(await eventsByRaw(restarted.runtime.store, reparsed)).toEqual(await eventsByRaw(restarted.runtime.store, reference));
    expect(await holdings(restarted, token, reparsed)).toEqual(await holdings(restarted, referenceToken, reference));
  }, 300_000);
});

describe('re-parsing refusals', () => {
  it('needs signals:manage to start or cancel, refuses bad ranges and unknown keys, hides other organizations\' jobs, and runs one job per organization', async () => {
    // No reprocess stage: the job stays queued, which is what the one-job rule is about.
    const api = await reopen({ stages: [] });
    const orgId = `refusals-${newId().slice(0, 8)}`;
    const token = api.token('all', orgId);
    const reader = api.token(['signals:read'], orgId);

    const forbidden = await api.request('POST', '/api/v1/reprocess', { token: reader, body: RANGE });
    expect(forbidden.status, forbidden.text).toBe(403);
    for (const body of [
      { start: RANGE.end, end: RANGE.start },
      { start: RANGE.start, end: RANGE.start },
      { start: 'yesterday', end: RANGE.end },
      { start: RANGE.start },
      { ...RANGE, source: '' },
      { ...RANGE, partition: '20260101' },
    ]) {
      const res = await api.request('POST', '/api/v1/reprocess', { token, body });
      expect(res.status, `${JSON.stringify(body)}: ${res.text}`).toBe(400);
      expect(res.body).toMatchObject({ success: false, data: null, error: { code: 'validation_error' } });
    }

    const job = await startJob(api, token, RANGE);
    expect(job.status).toBe('queued');
    const second = await api.request('POST', '/api/v1/reprocess', { token, body: RANGE });
    expect(second.status, second.text).toBe(409);
    expect(second.body).toMatchObject({ error: { code: 'conflict' } });

    // Another organization sees no such job, and cannot cancel it.
    const stranger = api.token('all', `${orgId}-other`);
    expect((await api.request('GET', `/api/v1/reprocess/${job.id}`, { token: stranger })).status).toBe(404);
    expect((await api.request('POST', `/api/v1/reprocess/${job.id}/cancel`, { token: stranger })).status).toBe(404);
    expect((await get<{ total: number }>(api, stranger, '/api/v1/reprocess')).total).toBe(0);
    expect((await api.request('POST', `/api/v1/reprocess/${job.id}/cancel`, { token: reader })).status).toBe(403);

    const cancelled = await api.request('POST', `/api/v1/reprocess/${job.id}/cancel`, { token });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect((cancelled.body.data as Job).status).toBe('cancelled');
    // The organization may start another now.
    expect((await api.request('POST', '/api/v1/reprocess', { token, body: RANGE })).status).toBe(202);
  }, 60_000);
});
