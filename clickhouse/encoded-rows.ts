// Rows encoded for an insert (RowBinary, row-binary.ts), apart from the
// insert itself: the analysis workers encode what they derive, and the
// thread that holds the store (the embedded engine lives in one thread of one
// process) only hands the bytes over.
import type { Store } from './client.js';
import { timedInsert } from './metrics.js';
import type { RowBinaryWriter, RowColumns } from './row-binary.js';

/** Tables whose rows are encoded this way. */
export type EncodedTable = 'artifacts' | 'events' | 'nodes' | 'edge_sightings';

export interface EncodedRows {
  table: EncodedTable;
  /** The columns each row holds, in order, with their types. */
  columns: RowColumns;
  rows: number;
  /** RowBinary. */
  body: Uint8Array;
  /** Where each row starts in `body`, so that rows can be left out (withoutRows). */
  rowStarts: Uint32Array;
}

/** What a writer holds as rows of `table`. */
export function encodedRows(table: EncodedTable, columns: RowColumns, writer: RowBinaryWriter): EncodedRows {
  const { body, rowStarts } = writer.finish();
  return { table, columns, rows: rowStarts.length, body, rowStarts };
}

/** The rows without those `drop` names by their place. */
export function withoutRows(encoded: EncodedRows, drop: (row: number) => boolean): EncodedRows {
  const kept: Uint8Array[] = [];
  const rowStarts: number[] = [];
  let length = 0;
  for (let row = 0; row < encoded.rows; row++) {
    if (drop(row)) continue;
    const end = row + 1 < encoded.rows ? encoded.rowStarts[row + 1]! : encoded.body.length;
    const bytes = encoded.body.subarray(encoded.rowStarts[row]!, end);
    rowStarts.push(length);
    kept.push(bytes);
    length += bytes.length;
  }
  return { ...encoded, rows: rowStarts.length, body: Buffer.concat(kept, length), rowStarts: Uint32Array.from(rowStarts) };
}

/** Encodings of one table's rows as one, for a single insert. */
export function concatRows(parts: EncodedRows[]): EncodedRows {
  const first = parts[0];
  if (!first) throw new Error('concatRows needs at least one part');
  if (parts.length === 1) return first;
  const rowStarts = new Uint32Array(parts.reduce((n, p) => n + p.rows, 0));
  let row = 0;
  let offset = 0;
  for (const part of parts) {
    if (part.table !== first.table) throw new Error(`concatRows: rows of ${part.table} and ${first.table}`);
    for (let r = 0; r < part.rows; r++) rowStarts[row++] = part.rowStarts[r]! + offset;
    offset += part.body.length;
  }
  return { ...first, rows: rowStarts.length, body: Buffer.concat(parts.map((p) => p.body), offset), rowStarts };
}

export async function insertEncoded(store: Store, { table, columns, rows, body }: EncodedRows): Promise<void> {
  if (rows === 0) return;
  // optimize_on_insert = 0: the engine does not look for rows of the same key within the insert to fold them
  // (ReplacingMergeTree, AggregatingMergeTree). Each writer sends a key once per insert (the store and parser
  // steps keep one copy of an artifact sent twice in a batch, the enricher one row per node, the edges view
  // groups by edge), and merges still fold across inserts; the search was 4-5 µs of engine CPU an events row.
  await timedInsert(table, rows, () => store.insertRowBinary({ table, columns, body, settings: { optimize_on_insert: 0 } }));
}
