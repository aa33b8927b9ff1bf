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
  /** CPU seconds used so far, by thread (threadCpuSeconds). */
  cpuByThread(): Map<string, number>;
  stop(): Promise<void>;
}

/**
 * CPU seconds a process has used, by thread, from /proc (Linux): `main`
 * (the JavaScript main thread), `other node threads` (analysis workers, the
 * libuv pool, where the embedded engine runs each statement, and V8's GC
 * helpers, which Node names alike), and the embedded engine's own threads
 * by name (ThreadPool: insert and query work; MergeMutate: background
 * merges). Threads that ended are not counted.
 */
export function threadCpuSeconds(pid: number): Map<string, number> {
  const ticksPerSecond = 100; // USER_HZ, 100 on Linux
  const byThread = new Map<string, number>();
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      continue; // ended meanwhile
    }
    const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const seconds = (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
    const group = Number(tid) === pid ? 'main' : name === 'node' ? 'other node threads' : name;
    byThread.set(group, (byThread.get(group) ?? 0) + seconds);
  }
  return byThread;
}

/** What `after` adds to `before` (threadCpuSeconds), largest first, as "name 12.3 s" parts. */
export function cpuGrowth(before: Map<string, number>, after: Map<string, number>): string[] {
  return [...after]
    .map(([name, seconds]) => [name, seconds - (before.get(name) ?? 0)] as const)
    .filter(([, seconds]) => seconds >= 0.5)
    .sort((a, b) => b[1] - a[1])
    .map(([name, seconds]) => `${name} ${seconds.toFixed(1)} s`);
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
  // Said at once: a request that fails next would otherwise only show a reset connection.
  child.once('exit', (code, signal) => {
    if (!stopping) console.error(`bench: cairn (pid ${child.pid}) exited by itself: ${signal ? `signal ${signal}` : `code ${code}`}`);
  });
  let stopping = false;
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
    cpuByThread() {
      return threadCpuSeconds(child.pid!);
    },
    async stop() {
      stopping = true;
      if (child.exitCode !== null || child.signalCode !== null) return;
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
