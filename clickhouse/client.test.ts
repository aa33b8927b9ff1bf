// The embedded store as the engine runs it: settings that reach the engine only through how it is opened.
import { describe, expect, it } from 'vitest';
import { useTestStore } from '../test/helpers/store.js';
import { ENGINE_ALLOCATOR } from './client.js';

const db = useTestStore('client', { migrated: false, embedded: true });

describe('the embedded engine', () => {
  it("gives freed memory back after the allocator's decay that openStore sets", async () => {
    const result = await db.store.query({ query: 'SELECT * FROM system.jemalloc_stats', format: 'TabSeparatedRaw' });
    const stats = await result.text();
    const [, decay] = /opt\.dirty_decay_ms: (\d+)/.exec(stats) ?? [];
    expect(`dirty_decay_ms:${decay}`).toBe(ENGINE_ALLOCATOR);
  });
});
