// Starting and stopping the local service processes tests use.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface RunningService {
  name: string;
  /** How to reach it, e.g. 127.0.0.1:9092 or redis://127.0.0.1:6379 */
  address: string;
  /** Where it came from: env, docker or local binary. */
  origin: string;
  stop(): Promise<void>;
}

export function spawnLogged(command: string, args: string[], logFile: string, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  const out = fs.openSync(logFile, 'a');
  const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: ['ignore', out, out], detached: false });
  fs.closeSync(out);
  return child;
}

/** SIGTERM, then SIGKILL if the process is still there after `graceMs`. */
export async function stopProcess(child: ChildProcess, graceMs = 5000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

export async function waitFor<T>(what: string, attempt: () => Promise<T>, timeoutMs: number, child?: ChildProcess, logFile?: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) {
      const tail = logFile && fs.existsSync(logFile) ? fs.readFileSync(logFile, 'utf8').slice(-3000) : '';
      throw new Error(`${what} exited with code ${child.exitCode} before it was ready\n${tail}`);
    }
    try {
      return await attempt();
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  throw new Error(`${what} was not ready after ${timeoutMs} ms: ${(lastError as Error)?.message}`);
}

export function commandExists(command: string): boolean {
  return (process.env.PATH ?? '').split(':').some((dir) => dir && fs.existsSync(`${dir}/${command}`));
}
