// Detections out of the box, as a new user meets them: `cairn start` on a
// fresh data dir enables the rule pack with the first admin, and `cairn
// ingest` of a real sshd log under brute force gives leads and incidents,
// without a rule written by hand. The attacking addresses are counted apart,
// from the text of the log.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { shippedPack } from '../rules/pack.js';
import { eventually } from './helpers/buses.js';
import { samplesDir } from './helpers/samples.js';
import { freePort, stopProcess } from './services/process.js';

const BIN = path.join(import.meta.dirname, '..', 'bin', 'cairn.mjs');
const pack = shippedPack();

const running: ChildProcess[] = [];
afterEach(async () => {
  for (const child of running.splice(0)) await stopProcess(child, 30_000);
});

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, CAIRN_LOG_LEVEL: 'warn', ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `cairn start` on `dataDir`, once it answers /healthz; `env` has what the CLI commands need to find it. */
async function startCairn(extra: Record<string, string> = {}) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-pack-e2e-'));
  const port = String(await freePort());
  const env = { CAIRN_DATA_DIR: dataDir, PORT: port, ...extra };
  const child = spawn(process.execPath, [BIN, 'start'], { env: { ...process.env, CAIRN_LOG_LEVEL: 'warn', CAIRN_STORE_BATCH_WAIT_MS: '20', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}`;
  await eventually(async () => {
    if (child.exitCode !== null) throw new Error(`cairn start exited early:\n${output}`);
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  }, 90_000, 200);
  return { env, url, output: () => output };
}

async function get<T>(url: string, token: string, p: string): Promise<T> {
  const res = await fetch(`${url}${p}`, { headers: { authorization: `Bearer ${token}` } });
  expect(res.status, p).toBe(200);
  return ((await res.json()) as { data: T }).data;
}

/** Addresses with at least 10 failed logins in one 10-minute window (aligned to the hour), read from the log's text alone. */
function bruteForcers(lines: string[]): string[] {
  const perWindow = new Map<string, number>();
  for (const line of lines) {
    const failed = /^(\w{3} +\d+ \d\d):(\d\d):\d\d .*sshd\[\d+\]: (?:message repeated \d+ times: \[ )?Failed \S+ for (?:invalid user )?\S+ from (\S+) port /.exec(line);
    if (!failed) continue;
    const key = `${failed[3]}|${failed[1]}:${Math.floor(Number(failed[2]) / 10)}`;
    perWindow.set(key, (perWindow.get(key) ?? 0) + 1);
  }
  return [...new Set([...perWindow].filter(([, n]) => n >= 10).map(([key]) => key.split('|')[0]!))].sort();
}

interface Observation {
  rule_id: string | null;
  description: string;
  severity: string;
}

describe('the rule pack out of the box', () => {
  it('is enabled by `cairn start` on a fresh data dir, and `cairn ingest` of a brute-forced sshd log gives leads and incidents naming every attacking address', async () => {
    const cairn = await startCairn();
    expect(cairn.output()).toMatch(/created the first admin/);
    expect(cairn.output()).toContain(`enabled the rule pack ${pack.version}: ${pack.rules.length} detection rules`);

    const status = await run(['rules', 'pack', 'status'], cairn.env);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toMatch(new RegExp(`^rule pack ${pack.version.replaceAll('.', '\\.')}: ${pack.rules.length} current\\n`));
    expect(status.stdout).toMatch(/ current +auth-brute-force +Password guessing from one address/);

    const log = path.join(samplesDir(), 'auth', 'openssh-loghub.log');
    const lines = fs.readFileSync(log, 'utf8').split('\n').filter((l) => l.trim());
    const ingest = await run(['ingest', log, '--source', 'auth'], cairn.env);
    expect(ingest.code, ingest.stderr).toBe(0);
    expect(ingest.stdout).toContain(`: ${lines.length} accepted, 0 rejected`);

    const token = (await run(['token', '--permissions', 'signals:read,observations:read,incidents:read'], cairn.env)).stdout.trim();
    const attackers = bruteForcers(lines);
    expect(attackers.length).toBeGreaterThanOrEqual(5);

    // Every attacking address in a brute-force lead, and no other address.
    const bruteForceRule = (await get<{ rules: { id: string; name: string; origin: { pack_id?: string } | null }[] }>(cairn.url, token, '/api/v1/lead-rules?limit=1000')).rules.find(
      (r) => r.origin?.pack_id === 'auth-brute-force',
    )!;
    const observations = await eventually(async () => {
      const found = (await get<{ observations: Observation[] }>(cairn.url, token, '/api/v1/observations?limit=1000')).observations.filter((o) => o.rule_id !== null);
      const named = new Set(found.filter((o) => o.rule_id === bruteForceRule.id).map((o) => /for source\.ip (\S+) /.exec(o.description)?.[1]));
      expect([...named].sort()).toEqual(attackers);
      return found;
    }, 90_000, 500);
    // Other pack rules fire too: spraying, unknown accounts, a first login from a country.
    expect(new Set(observations.map((o) => o.rule_id)).size).toBeGreaterThanOrEqual(3);

    const incidents = await eventually(async () => {
      const found = await get<{ incidents: { title: string; severity: string }[]; total: number }>(cairn.url, token, '/api/v1/incidents?limit=100');
      expect(found.total).toBeGreaterThanOrEqual(1);
      return found.incidents;
    }, 60_000, 500);
    expect(incidents.some((i) => attackers.some((ip) => i.title.includes(ip)))).toBe(true);

    // Nothing for an update to do on a fresh install.
    const update = await run(['rules', 'pack', 'update'], cairn.env);
    expect(update.code, update.stderr).toBe(0);
    expect(update.stdout).toContain(`0 installed, 0 updated, 0 reset, 0 retired, ${pack.rules.length} unchanged, 0 left alone`);
  }, 300_000);

  it('is not enabled with CAIRN_DEFAULT_RULES=off, and `cairn rules pack update` installs it later', async () => {
    const cairn = await startCairn({ CAIRN_DEFAULT_RULES: 'off' });
    expect(cairn.output()).toMatch(/created the first admin/);
    expect(cairn.output()).not.toMatch(/enabled the rule pack/);
    const token = (await run(['token', '--permissions', 'signals:read'], cairn.env)).stdout.trim();
    expect((await get<{ total: number }>(cairn.url, token, '/api/v1/lead-rules')).total).toBe(0);
    expect((await run(['rules', 'pack', 'status'], cairn.env)).stdout).toMatch(new RegExp(`: ${pack.rules.length} new\\n`));
    const update = await run(['rules', 'pack', 'update'], cairn.env);
    expect(update.stdout).toMatch(new RegExp(`: ${pack.rules.length} installed, `));
    expect((await get<{ total: number }>(cairn.url, token, '/api/v1/lead-rules')).total).toBe(pack.rules.length);
  }, 180_000);
});
