// The embedded store as the engine runs it: settings that reach the engine only through how it is opened.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINE_ALLOCATOR, openStore, type Store } from './client.js';

let dir: string;
let store: Store;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-client-'));
  store = await openStore({ clickhouse: { user: 'default', password: '', database: 'cairn' }, dataDir: dir });
});

afterAll(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('the embedded engine', () => {
  it("gives freed memory back after the allocator's decay that openStore sets", async () => {
    const result = await store.query({ query: 'SELECT * FROM system.jemalloc_stats', format: 'TabSeparatedRaw' });
    const stats = await result.text();
    const [, decay] = /opt\.dirty_decay_ms: (\d+)/.exec(stats) ?? [];
    expect(`dirty_decay_ms:${decay}`).toBe(ENGINE_ALLOCATOR);
  });
});
