// `cairn sql "<query>"`: one read-only query against the configured store,
// printed as an aligned table, JSON lines or CSV (docs/reporting.md). Like
// `cairn user`, it opens the store itself: on the embedded default the
// engine belongs to one process at a time, so `cairn start` must be stopped.
import fs from 'node:fs/promises';
import path from 'node:path';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { Command, Option } from 'commander';
import { stringify } from 'csv-stringify/sync';
import { openStore } from '../../clickhouse/client.js';
import { splitStatements } from '../../clickhouse/migrate.js';
import { loadConfig, type Config } from '../../config/env.js';
import { positiveInteger } from './options.js';

const EXIT_USAGE = 2;
const READ_KEYWORDS = ['SELECT', 'WITH', 'SHOW', 'DESCRIBE', 'DESC', 'EXPLAIN'];
/** clickhouse/migrations/017_read_views.sql */
const READ_VIEWS = ['v_artifacts', 'v_events', 'v_nodes', 'v_edges', 'v_observations', 'v_leads', 'v_incidents', 'v_incident_status_changes', 'v_lead_rules'];
/** Table cells longer than this are cut: one wide value (a raw log line) would otherwise push every other column off screen. */
const CELL_WIDTH = 60;
const FORMATS = ['table', 'json', 'csv'] as const;
type Format = (typeof FORMATS)[number];

/** A query this command will not run: a usage error (exit code 2), not a failure. */
class RefusedQuery extends Error {}

/**
 * The one statement of `text`, checked to be a read. The keyword check gives a
 * clear message; the engine's readonly setting (added when the query runs) is
 * what actually holds, whatever the text hides.
 */
function readOnlyStatement(text: string): string {
  // splitStatements drops -- comments and knows quotes, so a ; inside a string is not a second statement.
  const statements = splitStatements(text);
  if (statements.length === 0) throw new RefusedQuery('the query is empty');
  // The embedded engine runs every statement of a multi-statement text, past the first one's settings.
  if (statements.length > 1) throw new RefusedQuery(`one query at a time (this text holds ${statements.length} statements)`);
  const statement = statements[0]!;
  const keyword = /^[A-Za-z]+/.exec(statement.replace(/^(\s|\/\*[\s\S]*?\*\/|\()+/, ''))?.[0]?.toUpperCase() ?? '';
  if (!READ_KEYWORDS.includes(keyword)) {
    throw new RefusedQuery(`only read-only queries run here (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN)${keyword ? `, not ${keyword}` : ''}`);
  }
  // The embedded engine writes INTO OUTFILE files even in readonly mode.
  if (/\bINTO\s+OUTFILE\b/i.test(statement)) throw new RefusedQuery('INTO OUTFILE is refused: redirect the output instead');
  if (/\bFORMAT\s+[A-Za-z]\w*\s*(SETTINGS\b[^()]*)?$/i.test(statement)) throw new RefusedQuery('a FORMAT clause is refused: use --format table, json or csv');
  return statement;
}

/**
 * The statement with settings that hold for this query only (a SETTINGS
 * clause: the embedded engine has one session, see clickhouse/sql.ts):
 * readonly = 1 last, so the engine refuses any write and any later change of
 * setting; at most `limit` + 1 rows come back (the extra one tells that rows
 * were cut), since the embedded engine hands over its whole result at once.
 * A trailing SETTINGS clause of the query's own gets ours appended: a second
 * clause would apply readonly before the query's own settings and refuse them.
 */
function withReadOnlySettings(statement: string, limit: number): { query: string; added: string } {
  const ours = `max_result_rows = ${limit + 1}, result_overflow_mode = 'break', output_format_json_quote_64bit_integers = 1, readonly = 1`;
  const added = /\bSETTINGS\s+[A-Za-z_]\w*\s*=[^()]*$/i.test(statement) ? `, ${ours}` : ` SETTINGS ${ours}`;
  return { query: `${statement}${added}`, added };
}

/** The pid written in the engine's status file, when that process still runs (and is not this one). */
async function lockHolder(engineDir: string): Promise<number | null> {
  const status = await fs.readFile(path.join(engineDir, 'status'), 'utf8').catch(() => '');
  const pid = Number(/^PID:\s*(\d+)/m.exec(status)?.[1]);
  if (!pid || pid === process.pid) return null;
  try {
    process.kill(pid, 0);
    return pid;
  } catch (err) {
    // EPERM: it runs, as another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? pid : null;
  }
}

/** A client that only reads: the store's own, or a plain one for a read-only server user. */
async function openReader(config: Config): Promise<ClickHouseClient> {
  const { url, user, password, database } = config.clickhouse;
  if (url) {
    // Not openStore: it creates the database, which a read-only user (cairn_reader) may not do.
    return createClient({ url, username: user, password, database, request_timeout: 300_000 });
  }
  const engineDir = path.join(config.dataDir, 'clickhouse');
  if (!(await fs.stat(engineDir).catch(() => null))?.isDirectory()) {
    throw new Error(`no embedded store in ${engineDir}: run \`cairn migrate\` or \`cairn start\` first, or set CAIRN_DATA_DIR (or CAIRN_CLICKHOUSE_URL)`);
  }
  // Checked before opening: the engine says so only on stderr, in a line of its own.
  const holder = await lockHolder(engineDir);
  if (holder) throw new Error(`the embedded store in ${engineDir} is in use by process ${holder} (\`cairn start\`?): stop it first, the embedded engine serves one process at a time`);
  try {
    return await openStore(config);
  } catch (err) {
    throw new Error(`cannot open the embedded store in ${engineDir}: ${oneLine(err)}`);
  }
}

/** A read view the store does not have yet: the store predates migration 017. */
function missingViewHint(err: unknown): string {
  // By code, not class: the embedded engine's errors come from chdb's own copy of the client library.
  const unknownTable = (err as { code?: unknown }).code === '60'; // UNKNOWN_TABLE
  // The name asked for, not the engine's "Maybe you meant ..." suggestion.
  const names = oneLine(err).split('Maybe you meant')[0]!.match(/\bv_[a-z_]+\b/g) ?? [];
  return unknownTable && names.some((name) => READ_VIEWS.includes(name)) ? ' (the read views come with migration 017: run `cairn migrate`)' : '';
}

function oneLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).replace(/\s*\n\s*/g, ' ').trim();
}

