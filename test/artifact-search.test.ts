// Artifact search on the store itself, with enough rows for ClickHouse's
// query optimizations to kick in.
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows, SqlParams } from '../clickhouse/sql.js';
import { searchArtifacts } from '../clickhouse/tables/artifacts.js';
import { parseQuery, QuerySyntaxError } from '../query/parse.js';
import { toSqlCondition } from '../query/to-sql.js';
import { storeCondition } from '../api/search-sql.js';
import { useTestStore } from './helpers/store.js';

const db = useTestStore('search');

beforeAll(async () => {
  await db.store.command({
    query: `INSERT INTO artifacts (id, org_id, source, raw, timestamp, metadata, created_at)
            SELECT generateUUIDv7(), 'o', 'auth',
                   if(number % 10 = 0, concat('sshd: Failed password for root from 10.0.', toString(number % 256), '.1'), concat('sshd: Accepted publickey for alice ', toString(number))),
                   toDateTime64('2026-11-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(number * 1000), '{}', now64(3)
            FROM numbers(20000)`,
  });
  await db.store.command({
    query: `INSERT INTO events (artifact_id, org_id, source, timestamp, parser, fields, created_at)
            SELECT generateUUIDv7(), 'o', 'dns', toDateTime64('2026-11-01 00:00:00', 3, 'UTC') + toIntervalMillisecond(number * 1000), 'zeek_dns',
                   map('dns.question.type', [if(number % 1000 = 0, 'AAAA', 'A')], 'source.ip', [concat('10.1.', toString(number % 200), '.9')]), now64(3)
            FROM numbers(20000)`,
  });
});

async function search(query: string, limit = 50, options: { countLimit?: number; offset?: number; orgId?: string } = {}) {
  const tree = parseQuery(query);
  const fieldSubquery = () => {
    throw new QuerySyntaxError('no fields here', 0);
  };
  return searchArtifacts(db.store, {
    scope: { orgId: options.orgId ?? 'o' },
    on: 'artifacts',
    conditions: (_scope, params) => {
      const condition = toSqlCondition(tree, { textColumn: 'raw', fieldSubquery }, params);
      return condition ? [condition] : [];
    },
    limit,
    offset: options.offset ?? 0,
    countLimit: options.countLimit,
  });
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

describe('a search with more matches than it counts', () => {
  beforeAll(async () => {
    // 10,000 rows a second apart; only the oldest 3,000 say "early".
    await db.store.command({
      query: `INSERT INTO artifacts (id, org_id, source, raw, timestamp, metadata, created_at)
              SELECT generateUUIDv7(), 'w', 'app', concat('row ', toString(number), if(number < 3000, ' early', ' late')),
                     toDateTime64('2026-11-02 00:00:00', 3, 'UTC') + toIntervalSecond(number), '{}', now64(3)
              FROM numbers(10000)`,
    });
  });

  const ids = (page: { artifacts: { id: string }[] }) => page.artifacts.map((a) => a.id);

  it('finds the newest page in the newest slice of time, the same page an exact count gives', async () => {
    const exact = await search('row*', 10, { orgId: 'w', offset: 20 });
    const counted = await search('row*', 10, { orgId: 'w', offset: 20, countLimit: 1000 });
    expect(counted).toMatchObject({ total: 1000, totalExact: false });
    expect(exact.total).toBe(10000);
    expect(ids(counted)).toEqual(ids(exact));
    expect(counted.artifacts[0]!.raw).toBe('row 9979 late');
  });

  it('widens past slices that hold too few matches, down to the whole range', async () => {
    const exact = await search('early', 10, { orgId: 'w' });
    const counted = await search('early', 10, { orgId: 'w', countLimit: 100 });
    expect(counted).toMatchObject({ total: 100, totalExact: false });
    expect(ids(counted)).toEqual(ids(exact));
    expect(counted.artifacts.map((a) => a.raw)).toEqual(Array.from({ length: 10 }, (_, i) => `row ${2999 - i} early`));
  });

  it('counts a search that stays under its limit exactly', async () => {
    const counted = await search('early', 5, { orgId: 'w', countLimit: 5000 });
    expect(counted).toMatchObject({ total: 3000, totalExact: true });
    expect(counted.artifacts[0]!.raw).toBe('row 2999 early');
  });
});

describe('indexes the search compiles to', () => {
  /** The skip indexes ClickHouse reports using for a field-only query on the events table. */
  async function indexesUsed(query: string): Promise<string> {
    const params = new SqlParams();
    const { sql } = storeCondition(parseQuery(query), { orgId: 'o' }, params);
    const result = await db.store.query({ query: `EXPLAIN indexes = 1 SELECT count() FROM events WHERE ${sql}`, query_params: params.values, format: 'TabSeparated' });
    return result.text();
  }

  it('looks equality on a field without a column of its own up in the pairs index, exactly as its values compare', async () => {
    expect(await indexesUsed('dns.question.type:aaaa')).toContain('field_value_pairs');
    const params = new SqlParams();
    const { sql } = storeCondition(parseQuery('dns.question.type:aaaa OR dns.question.type:"AAAA"'), { orgId: 'o' }, params);
    const [row] = await (await db.store.query({ query: `SELECT count() AS n FROM events WHERE ${sql}`, query_params: params.values, format: 'JSONEachRow' })).json<{ n: string }>();
    expect(Number(row!.n)).toBe(20);
  });

  it('looks equality on a promoted field up in the pairs index too, as its values compare', async () => {
    expect(await indexesUsed('source.ip:10.1.7.9')).toContain('field_value_pairs');
    expect(await indexesUsed('event.action:LOGIN')).toContain('field_value_pairs');
    const params = new SqlParams();
    const { sql } = storeCondition(parseQuery('source.ip:10.1.7.9 OR source.ip:10.1.300.9'), { orgId: 'o' }, params);
    const [row] = await (await db.store.query({ query: `SELECT count() AS n FROM events WHERE ${sql}`, query_params: params.values, format: 'JSONEachRow' })).json<{ n: string }>();
    expect(Number(row!.n)).toBe(100);
  });
});

describe('per-query settings', () => {
  it('hold for their query only, also on the embedded engine whose one session keeps what the client sets', async () => {
    const current = async () => (await queryRows(db.store, "SELECT getSetting('optimize_read_in_order') AS o, getSetting('join_use_nulls') AS j", new SqlParams()))[0];
    const before = await current();
    const [inside] = await queryRows(db.store, "SELECT getSetting('optimize_read_in_order') AS o, getSetting('join_use_nulls') AS j", new SqlParams(), { optimize_read_in_order: 0, join_use_nulls: 1 });
    expect(inside).toEqual({ o: false, j: true });
    expect(await current()).toEqual(before);
    expect(before).toEqual({ o: true, j: false });
  });
});
