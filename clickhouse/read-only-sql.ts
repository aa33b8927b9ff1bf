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
  if (!settings) return { query: statement, added: '' };
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
export async function runReadOnlyQuery(store: ClickHouseClient, read: ReadStatement, limit: number): Promise<ReadResult> {
  const { statement } = read;
  // A session that is read-only already (a server user with a readonly profile) may not change settings at
  // all, readonly included; its engine refuses writes without us, and rows beyond the limit are not read.
  const [{ readonly } = { readonly: 0 }] = await (await store.query({ query: "SELECT getSetting('readonly') AS readonly", format: 'JSONEachRow' })).json<{ readonly: number }>();
  const readOnlySession = Number(readonly) > 0;
  const ours = `max_result_rows = ${limit + 1}, result_overflow_mode = 'break', output_format_json_quote_64bit_integers = 1, readonly = 1`;
  const { query, added } = readOnlySession ? { query: statement, added: '' } : withSettings(statement, ours);
  const forgetAdded = (err: unknown) => {
    // Errors quote the query: show the one the user wrote, without the settings added here.
    if (err instanceof Error) for (const text of [added, ' SETTINGS readonly = 1', ', readonly = 1']) if (text) err.message = err.message.replaceAll(text, '');
    throw err;
  };
  // The engine runs file() (a file of the machine as a string) even with readonly = 1: refused by name.
  const forbidden = read.keyword === 'SELECT' || read.keyword === 'WITH'
    ? (await queryTreeReads(store, statement, {}, readOnlySession ? '' : 'readonly = 1').catch(forgetAdded)).forbiddenFunctions
    : forbiddenCallsInText(statement);
  if (forbidden.length) throw new RefusedQuery(`${forbidden[0]}() reads outside the store's tables and is refused here`);
  const result = await store.query({ query, format: 'JSONCompactEachRowWithNamesAndTypes' }).catch(forgetAdded);
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

/**
 * Scalar functions that read something other than the query's tables: files
 * of the machine (file, which the engine runs even with readonly = 1),
 * dictionaries and Join tables (which name tables the query tree does not
 * list), server settings.
 */
const FORBIDDEN_FUNCTIONS = /^(file|dictGet\w*|dictHas|dictIsIn|dictGetHierarchy|dictGetChildren|dictGetDescendants|joinGet\w*|catboostEvaluate|naiveBayesClassifier|getServerSetting|getMergeTreeSetting|hasColumnInTable|getClientHTTPHeader)$/i;

export interface TreeReads {
  /** Tables and views read, as database.name. */
  tables: string[];
  /** Table functions called (numbers, merge, file, ...). */
  tableFunctions: string[];
  /** Forbidden scalar functions called (FORBIDDEN_FUNCTIONS). */
  forbiddenFunctions: string[];
}

/**
 * What a SELECT reads, from the engine's own analysis (EXPLAIN QUERY TREE:
 * views stay views there, subqueries, IN tables and scalar subqueries are
 * all in the tree), so that no spelling of a name escapes the check. The
 * engine folds constant expressions while it analyses, so `settings` (the
 * caller's limits and readonly = 1) apply to the EXPLAIN too.
 */
export async function queryTreeReads(store: ClickHouseClient, statement: string, queryParams: Record<string, unknown>, settings: string): Promise<TreeReads> {
  const result = await store.exec({ query: `EXPLAIN QUERY TREE ${withSettings(statement, settings).query} FORMAT TSV`, query_params: queryParams });
  const chunks: Buffer[] = [];
  for await (const chunk of result.stream) chunks.push(chunk as Buffer);
  const reads: TreeReads = { tables: [], tableFunctions: [], forbiddenFunctions: [] };
  // TSV escapes line breaks inside values, so each line is one node and a string constant cannot start one.
  for (const line of Buffer.concat(chunks).toString('utf8').split('\n')) {
    const node = /^\s*(TABLE|TABLE_FUNCTION|FUNCTION) id: \d+,.*?\b(table_name|table_function_name|function_name): ([^,\s]+)/.exec(line);
    if (!node) continue;
    const [, kind, , name] = node as unknown as [string, string, string, string];
    if (kind === 'TABLE') reads.tables.push(name);
    else if (kind === 'TABLE_FUNCTION') reads.tableFunctions.push(name);
    else if (FORBIDDEN_FUNCTIONS.test(name)) reads.forbiddenFunctions.push(name);
  }
  return reads;
}

/** Names called as functions in the text, outside strings and comments: for statements the query tree cannot show (EXPLAIN, SHOW). */
export function forbiddenCallsInText(statement: string): string[] {
  const calls: string[] = [];
  const words = tokens(statement);
  for (let i = 0; i + 1 < words.length; i++) if (words[i + 1] === '(' && FORBIDDEN_FUNCTIONS.test(words[i]!)) calls.push(words[i]!);
  return calls;
}

/**
 * The names of the settings every SETTINGS clause of the statement sets, the
 * clauses of subqueries included: the engine applies a subquery's settings
 * without checking them against readonly (ClickHouse 25), so a caller limited
 * by settings must see them all.
 */
export function settingsNamedIn(statement: string): string[] {
  const words = tokens(statement);
  const names: string[] = [];
  for (let i = 0; i < words.length; i++) {
    if (words[i]!.toUpperCase() !== 'SETTINGS') continue;
    let j = i + 1;
    while (j + 1 < words.length && /^[A-Za-z_]\w*$/.test(words[j]!) && words[j + 1] === '=') {
      names.push(words[j]!);
      j = afterValue(words, j + 2);
      if (words[j] !== ',') break;
      j++;
    }
  }
  return names;
}

/** The index after a setting's value starting at `i`: a literal (maybe signed), or a bracketed one ({...}, [...], (...)). */
function afterValue(words: string[], i: number): number {
  if (words[i] === '-' || words[i] === '+') i++;
  if (!'([{'.includes(words[i] ?? 'x')) return i + 1;
  let depth = 0;
  do {
    const w = words[i]!;
    if ('([{'.includes(w)) depth++;
    else if (')]}'.includes(w)) depth--;
    i++;
  } while (depth > 0 && i < words.length);
  return i;
}

/** Words, numbers and single punctuation of SQL text; strings, quoted names and comments are one opaque token ("'"). */
function tokens(sql: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '-' && sql[i + 1] === '-') i = lineEnd(sql, i);
    else if (c === '#') i = lineEnd(sql, i);
    else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      i++;
      while (i < sql.length && sql[i] !== c) i += sql[i] === '\\' ? 2 : 1;
      i++;
      out.push(c === "'" ? "'" : '"');
    } else if (/[A-Za-z_0-9.]/.test(c)) {
      const start = i;
      while (i < sql.length && /[A-Za-z_0-9.$]/.test(sql[i]!)) i++;
      out.push(sql.slice(start, i));
    } else {
      out.push(c);
      i++;
    }
  }
  return out;
}

function lineEnd(sql: string, from: number): number {
  const end = sql.indexOf('\n', from);
  return end < 0 ? sql.length : end + 1;
}
