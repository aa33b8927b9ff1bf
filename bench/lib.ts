// Shared pieces of the benchmarks: the real samples, a cairn process to
// measure, percentiles and a results line.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { mintToken } from '../api/auth.js';
import { PERMISSIONS } from '../identity/permissions.js';
import { freePort } from '../test/services/process.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
export const REPO = path.resolve(HERE, '..');

export interface SampleLine {
  /** The sample's folder: auth, suricata, firewall, dns, syslog. */
  source: string;
  raw: string;
}

/**
 * Every line of every sample log in CAIRN_SAMPLES_DIR (default ../shared/data
 * beside the repo), source named after its folder. Falls back to the
 * Apache-2.0 fixtures in test/fixtures when the samples are not there.
 */
export function loadSamples(): { lines: SampleLine[]; dir: string } {
  const candidates = [process.env.CAIRN_SAMPLES_DIR, path.resolve(REPO, '../shared/data'), path.resolve(REPO, '../../shared/data')].filter(Boolean) as string[];
  const dir = candidates.find((d) => fs.existsSync(d));
  const lines: SampleLine[] = [];
  if (dir) {
    for (const source of fs.readdirSync(dir).filter((d) => fs.statSync(path.join(dir, d)).isDirectory())) {
      for (const file of fs.readdirSync(path.join(dir, source)).filter((f) => f.endsWith('.log'))) {
        for (const raw of fs.readFileSync(path.join(dir, source, file), 'utf8').split('\n')) if (raw.trim()) lines.push({ source, raw });
      }
    }
    return { lines, dir };
  }
  const fixtures = path.join(REPO, 'test', 'fixtures', 'beats');
  for (const file of fs.readdirSync(fixtures).filter((f) => f.endsWith('.log'))) {
    for (const raw of fs.readFileSync(path.join(fixtures, file), 'utf8').split('\n')) if (raw.trim()) lines.push({ source: 'auth', raw });
  }
  return { lines, dir: fixtures };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const BENCH_SECRET = 'bench-secret-bench-secret-bench-secret-bench';
/** The master key a benchmark's cairn seals secrets with: required against Kafka and Redis, where cairn does not make one in the data dir. */
export const BENCH_MASTER_KEY = 'b3c1a7e94f2d6085c1e7a3b9d4f60218a7c3e5b1d9f4a6082c7e1b3d5f9a4c60';

export function benchToken(orgId = 'default'): string {
  return mintToken(BENCH_SECRET, { subject: 'bench', orgId, permissions: [...PERMISSIONS], ttlSeconds: 6 * 3600 });
}

export interface CairnProcess {
  url: string;
  child: ChildProcess;
  dataDir: string;
  /** Peak resident memory so far (VmHWM), in MiB. */
  peakRssMiB(): number;
  stop(): Promise<void>;
}

/** Runs `cairn start` as its own process, as a user would (CAIRN_BENCH_PROFILE_DIR: write a CPU profile there). */
export async function startCairn(env: Record<string, string> = {}): Promise<CairnProcess> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-bench-'));
  const port = await freePort();
  const profile = process.env.CAIRN_BENCH_PROFILE_DIR ? [`--cpu-prof`, `--cpu-prof-dir=${process.env.CAIRN_BENCH_PROFILE_DIR}`] : [];
  const child = spawn(process.execPath, [...profile, path.join(REPO, 'bin', 'cairn.mjs'), 'start'], {
    env: { ...process.env, CAIRN_DATA_DIR: dataDir, PORT: String(port), CAIRN_JWT_SECRET: BENCH_SECRET, CAIRN_MASTER_KEY: BENCH_MASTER_KEY, CAIRN_LOG_LEVEL: 'warn', NODE_ENV: 'production', ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error('cairn exited during start');
    try {
      if ((await fetch(`${url}/healthz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (i > 600) throw new Error('cairn did not start in 60 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    child,
    dataDir,
    peakRssMiB() {
      const status = fs.readFileSync(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmHWM:\s+(\d+) kB/.exec(status)?.[1] ?? 0) / 1024;
    },
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function machineLine(): string {
  return `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, node ${process.version}`;
}
