// The embedded store as the engine runs it: settings that reach the engine only through how it is opened,
// and the files that bring RowBinary inserts to it.
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { useTestStore } from '../test/helpers/store.js';
import { ENGINE_ALLOCATOR, openStore } from './client.js';

const db = useTestStore('client', { migrated: false, embedded: true });

describe('the embedded engine', () => {
  it("gives freed memory back after the allocator's decay that openStore sets", async () => {
    const result = await db.store.query({ query: 'SELECT * FROM system.jemalloc_stats', format: 'TabSeparatedRaw' });
    const stats = await result.text();
    const [, decay] = /opt\.dirty_decay_ms: (\d+)/.exec(stats) ?? [];
    expect(`dirty_decay_ms:${decay}`).toBe(ENGINE_ALLOCATOR);
  });

  it('takes RowBinary inserts through a spool file that is gone once the insert ends, failed or not', async () => {
    const spool = path.join(db.dataDir, 'clickhouse-inserts');
    await db.store.command({ query: 'CREATE TABLE spooled (id UUID, name String) ENGINE = MergeTree ORDER BY id' });
    const id = randomUUID();
    const body = Buffer.concat([Buffer.from(id.replaceAll('-', ''), 'hex'), Buffer.from([2]), Buffer.from('ok')]);
    // UUID halves are little-endian in RowBinary.
    body.subarray(0, 8).reverse();
    body.subarray(8, 16).reverse();
    await db.store.insertRowBinary({ table: 'spooled', columns: [['id', 'UUID'], ['name', 'String']], body });
    expect(await (await db.store.query({ query: 'SELECT toString(id) AS id, name FROM spooled', format: 'JSONEachRow' })).json()).toEqual([{ id, name: 'ok' }]);
    await expect(db.store.insertRowBinary({ table: 'spooled', columns: [['id', 'UUID'], ['name', 'String']], body: body.subarray(0, 10) })).rejects.toThrow();
    expect(fs.readdirSync(spool)).toEqual([]);
  });
});

describe('opening the embedded store', () => {
  it('removes spool files a process left when it stopped mid-insert', async () => {
    const dataDir = fs.mkdtempSync(path.join(db.dataDir, 'reopen-'));
    fs.mkdirSync(path.join(dataDir, 'clickhouse-inserts'));
    fs.writeFileSync(path.join(dataDir, 'clickhouse-inserts', 'left.bin'), 'x');
    // One data directory per process: this test's store is closed for the moment.
    await db.store.close();
    const store = await openStore({ clickhouse: { user: 'default', password: '', database: 'cairn' }, dataDir });
    try {
      expect(fs.readdirSync(path.join(dataDir, 'clickhouse-inserts'))).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
