// A store of a test file's own: embedded in a temporary directory, or a
// database of its own on the ClickHouse server CAIRN_TEST_CLICKHOUSE_URL
// names (unless the test is about the embedded engine), removed at close.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore, type Store } from '../../clickhouse/client.js';
import { migrate } from '../../clickhouse/migrate.js';

export interface TestStore {
  store: Store;
  close(): Promise<void>;
}

export async function openTestStore(name: string, { migrated = true, embedded = false } = {}): Promise<TestStore> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `cairn-${name}-`));
  const url = embedded ? undefined : process.env.CAIRN_TEST_CLICKHOUSE_URL;
  const database = url ? `cairn_${name.replaceAll('-', '_')}_${process.pid}` : 'cairn';
  const store = await openStore({ clickhouse: { url, user: 'default', password: '', database }, dataDir });
  if (migrated) await migrate(store);
  return {
    store,
    async close() {
      if (url) await store.command({ query: `DROP DATABASE IF EXISTS ${database}` });
      await store.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
