// What a repeated batch finds stored already (pipeline/bus/consume.ts
// HandlerContext.mayRepeat): the artifacts the store stage wrote, the events
// the parser or analysis stage wrote. Both tables keep one row per artifact
// once merged, but searches count rows as they are, so a repeat leaves out
// what is there instead of writing it twice.
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { withoutRows, type EncodedRows } from '../encoded-rows.js';
import { RowBinaryReader } from '../row-binary.js';

export interface StoredKey {
  id: string;
  org_id: string;
  /** ISO 8601 */
  timestamp: string;
}

/** Which of these artifacts have their row in `table` (artifacts by `id`, events by `artifact_id`); read through the primary key's time range. */
export async function storedArtifactIds(store: Store, keys: StoredKey[], table: 'artifacts' | 'events' = 'artifacts'): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  let from = keys[0]!.timestamp;
  let to = from;
  for (const k of keys) {
    if (k.timestamp < from) from = k.timestamp;
    if (k.timestamp > to) to = k.timestamp;
  }
  const id = table === 'artifacts' ? 'id' : 'artifact_id';
  const result = await store.query({
    // Not aliased `id`: an alias shadows the column of that name in WHERE.
    query: `SELECT toString(${id}) AS stored FROM ${table}
            WHERE org_id IN {orgs:Array(String)} AND timestamp BETWEEN {from:DateTime64(3)} AND {to:DateTime64(3)}
              AND ${id} IN {ids:Array(UUID)}`,
    query_params: { orgs: [...new Set(keys.map((k) => k.org_id))], from: toClickHouseTime(from), to: toClickHouseTime(to), ids: keys.map((k) => k.id) },
    format: 'JSONEachRow',
  });
  return new Set((await result.json<{ stored: string }>()).map((r) => r.stored));
}

/** Encoded events rows (EVENT_COLUMNS) without those of artifacts whose event is stored already. */
export async function withoutStoredEvents(store: Store, rows: EncodedRows): Promise<EncodedRows> {
  if (rows.rows === 0) return rows;
  // Each row starts with artifact_id, org_id, source and timestamp (EVENT_COLUMNS).
  if (rows.columns.slice(0, 4).map(([name]) => name).join() !== 'artifact_id,org_id,source,timestamp') throw new Error(`not events rows: ${rows.table}`);
  const keys = Array.from(rows.rowStarts, (start) => {
    const reader = new RowBinaryReader(rows.body, start);
    const id = reader.uuid();
    const org_id = reader.string();
    reader.string();
    return { id, org_id, timestamp: toIsoTimestamp(reader.dateTime64()) };
  });
  const stored = await storedArtifactIds(store, keys, 'events');
  if (stored.size === 0) return rows;
  return withoutRows(rows, (row) => stored.has(keys[row]!.id));
}
