// Who holds the embedded store: the engine serves one process at a time and
// writes the holder's pid in its status file. `cairn sql` and `cairn user`
// open the store themselves when nobody holds it, and go through the running
// cairn's API when one does.
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/env.js';

/** The embedded engine's directory under the data dir. */
export function engineDirOf(config: Config): string {
  return path.join(config.dataDir, 'clickhouse');
}

/** The pid written in the engine's status file, when that process still runs (and is not this one). */
export async function embeddedStoreHolder(config: Config): Promise<number | null> {
  if (config.clickhouse.url) return null;
  const status = await fs.readFile(path.join(engineDirOf(config), 'status'), 'utf8').catch(() => '');
  const pid = Number(/^PID:\s*(\d+)/m.exec(status)?.[1]);
  if (!pid || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}
