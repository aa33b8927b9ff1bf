// Artifact search on the store itself, with enough rows for ClickHouse's
// query optimizations to kick in.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../clickhouse/client.js';
import { migrate } from '../clickhouse/migrate.js';
import { queryRows, SqlParams } from '../clickhouse/sql.js';
import { searchArtifacts } from '../clickhouse/tables/artifacts.js';
import { parseQuery, QuerySyntaxError } from '../query/parse.js';
import { toSqlCondition } from '../query/to-sql.js';
import { storeCondition } from '../api/search-sql.js';

let store: Store;

beforeAll(async () => {
  store = await openStore({
    clickhouse: { url: process.env.CAIRN_TEST_CLICKHOUSE_URL, user: 'default', password: '', database: `cairn_search_${process.pid}` },
    dataDir: fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-search-')),
  });
  await migrate(store);
  await store.command({
    query: `INSERT INTO artifacts (id, org_id, source, raw, timestamp, metadata, created_at)
            SELECT generateUUIDv7(), 'o', 'auth',
                   if(number % 10 = 0, concat('sshd: Failed password for root from 10.0.', toString(number % 256), '.1'), concat('sshd: Accepted publickey for alice ', toString(number))),
                   toDateTime64('2026-11-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(number * 1000), '{}', now64(3)
            FROM numbers(20000)`,
  });
  await store.command({
    query: `INSERT INTO events (artifact_id, org_id, source, timestamp, parser, fields, created_at)
            SELECT generateUUIDv7(), 'o', 'dns', toDateTime64('2026-11-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(number * 1000), 'zeek_dns',
                   map('dns.question.type', [if(number % 1000 = 0, 'AAAA', 'A')], 'source.ip', [concat('10.1.', toString(number % 200), '.9')]), now64(3)
            FROM numbers(20000)`,
  });
});

afterAll(async () => {
  await store?.close();
});

async function search(query: string, limit = 50) {
  const params = new SqlParams();
  const fieldSubquery = () => {
    throw new QuerySyntaxError('no fields here', 0);
  };
  const condition = toSqlCondition(parseQuery(query), { textColumn: 'raw', fieldSubquery }, params);
  return searchArtifacts(store, { orgId: 'o', conditions: condition ? [condition] : [], params, limit, offset: 0 });
}

describe('artifact search on 20,000 rows', () => {
  it('returns the newest matching rows for several words (ClickHouse 26.7 top-K filtering returned none)', async () => {
    const { artifacts, total } = await search('failed password');
    expect(total).toBe(2000);
    expect(artifacts).toHaveLength(50);
    expect(artifacts.every((a) => a.raw.includes('Failed password'))).toBe(true);
    const times = artifacts.map((a) => a.timestamp);
    expect(times).toEqual([...times].sort().reverse());
    expect(times[0]).toBe('2026-11-01T05:33:10.000Z');
  });

  it('returns rows for a phrase and for words with separators', async () => {
    expect((await search('"for root from"', 10)).artifacts).toHaveLength(10);
    const dotted = await search('10.0.8.1', 1000);
    expect(dotted.total).toBe(dotted.artifacts.length);
    expect(dotted.artifacts.length).toBeGreaterThan(0);
    expect(dotted.artifacts.every((a) => a.raw.endsWith('10.0.8.1'))).toBe(true);
  });

  it('excludes with NOT and still pages', async () => {
    const { artifacts, total } = await search('sshd NOT failed', 20);
    expect(total).toBe(18000);
    expect(artifacts).toHaveLength(20);
    expect(artifacts.some((a) => a.raw.includes('Failed'))).toBe(false);
  });
});

describe('indexes the search compiles to', () => {
  /** The skip indexes ClickHouse reports using for a field-only query on the events table. */
  async function indexesUsed(query: string): Promise<string> {
    const params = new SqlParams();
    const { sql } = storeCondition(parseQuery(query), { orgId: 'o' }, params);
    const result = await store.query({ query: `EXPLAIN indexes = 1 SELECT count() FROM events WHERE ${sql}`, query_params: params.values, format: 'TabSeparated' });
    return result.text();
  }

  it('looks equality on a field without a column of its own up in the pairs index, exactly as its values compare', async () => {
    expect(await indexesUsed('dns.question.type:aaaa')).toContain('field_value_pairs');
    const params = new SqlParams();
    const { sql } = storeCondition(parseQuery('dns.question.type:aaaa OR dns.question.type:"AAAA"'), { orgId: 'o' }, params);
    const [row] = await (await store.query({ query: `SELECT count() AS n FROM events WHERE ${sql}`, query_params: params.values, format: 'JSONEachRow' })).json<{ n: string }>();
    expect(Number(row!.n)).toBe(20);
  });

  it('looks equality on a promoted address up in its bloom filter', async () => {
    expect(await indexesUsed('source.ip:10.1.7.9')).toContain('f_source_ip_lookup');
  });
});

describe('per-query settings', () => {
  it('hold for their query only, also on the embedded engine whose one session keeps what the client sets', async () => {
    const current = async () => (await queryRows(store, "SELECT getSetting('optimize_read_in_order') AS o, getSetting('join_use_nulls') AS j", new SqlParams()))[0];
    const before = await current();
    const [inside] = await queryRows(store, "SELECT getSetting('optimize_read_in_order') AS o, getSetting('join_use_nulls') AS j", new SqlParams(), { optimize_read_in_order: 0, join_use_nulls: 1 });
    expect(inside).toEqual({ o: false, j: true });
    expect(await current()).toEqual(before);
    expect(before).toEqual({ o: true, j: false });
  });
});
