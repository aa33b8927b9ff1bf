// Retention of the raw data: artifacts and their parsed events leave
// CAIRN_ARTIFACT_RETENTION_DAYS after they arrived. Applied at every start,
// so changing the setting changes the tables' TTL.
import type { Store } from './client.js';

const RETAINED_TABLES = ['artifacts', 'events'] as const;

/** Rewrites each table's TTL that differs from `days`; returns the tables changed. */
export async function applyRetention(store: Store, days: number): Promise<string[]> {
  return applyTtl(store, RETAINED_TABLES, 'created_at', days);
}

/** The same for the service metrics history (CAIRN_HEALTH_HISTORY_DAYS). */
export async function applyHistoryRetention(store: Store, days: number): Promise<string[]> {
  return applyTtl(store, ['service_metrics'], 'at', days);
}

async function applyTtl(store: Store, tables: readonly string[], column: string, days: number): Promise<string[]> {
  const result = await store.query({
    query: `SELECT name, create_table_query FROM system.tables WHERE database = currentDatabase() AND name IN {tables:Array(String)}`,
    query_params: { tables: [...tables] },
    format: 'JSONEachRow',
  });
  const changed: string[] = [];
  for (const { name, create_table_query } of await result.json<{ name: string; create_table_query: string }>()) {
    if (create_table_query.includes(`toIntervalDay(${days})`)) continue;
    await store.command({ query: `ALTER TABLE ${name} MODIFY TTL toDateTime(${column}) + toIntervalDay(${Math.trunc(days)})` });
    changed.push(name);
  }
  return changed;
}
