// The one store client. Without a server URL it runs ClickHouse embedded
// (chdb) on a directory under the data dir; with one, it talks to the server.
// Either way callers get the same @clickhouse/client API and SQL dialect.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createClient, type ClickHouseClient, type ClickHouseSettings } from '@clickhouse/client';
import type { Config } from '../config/env.js';
import { CANONICAL_ISO } from '../lib/iso-time.js';
import { pooledConnection } from './embedded-connections.js';
import { timedInsert } from './metrics.js';
import { structureOf, type RowColumns } from './row-binary.js';
import { settingsClause } from './sql.js';

/** Rows in RowBinary (row-binary.ts) for one insert into `table`. */
export interface RowBinaryInsert {
  table: string;
  columns: RowColumns;
  body: Uint8Array;
  /** Settings of this insert alone. */
  settings?: Record<string, string | number>;
}

export type Store = ClickHouseClient & {
  /** Inserts rows already encoded in RowBinary: over HTTP as the request body, embedded through a file. */
  insertRowBinary(insert: RowBinaryInsert): Promise<void>;
};

type ClientConnection = NonNullable<NonNullable<Parameters<typeof createClient>[0]>['connection']>;

/**
 * Settings every session uses: ISO 8601 timestamps in, UTC everywhere, and
 * top-K dynamic filtering off: in ClickHouse 26.7 it makes
 * `WHERE <two token conditions> ORDER BY timestamp DESC LIMIT n` return no
 * rows at all (test/artifact-search.test.ts holds the regression test).
 */
const SESSION_SETTINGS: ClickHouseSettings = {
  date_time_input_format: 'best_effort',
  session_timezone: 'UTC',
  use_top_k_dynamic_filtering: 0,
  // Searches and rule tests join artifacts and events by id through IN (subquery); the primary key holds the
  // id, and analysing it against a set of millions of ids costs seconds (2.6 s of a 3.3 s count at 10M) and
  // prunes nothing. Small sets still use the key.
  use_index_for_in_with_subqueries_max_values: '100000',
} as ClickHouseSettings;

export interface StoreOptions {
  clickhouse: Config['clickhouse'];
  dataDir: string;
}

