// `cairn start` in a child process, as an operator runs it: on random free
// ports, stopped (or killed) by its pid. For tests that need a real process
// boundary: senders on sockets, SIGKILL and restart.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { mintToken } from '../../api/auth.js';
import { PERMISSIONS } from '../../identity/permissions.js';
import { stopProcess } from '../services/process.js';
import { eventually } from './buses.js';
import { TEST_JWT_SECRET, TEST_MASTER_KEY } from './api.js';

const ROOT = path.join(import.meta.dirname, '..', '..');

export interface CairnProcess {
  url: string;
  dataDir: string;
  /** An all-permissions token of the default organization. */
  token: string;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** GET an API path with an all-permissions token of the default organization (the one listeners ingest into). */
  get<T>(apiPath: string): Promise<{ status: number; body: { data: T; message: string } }>;
  /** Artifacts matching a search, with the exact total. */
  search(query: string, limit?: number): Promise<{ total: number; artifacts: { raw: string; source: string; timestamp: string; metadata: Record<string, unknown> }[] }>;
  stop(): Promise<void>;
  kill(): Promise<void>;
}

export async function startCairn(env: Record<string, string>, dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-proc-'))): Promise<CairnProcess> {
  const child = spawn(process.execPath, [path.join(ROOT, 'bin', 'cairn.mjs'), 'start'], {
    env: {
      ...process.env,
      CAIRN_DATA_DIR: dataDir,
      CAIRN_JWT_SECRET: TEST_JWT_SECRET,
      CAIRN_MASTER_KEY: TEST_MASTER_KEY,
      CAIRN_DEFAULT_RULES: 'off',
      CAIRN_PASSWORD_KDF_COST: '10',
      CAIRN_STORE_BATCH_WAIT_MS: '20',
      PORT: '0',
      HOST: '127.0.0.1',
      CAIRN_LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  await eventually(() => {
    if (child.exitCode !== null) throw new Error(`cairn exited with ${child.exitCode}:\n${output.slice(-3000)}`);
    if (!/API listening on http:\/\/[\d.]+:\d+/.test(output)) throw new Error('not listening yet');
    // Listeners start after the stages; the ones configured say so.
    for (const name of ['UDP', 'TCP', 'RELP']) {
      if (env[`CAIRN_SYSLOG_${name}_PORT`] && !output.includes(`syslog ${name} listening`)) throw new Error(`syslog ${name} not listening yet`);
    }
  }, 90_000, 100);
  const url = /API listening on (http:\/\/[\d.]+:\d+)/.exec(output)![1]!;
  const token = mintToken(TEST_JWT_SECRET, { subject: 'tester', orgId: 'default', permissions: [...PERMISSIONS], ttlSeconds: 3600 });
  const get = async <T>(apiPath: string) => {
    const res = await fetch(`${url}${apiPath}`, { headers: { authorization: `Bearer ${token}` } });
    return { status: res.status, body: (await res.json()) as { data: T; message: string } };
  };
  return {
    url,
    dataDir,
    token,
    child,
    output: () => output,
    get,
    async search(query, limit = 100) {
      const res = await get<{ total: number; artifacts: { raw: string; source: string; timestamp: string; metadata: Record<string, unknown> }[] }>(
        `/api/v1/artifacts?exact_total=true&limit=${limit}&query=${encodeURIComponent(query)}`,
      );
      if (res.status !== 200) throw new Error(`search answered ${res.status}: ${res.body.message}`);
      return res.body.data;
    },
    stop: () => stopProcess(child, 20_000),
    async kill() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    },
  };
}
