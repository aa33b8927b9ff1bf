// `cairn sql` and `cairn user` next to a running `cairn start` on the same
// embedded data dir: they go through its API and answer exactly as they do
// on the stopped store. And the ClickHouse HTTP interface as `cairn start`
// serves it when asked to.
import { randomUUID } from 'node:crypto';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../clickhouse/client.js';
import { saveLeadRule, type LeadRule } from '../clickhouse/tables/lead-rules.js';
import { loadConfig } from '../config/env.js';
import { eventually } from './helpers/buses.js';
import { freePort, stopProcess } from './services/process.js';

const BIN = path.join(import.meta.dirname, '..', 'bin', 'cairn.mjs');
const QUERY = 'SELECT name, severity, enabled, tags, description FROM v_lead_rules ORDER BY name';
const PASSWORD = 'a password long enough 1';

let dataDir: string;
let env: Record<string, string>;
let server: ChildProcess | null = null;
let url: string;
let reportingUrl: string;

function cairn(args: string[], input?: string) {
  return spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, CAIRN_LOG_LEVEL: 'warn', ...env }, encoding: 'utf8', timeout: 60_000, input });
}

function rule(name: string, description: string, tags: string[]): LeadRule {
  const now = new Date().toISOString();
  return { id: randomUUID(), org_id: 'default', name, description, enabled: true, conditions: { pattern: 'Failed password' }, severity: 'high', tags, origin: null, created_at: now, updated_at: now };
}

/** What each `cairn sql` call below answers: status, stdout and stderr. */
function sqlAnswers() {
  const calls = [
    [QUERY],
    [QUERY, '--format', 'json'],
    [QUERY, '--format', 'csv'],
    ['SELECT number FROM system.numbers LIMIT 5000', '--limit', '2', '--format', 'json'],
    ['SELECT number FROM system.numbers LIMIT 5000', '--limit', '3'],
    ['DROP TABLE lead_rules'],
    ['SELECT 1; DROP TABLE lead_rules'],
    ['SELECT * FROM no_such_table'],
    ["SELECT * FROM file('/etc/hostname', 'LineAsString')"],
    ["SELECT file('/etc/hostname')"],
    ['SELECT count() AS rules FROM v_lead_rules', '--format', 'csv'],
  ];
  return calls.map((args) => {
    const { status, stdout, stderr } = cairn(['sql', ...args]);
    return { args, status, stdout, stderr };
  });
}

async function startCairn(): Promise<void> {
  const child = spawn(process.execPath, [BIN, 'start'], { env: { ...process.env, CAIRN_LOG_LEVEL: 'warn', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  server = child;
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`cairn start exited early:\n${output}`);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }, 90_000, 200);
}

async function stopCairn(): Promise<void> {
  if (server) await stopProcess(server, 30_000);
  server = null;
}

async function login(email: string, password: string): Promise<number> {
  const res = await fetch(`${url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password }) });
  return res.status;
}

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-sql-live-'));
  const port = await freePort();
  const reportingPort = await freePort();
  // No rule pack: the rows `cairn sql` reads stay the test's own.
  env = { CAIRN_DATA_DIR: dataDir, PORT: String(port), CAIRN_CLICKHOUSE_HTTP_PORT: String(reportingPort), CAIRN_PASSWORD_KDF_COST: '10', CAIRN_DEFAULT_RULES: 'off', CAIRN_ADMIN_EMAIL: 'admin@example.com', CAIRN_ADMIN_PASSWORD: PASSWORD };
  url = `http://127.0.0.1:${port}`;
  reportingUrl = `http://127.0.0.1:${reportingPort}`;
  expect(cairn(['migrate']).status).toBe(0);
  const store = await openStore(loadConfig({ CAIRN_DATA_DIR: dataDir }));
  try {
    for (const r of [rule('SSH, "brute" force', 'x'.repeat(100), ['T1110']), rule('DNS tunnel', 'line one\nline two', [])]) await saveLeadRule(store, r);
  } finally {
    await store.close();
  }
}, 120_000);

afterAll(async () => {
  await stopCairn();
});