export async function openStore({ clickhouse, dataDir }: StoreOptions): Promise<Store> {
  if (clickhouse.url) {
    const bootstrap = createClient({ url: clickhouse.url, username: clickhouse.user, password: clickhouse.password });
    try {
      await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${clickhouse.database}` });
    } finally {
      await bootstrap.close();
    }
    const client = createClient({
      url: clickhouse.url,
      username: clickhouse.user,
      password: clickhouse.password,
      database: clickhouse.database,
      clickhouse_settings: SESSION_SETTINGS,
      request_timeout: 60_000,
    });
    return instrumented(client, async ({ table, columns, body, settings }) => {
      const names = columns.map(([name]) => name).join(', ');
      const result = await client.exec({ query: `INSERT INTO ${table} (${names}) ${settingsClause(settings)} FORMAT RowBinary`, values: Readable.from([body]) });
      // The answer to an insert is empty; reading it to its end gives the socket back.
      for await (const _ of result.stream);
    });
  }
  const dir = path.join(dataDir, 'clickhouse');
  fs.mkdirSync(dir, { recursive: true });
  // Loaded only in embedded mode: the engine is a large native library. Its allocator reads its settings once,
  // when the library loads.
  process.env.JE_MALLOC_CONF ??= ENGINE_ALLOCATOR;
  const { createChdbConnection } = await import('chdb/connection');
  const connections = [];
  for (let i = 0; i < EMBEDDED_CONNECTIONS; i++) {
    const connection = createChdbConnection({ path: dir });
    // chdb ignores the client's `database` option, and settings stick to a
    // connection's session, so each session is set up once here.
    const session = createClient({ connection: connection as unknown as ClientConnection });
    await session.command({ query: `CREATE DATABASE IF NOT EXISTS ${clickhouse.database}` });
    await session.command({ query: `USE ${clickhouse.database}` });
    await session.command({ query: 'SELECT 1', clickhouse_settings: SESSION_SETTINGS });
    connections.push(connection);
  }
  // chdb types its connection against its own copy of @clickhouse/client-common;
  // the shapes are the same (chdb pins the client version it implements).
  const client = createClient({ connection: pooledConnection(connections) as unknown as ClientConnection });
  // A connection closed while a statement still runs is released only when it ends, and until then no other
  // data directory can be opened in this process (tests open one after another): let running statements end first.
  const { drainPending } = await import('chdb');
  const close = client.close.bind(client);
  client.close = async () => {
    await drainPending();
    await close();
  };
  // Files that bring RowBinary inserts to the engine. The engine serves one process at a time, and this one
  // holds it now: what is there was left by a process that stopped mid-insert.
  const spool = path.join(dataDir, 'clickhouse-inserts');
  fs.rmSync(spool, { recursive: true, force: true });
  fs.mkdirSync(spool, { recursive: true });
  // chdb takes data after a statement only as text (its connection makes a string of an insert's values, and
  // its raw insert of binary formats kept 2,570 of 10,000 rows of 105 bytes, without an error), so the bytes
  // go through a file that the statement reads. Written synchronously: a few MiB into the page cache take a
  // millisecond or two, and the thread pool that asynchronous file calls use is the one the engine's
  // statements occupy.
  return instrumented(client, async ({ table, columns, body, settings }) => {
    const file = path.join(spool, `${randomUUID()}.bin`);
    fs.writeFileSync(file, body);
    try {
      const names = columns.map(([name]) => name).join(', ');
      await client.command({
        query: `INSERT INTO ${table} (${names}) ${settingsClause(settings)} SELECT * FROM file({file:String}, 'RowBinary', {structure:String})`,
        query_params: { file, structure: structureOf(columns) },
      });
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
}

/**
 * The embedded engine's allocator (jemalloc, inside libchdb; it reads
 * `JE_MALLOC_CONF`, and a value the operator sets wins). Merges allocate and
 * free a few hundred MiB at a time, and the engine kept freed pages for 5 s
 * (`dirty_decay_ms`) before it gave them back to the system. With 1 s, peak
 * RSS as fast as accepted was about 60 MiB lower on Node 24 (three pairs;
 * 128 MiB in one pair on Node 20), for about 4% fewer artifacts searchable a
 * second; at 20,000/s offered, no change (bench/README.md, ninth pass). 0
 * cost a sixth of the throughput.
 */
export const ENGINE_ALLOCATOR = 'dirty_decay_ms:1000';

/**
 * Connections to the embedded engine (clickhouse/embedded-connections.ts):
 * enough that the store stage, the analysis stage and the API each find
 * one free, few enough to stay cheap (each holds a session). At 20,000
 * artifacts/s offered, ingest-to-searchable p99 was 1,154-1,250 ms with 4
 * against 1,298-1,510 ms with 1 (bench/ingest.ts, three runs each).
 */
const EMBEDDED_CONNECTIONS = 4;

/**
 * The store client: every insert through it counts its rows and time
 * (svc_store_insert_*; RowBinary inserts time themselves, encoded-rows.ts).
 */
function instrumented(client: ClickHouseClient, insertRowBinary: Store['insertRowBinary']): Store {
  const insert = client.insert.bind(client);
  client.insert = ((params: Parameters<ClickHouseClient['insert']>[0]) =>
    timedInsert(params.table, Array.isArray(params.values) ? params.values.length : 0, () => insert(params))) as ClickHouseClient['insert'];
  return Object.assign(client, { insertRowBinary });
}

/** ISO 8601 to the form ClickHouse parses in query parameters: "2026-01-02 03:04:05.678" (UTC). */
export function toClickHouseTime(iso: string): string {
  // Most values are already canonical UTC (toISOString output): skip the Date round trip, a hot path on inserts.
  if (CANONICAL_ISO.test(iso)) return `${iso.slice(0, 10)} ${iso.slice(11, 23)}`;
  return new Date(iso).toISOString().replace('T', ' ').replace('Z', '');
}

/** ClickHouse renders DateTime64 as "2026-01-02 03:04:05.678"; the API speaks ISO 8601. */
export function toIsoTimestamp(value: string): string {
  return value.includes('T') ? new Date(value).toISOString() : `${value.replace(' ', 'T')}${value.includes('.') ? '' : '.000'}Z`;
}
