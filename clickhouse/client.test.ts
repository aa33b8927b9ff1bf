// The embedded store as the engine runs it: settings that reach the engine only through how it is opened.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestStore, type TestStore } from '../test/helpers/store.js';
import { ENGINE_ALLOCATOR, type Store } from './client.js';

let opened: TestStore;
let store: Store;

beforeAll(async () => {
  opened = await openTestStore('client', { migrated: false, embedded: true });
  store = opened.store;
});

afterAll(async () => {
  await opened?.close();
});

describe('the embedded engine', () => {
  it("gives freed memory back after the allocator's decay that openStore sets", async () => {
    const result = await store.query({ query: 'SELECT * FROM system.jemalloc_stats', format: 'TabSeparatedRaw' });
    const stats = await result.text();
    const [, decay] = /opt\.dirty_decay_ms: (\d+)/.exec(stats) ?? [];
    expect(`dirty_decay_ms:${decay}`).toBe(ENGINE_ALLOCATOR);
  });
});
