// A store of a test file's own: embedded in a temporary directory, or a
// database of its own on the ClickHouse server CAIRN_TEST_CLICKHOUSE_URL
// names (unless the test is about the embedded engine), removed at close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openStore, type Store } from '../../clickhouse/client.js';
import { migrate } from '../../clickhouse/migrate.js';

interface TestStore {
  store: Store;
  /** The store's data directory (the embedded engine's, and its inserts' spool). */
  dataDir: string;
  close(): Promise<void>;
}

async function openTestStore(name: string, { migrated = true, embedded = false } = {}): Promise<TestStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `cairn-${name}-`));
  const url = embedded ? undefined : process.env.CAIRN_TEST_CLICKHOUSE_URL;
  const database = url ? `cairn_${name.replaceAll('-', '_')}_${process.pid}` : 'cairn';
  const store = await openStore({ clickhouse: { url, user: 'default', password: '', database }, dataDir });
  if (migrated) await migrate(store);
  return {
    store,
    dataDir,
    async close() {
      if (url) await store.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * A store opened before the test file's tests and removed after them. Call
 * it at the top of the file; `.store` is there in hooks and tests declared
 * after the call.
 */
export function useTestStore(name: string, options: { migrated?: boolean; embedded?: boolean } = {}): { readonly store: Store; readonly dataDir: string } {
  let opened: TestStore | undefined;
  beforeAll(async () => {
    opened = await openTestStore(name, options);
  }, 120_000);
  afterAll(async () => {
    await opened?.close();
  });
  const open = (): TestStore => {
    if (!opened) throw new Error(`the ${name} test store is not open: use it inside hooks and tests`);
    return opened;
  };
  return {
    get store(): Store {
      return open().store;
    },
    get dataDir(): string {
      return open().dataDir;
    },
  };
}
