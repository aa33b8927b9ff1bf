// CPU and memory of this process, or of its container: where the process
// runs in its own cgroup v2 (a container), the cgroup's numbers count what
// the container is charged for, children included; elsewhere (a shell, a
// systemd service sharing the root cgroup) the process's own.
import fs from 'node:fs/promises';

export interface Resources {
  /** CPU time used so far, user + system. */
  cpuSeconds: number;
  memoryBytes: number;
  source: 'cgroup' | 'process';
}

const CGROUP_ROOT = '/sys/fs/cgroup';

/** The process's cgroup v2 directory, unless it is the root (no container). */
async function ownCgroup(): Promise<string | null> {
  const lines = await fs.readFile('/proc/self/cgroup', 'utf8').catch(() => '');
  const unified = lines.split('\n').find((l) => l.startsWith('0::'));
  const relative = unified?.slice(3).trim();
  if (!relative || relative === '/') return null;
  const dir = `${CGROUP_ROOT}${relative}`;
  return (await fs.access(`${dir}/memory.current`).then(() => true, () => false)) ? dir : null;
}

let cgroup: Promise<string | null> | null = null;

export async function readResources(): Promise<Resources> {
  cgroup ??= ownCgroup();
  const dir = await cgroup;
  if (dir) {
    const [memory, cpu] = await Promise.all([fs.readFile(`${dir}/memory.current`, 'utf8'), fs.readFile(`${dir}/cpu.stat`, 'utf8')]).catch(() => [null, null]);
    const usage = cpu ? /usage_usec (\d+)/.exec(cpu)?.[1] : undefined;
    if (memory && usage) return { cpuSeconds: Number(usage) / 1e6, memoryBytes: Number(memory.trim()), source: 'cgroup' };
  }
  const { user, system } = process.cpuUsage();
  return { cpuSeconds: (user + system) / 1e6, memoryBytes: process.memoryUsage.rss(), source: 'process' };
}