describe('cairn sql and cairn user with cairn start running', () => {
  it('cairn sql answers the same through a running cairn as on the stopped store: rows, formats, limits, refusals and errors', async () => {
    const stopped = sqlAnswers();
    expect(stopped[0]!.status, stopped[0]!.stderr).toBe(0);
    expect(stopped[0]!.stdout).toMatch(/^name +severity +enabled +tags +description\n/);
    expect(stopped.map((a) => a.status)).toEqual([0, 0, 0, 0, 0, 2, 2, 1, 1, 1, 0]);
    await startCairn();
    const running = sqlAnswers();
    for (const [i, answer] of running.entries()) {
      const before = stopped[i]!;
      expect({ status: answer.status, stdout: answer.stdout }, before.args.join(' ')).toEqual({ status: before.status, stdout: before.stdout });
      // Error lines say the same; a usage error's help text is the command's own either way.
      expect(answer.stderr.split('\n')[0], before.args.join(' ')).toBe(before.stderr.split('\n')[0]);
    }
    expect(running[9]!.stderr).toMatch(/^cairn: query failed: file\(\) reads outside/);
  }, 180_000);

  it('cairn user create and reset work through the running cairn; the new password logs in', async () => {
    if (!server) await startCairn();
    const created = cairn(['user', 'create', '--email', 'Carol@Example.com', '--role', 'viewer']);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(/^created viewer carol@example\.com\npassword: \S{12,}\n\(shown once; it is stored only as a hash\)\n$/);
    const first = /password: (\S+)/.exec(created.stdout)![1]!;
    expect(await login('carol@example.com', first)).toBe(200);
    const reset = cairn(['user', 'reset', '--email', 'carol@example.com', '--password-stdin'], `${PASSWORD}\n`);
    expect(reset.status, reset.stderr).toBe(0);
    expect(reset.stdout).toBe('password reset for carol@example.com\n');
    expect(await login('carol@example.com', first)).toBe(401);
    expect(await login('carol@example.com', PASSWORD)).toBe(200);
    // The same errors as on the stopped store.
    const unknown = cairn(['user', 'reset', '--email', 'nobody@example.com']);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toBe('cairn: no user with email nobody@example.com\n');
    const badRole = cairn(['user', 'create', '--email', 'dave@example.com', '--role', 'janitor']);
    expect(badRole.stderr).toBe('cairn: unknown role "janitor"; roles: admin, analyst, viewer\n');
    const twice = cairn(['user', 'create', '--email', 'carol@example.com']);
    expect(twice.stderr).toBe('cairn: a user with email carol@example.com already exists\n');

    // The ClickHouse HTTP interface `cairn start` serves (CAIRN_CLICKHOUSE_HTTP_PORT): the new user reads the views.
    const auth = { authorization: `Basic ${Buffer.from(`carol@example.com:${PASSWORD}`).toString('base64')}` };
    const res = await fetch(`${reportingUrl}/?default_format=CSVWithNames`, { method: 'POST', headers: auth, body: 'SELECT count() AS rules FROM v_lead_rules' });
    expect(res.status).toBe(200);
    expect(Number((await res.text()).split('\n')[1])).toBeGreaterThanOrEqual(2);

    // Stopped: the same commands open the store themselves and answer alike.
    await stopCairn();
    const stoppedReset = cairn(['user', 'reset', '--email', 'carol@example.com', '--password-stdin'], `${PASSWORD}\n`);
    expect({ status: stoppedReset.status, stdout: stoppedReset.stdout }).toEqual({ status: reset.status, stdout: reset.stdout });
    const stoppedUnknown = cairn(['user', 'reset', '--email', 'nobody@example.com']);
    expect({ status: stoppedUnknown.status, stderr: stoppedUnknown.stderr }).toEqual({ status: unknown.status, stderr: unknown.stderr });
    const stoppedBadRole = cairn(['user', 'create', '--email', 'dave@example.com', '--role', 'janitor']);
    expect(stoppedBadRole.stderr).toBe(badRole.stderr);
    const stoppedTwice = cairn(['user', 'create', '--email', 'carol@example.com']);
    expect(stoppedTwice.stderr).toBe(twice.stderr);
  }, 240_000);
});
