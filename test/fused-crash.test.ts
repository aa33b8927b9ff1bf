// The fused analysis stage killed with SIGKILL mid-run and restarted on the
// same data: nothing lost, nothing doubled. A clean run of the same lines
// in another data directory is the reference for every count.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRuntime } from '../cli/runtime.js';
import { loadConfig } from '../config/env.js';
import { startTestApi, TEST_JWT_SECRET, type TestApi } from './helpers/api.js';
import { eventually, testLogger } from './helpers/buses.js';
import { drained, FUSED_STAGES, ingestLines, pipelineHoldings } from './helpers/pipeline.js';

const ROOT = path.join(import.meta.dirname, '..');
const LINES = fs.readFileSync(path.join(import.meta.dirname, 'fixtures', 'beats', 'secure-rhel7.log'), 'utf8').split('\n').filter((l) => l.trim());
const COPIES = 40;
const RULE = {
  name: 'SSH brute force',
  severity: 'high',
  conditions: { pattern: 'Failed password', source: 'auth', threshold: 5, window: '5m', group_by: 'source.ip' },
};
const ORG = 'crash-org';

const open: TestApi[] = [];
let child: ChildProcess | null = null;
afterAll(async () => {
  child?.kill('SIGKILL');
  await Promise.all(open.map((a) => a.close()));
});

describe('fused analysis stage under SIGKILL', () => {
  it('restarts from its last commit with nothing lost and no duplicate artifact, event, node, edge, observation or incident', async () => {
    const lines = Array.from({ length: COPIES }, () => LINES).flat();

    // The reference: the same lines, processed without interruption.
    const clean = await startTestApi({ stages: FUSED_STAGES });
    open.push(clean);
    const cleanToken = clean.token('all', ORG);
    expect((await clean.request('POST', '/api/v1/lead-rules', { token: cleanToken, body: RULE })).status).toBe(201);
    await ingestLines(clean, cleanToken, lines);
    await eventually(async () => expect((await pipelineHoldings(clean, cleanToken)).artifacts).toBe(lines.length), 60_000, 200);
    await drained(clean);
    const expected = await pipelineHoldings(clean, cleanToken);
    expect(expected.observations).toBeGreaterThan(0);
    // One embedded engine per process: the reference closes before the killed run's data is opened here.
    await clean.close();
    open.pop();

    // `cairn start` in a child process, killed once the analysis stage has written some events but not all.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-crash-'));
    child = spawn(process.execPath, [path.join(ROOT, 'bin', 'cairn.mjs'), 'start'], {
      env: { ...process.env, CAIRN_DATA_DIR: dataDir, CAIRN_JWT_SECRET: TEST_JWT_SECRET, PORT: '0', HOST: '127.0.0.1', CAIRN_LOG_LEVEL: 'info', CAIRN_PIPELINE_TOPOLOGY: 'fused' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    await eventually(() => expect(output).toMatch(/API listening on http:\/\/[\d.]+:\d+/), 60_000, 100);
    const url = /API listening on (http:\/\/[\d.]+:\d+)/.exec(output)![1]!;
    const token = cleanToken;
    const call = async (method: string, p: string, body?: unknown) => {
      const res = await fetch(`${url}${p}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, body: (await res.json()) as { data: { total: number } } };
    };
    expect((await call('POST', '/api/v1/lead-rules', RULE)).status).toBe(201);
    for (let i = 0; i < lines.length; i += 2000) {
      expect((await call('POST', '/api/v1/artifacts', { artifacts: lines.slice(i, i + 2000).map((raw) => ({ source: 'auth', raw })) })).status).toBe(202);
    }
    await eventually(async () => expect((await call('GET', '/api/v1/artifacts?query=source.ip:*&exact_total=true&limit=1')).body.data.total).toBeGreaterThan(0), 60_000, 20);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = null;

    // Killed mid-run: some events written, the rest not yet committed.
    const killed = await openRuntime(loadConfig({ CAIRN_DATA_DIR: dataDir, CAIRN_JWT_SECRET: TEST_JWT_SECRET, CAIRN_LOG_LEVEL: 'warn' }), testLogger);
    const lagAtKill = await killed.bus.lag('analysis', 'artifacts.raw');
    await killed.close();
    expect(lagAtKill).toBeGreaterThan(0);

    const restarted = await startTestApi({ dataDir, stages: FUSED_STAGES });
    open.push(restarted);
    await eventually(async () => expect((await pipelineHoldings(restarted, token)).artifacts).toBe(lines.length), 60_000, 200);
    await drained(restarted);
    // Every count the same as the clean run's: each artifact stored and parsed once, the same nodes, edges,
    // incidents, and the same observations holding the same number of artifacts.
    expect(await pipelineHoldings(restarted, token)).toEqual(expected);
  }, 240_000);
});
