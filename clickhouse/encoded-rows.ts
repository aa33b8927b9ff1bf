// Rows encoded for an insert (JSONEachRow text), apart from the insert
// itself: the analysis workers encode what they derive, and the thread that
// holds the store (the embedded engine lives in one thread of one process)
// only hands the text over.
import type { Store } from './client.js';
import { timedInsert } from './metrics.js';

/** Tables whose rows are encoded this way. */
export type EncodedTable = 'artifacts' | 'events' | 'nodes' | 'edge_sightings';

export interface EncodedRows {
  table: EncodedTable;
  rows: number;
  body: string;
}

export function encodeRows(table: EncodedTable, rows: object[]): EncodedRows {
  return { table, rows: rows.length, body: rows.map((r) => JSON.stringify(r)).join('\n') };
}

/** Rows encoded in parts (slices of a batch) as one insert. */
export function concatEncoded(table: EncodedTable, parts: EncodedRows[]): EncodedRows {
  const filled = parts.filter((p) => p.rows > 0);
  return { table, rows: filled.reduce((n, p) => n + p.rows, 0), body: filled.map((p) => p.body).join('\n') };
}

export async function insertEncoded(store: Store, { table, rows, body }: EncodedRows): Promise<void> {
  if (rows === 0) return;
  // The data follows the statement, as both the HTTP interface and the embedded engine take it. Times are
  // written as toClickHouseTime writes them, which the basic parser reads: the session's best_effort parser
  // cost 4.5 µs an events row of engine time (three times a row), a fifth of the whole insert.
  // optimize_on_insert = 0: the engine does not look for rows of the same key within the insert to fold them
  // (ReplacingMergeTree, AggregatingMergeTree). Each writer sends a key once per insert (the store and parser
  // steps keep one copy of an artifact sent twice in a batch, the enricher one row per node, the edges view
  // groups by edge), and merges still fold across inserts; the search was 4-5 µs of engine CPU an events row.
  const query = `INSERT INTO ${table} SETTINGS date_time_input_format = 'basic', optimize_on_insert = 0 FORMAT JSONEachRow\n${body}`;
  await timedInsert(table, rows, () => store.command({ query }));
}