interface Result {
  names: string[];
  types: string[];
  rows: unknown[][];
  /** More rows than the limit came back. */
  cut: boolean;
}

async function runQuery(store: ClickHouseClient, statement: string, limit: number): Promise<Result> {
  // A session that is read-only already (a server user with a readonly profile) may not change settings at
  // all, readonly included; its engine refuses writes without us, and rows beyond the limit are not read.
  const [{ readonly } = { readonly: 0 }] = await (await store.query({ query: "SELECT getSetting('readonly') AS readonly", format: 'JSONEachRow' })).json<{ readonly: number }>();
  const { query, added } = Number(readonly) > 0 ? { query: statement, added: '' } : withReadOnlySettings(statement, limit);
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

/** A value as text: strings as they are, NULL as NULL, arrays, maps and tuples as JSON. */
function cellText(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function printTable({ names, types, rows, cut }: Result, limit: number): void {
  let shortened = false;
  const cells = rows.map((row) =>
    row.map((value) => {
      // One row per line: line breaks and tabs inside a value are shown escaped.
      const text = cellText(value).replace(/\r/g, '\\r').replace(/\n/g, '\\n').replace(/\t/g, '\\t');
      if (text.length <= CELL_WIDTH) return text;
      shortened = true;
      return `${text.slice(0, CELL_WIDTH - 1)}…`;
    }),
  );
  const widths = names.map((name, i) => Math.max(name.length, ...cells.map((row) => row[i]!.length)));
  const numeric = types.map((type) => /^(Nullable\()?(U?Int|Float|Decimal)/.test(type));
  const line = (values: string[]) => values.map((v, i) => (numeric[i] ? v.padStart(widths[i]!) : v.padEnd(widths[i]!))).join('  ').trimEnd();
  const out = [line(names), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.map(line)];
  out.push(`(${rows.length} row${rows.length === 1 ? '' : 's'}${cut ? `; more were cut at --limit ${limit}` : ''})`);
  if (shortened) out.push(`(values longer than ${CELL_WIDTH} characters are cut with …; --format json or csv prints them whole)`);
  process.stdout.write(`${out.join('\n')}\n`);
}

function printJsonLines({ names, rows }: Result): void {
  process.stdout.write(rows.map((row) => `${JSON.stringify(Object.fromEntries(names.map((name, i) => [name, row[i]])))}\n`).join(''));
}

function printCsv({ names, rows }: Result): void {
  // RFC 4180: CRLF between records, quotes where a value holds a comma, quote or line break.
  const text = stringify(rows, {
    header: true,
    columns: names,
    record_delimiter: 'windows',
    cast: { boolean: (v) => String(v), object: (v) => JSON.stringify(v) },
  });
  process.stdout.write(text);
}

interface SqlOptions {
  format: Format;
  limit: number;
}

export function sqlCommand(): Command {
  return new Command('sql')
    .description('run one read-only query (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN) against the store and print the rows; on the embedded default, stop `cairn start` first (docs/reporting.md)')
    .argument('<query>', 'the query, e.g. "SELECT status_name, count() FROM v_incidents GROUP BY status_name"')
    .addOption(new Option('--format <format>', 'output: an aligned table, JSON lines, or CSV (RFC 4180)').choices(FORMATS).default('table'))
    .option('--limit <rows>', 'print at most this many rows', positiveInteger, 1000)
    .action(async (text: string, options: SqlOptions, command: Command) => {
      let statement: string;
      try {
        statement = readOnlyStatement(text);
      } catch (err) {
        if (err instanceof RefusedQuery) command.error(`cairn: ${err.message}`, { exitCode: EXIT_USAGE, code: 'cairn.usage' });
        throw err;
      }
      const store = await openReader(loadConfig());
      let result: Result;
      try {
        result = await runQuery(store, statement, options.limit);
      } catch (err) {
        throw new Error(`query failed: ${oneLine(err)}${missingViewHint(err)}`);
      } finally {
        await store.close();
      }
      if (options.format === 'json') printJsonLines(result);
      else if (options.format === 'csv') printCsv(result);
      else printTable(result, options.limit);
      // The table says so in its footer; JSON lines and CSV stay data only, so the note goes to stderr.
      if (result.cut && options.format !== 'table') process.stderr.write(`cairn: printed the first ${options.limit} rows; more were cut (--limit)\n`);
    });
}
