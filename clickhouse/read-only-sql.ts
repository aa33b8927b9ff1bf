// Read-only SQL as users write it: one statement, checked to be a read, run
// with the engine's readonly setting. `cairn sql` (its own store, or a running
// cairn's POST /v1/sql) and the ClickHouse HTTP interface for BI tools
// (api/clickhouse-http) check and run queries through here, so they refuse
// the same things with the same words.
import type { ClickHouseClient } from '@clickhouse/client';
import { splitStatements } from './migrate.js';

const READ_KEYWORDS = ['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN'];
/** clickhouse/migrations/017_read_views.sql */
export const READ_VIEWS = ['v_artifacts', 'v_events', 'v_nodes', 'v_edges', 'v_observations', 'v_leads', 'v_incidents', 'v_incident_status_changes', 'v_lead_rules'];

/** A query refused before it runs: a usage error, not a failure of the store. */
export class RefusedQuery extends Error {}

/** A trailing `FORMAT name` (optionally before a last SETTINGS clause without parentheses). */
const FORMAT_CLAUSE = /\bFORMAT\s+([A-Za-z]\w*)\s*(SETTINGS\b[^()]*)?$/i;

export interface ReadStatement {
  /** The statement without a trailing FORMAT clause. */
  statement: string;
  /** The leading keyword, upper case: SELECT, WITH, SHOW, DESCRIBE, DESC or EXPLAIN. */
  keyword: string;
  /** The format its FORMAT clause named, when `formatClause` is 'take'. */
  format: string | null;
}

/**
 * The one statement of `text`, checked to be a read. The keyword check gives a
 * clear message; the engine's readonly setting (added when the query runs) is
 * what actually holds, whatever the text hides. A FORMAT clause is refused
 * (`cairn sql` has --format) or taken off and returned (the HTTP interface).
 */
export function readOnlyStatement(text: string, formatClause: 'refuse' | 'take' = 'refuse'): ReadStatement {
  // splitStatements drops -- comments and knows quotes, so a ; inside a string is not a second statement.
  const statements = splitStatements(text);
  if (statements.length === 0) throw new RefusedQuery('the query is empty');
  // The embedded engine runs every statement of a multi-statement text, past the first one's settings.
  if (statements.length > 1) throw new RefusedQuery(`one query at a time (this text holds ${statements.length} statements)`);
  let statement = statements[0]!;
  const keyword = /^[A-Za-z]+/.exec(statement.replace(/^(\s|\/\*[\s\S]*?\*\/|\()+/, ''))?.[0]?.toUpperCase() ?? '';
  if (!READ_KEYWORDS.includes(keyword)) {
    throw new RefusedQuery(`only read-only queries run here (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN)${keyword ? `, not ${keyword}` : ''}`);
  }
  // The embedded engine writes INTO OUTFILE files even in readonly mode.
  if (/\bINTO\s+OUTFILE\b/i.test(statement)) throw new RefusedQuery('INTO OUTFILE is refused: redirect the output instead');
  let format: string | null = null;
  const clause = FORMAT_CLAUSE.exec(statement);
  if (clause) {
    if (formatClause === 'refuse') throw new RefusedQuery('a FORMAT clause is refused: use --format table, json or csv');
    format = clause[1]!;
    statement = `${statement.slice(0, clause.index).trimEnd()}${clause[2] ? ` ${clause[2].trim()}` : ''}`;
  }
  return { statement, keyword, format };
}

/**
 * The statement with `settings` for this query only, as a SETTINGS clause (the
 * embedded engine has one session per connection, see clickhouse/sql.ts).
 * Callers put readonly = 1 last, so the engine refuses any write and any later
 * change of setting. A trailing SETTINGS clause of the query's own gets ours
 * appended (later ones win): a second clause would apply readonly before the
 * query's own settings and refuse them.
 */
export function withSettings(statement: string, settings: string): { query: string; added: string } {
  const added = /\bSETTINGS\s+[A-Za-z_]\w*\s*=[^()]*$/i.test(statement) ? `, ${settings}` : ` SETTINGS ${settings}`;
  return { query: `${statement}${added}`, added };
}

export interface ReadResult {
  names: string[];
  types: string[];
  rows: unknown[][];
  /** More rows than the limit came back. */
  cut: boolean;
}

/**
 * Runs a statement readOnlyStatement passed, reading at most `limit` rows:
 * readonly = 1 last, at most `limit` + 1 rows (the extra one tells that rows
 * were cut), since the embedded engine hands over its whole result at once;
 * 64-bit integers as JSON strings.
 */
export async function runReadOnlyQuery(store: ClickHouseClient, statement: string, limit: number): Promise<ReadResult> {
  // A session that is read-only already (a server user with a readonly profile) may not change settings at
  // all, readonly included; its engine refuses writes without us, and rows beyond the limit are not read.
  const [{ readonly } = { readonly: 0 }] = await (await store.query({ query: "SELECT getSetting('readonly') AS readonly", format: 'JSONEachRow' })).json<{ readonly: number }>();
  const ours = `max_result_rows = ${limit + 1}, result_overflow_mode = 'break', output_format_json_quote_64bit_integers = 1, readonly = 1`;
  const { query, added } = Number(readonly) > 0 ? { query: statement, added: '' } : withSettings(statement, ours);
  const result = await store.query({ query, format: 'JSONCompactEachRowWithNamesAndTypes' }).catch((err: unknown) => {
    // Errors quote the query: show the one the user wrote, without the settings added here.
    if (added && err instanceof Error) err.message = err.message.replaceAll(added, '');
    throw err;
  });
  const lines: unknown[][] = [];
  try {
    read: for await (const batch of result.stream<unknown[]>()) {
      for (const row of batch) {
        lines.push(row.json());
        if (lines.length > limit + 2) break read; // names, types, limit rows and one more
      }
    }
  } finally {
    result.close();
  }
  const [names = [], types = [], ...rows] = lines as [string[], string[], ...unknown[][]];
  return { names, types, rows: rows.slice(0, limit), cut: rows.length > limit };
}

/** A hint for a read view the store does not have yet: the store predates migration 017. */
export function missingViewHint(err: unknown): string {
  // By code, not class: the embedded engine's errors come from chdb's own copy of the client library.
  const unknownTable = String((err as { code?: unknown }).code) === '60'; // UNKNOWN_TABLE
  // The name asked for, not the engine's "Maybe you meant ..." suggestion.
  const names = oneLine(err).split('Maybe you meant')[0]!.match(/\bv_[a-z_]+\b/g) ?? [];
  return unknownTable && names.some((name) => READ_VIEWS.includes(name)) ? ' (the read views come with migration 017: run `cairn migrate`)' : '';
}

/** An error's message on one line. */
export function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ').trim();
}
