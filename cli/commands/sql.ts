// `cairn sql "<query>"`: one read-only query against the configured store,
// printed as an aligned table, JSON lines or CSV (docs/reporting.md). Like
// `cairn user`, it opens the store itself; on the embedded default, while a
// running cairn holds the engine (it serves one process at a time), it sends
// the query to that cairn's POST /v1/sql instead, which checks and runs it
// the same way (clickhouse/read-only-sql.ts).
import fs from 'node:fs/promises';
import { createClient, type ClickHouseClient } from '@clickhouse/client';
import { Command, Option } from 'commander';
import { stringify } from 'csv-stringify/sync';
import { openStore } from '../../clickhouse/client.js';
import { missingViewHint, oneLine, readOnlyStatement, RefusedQuery, runReadOnlyQuery, type ReadResult, type ReadStatement } from '../../clickhouse/read-only-sql.js';
import { loadConfig, type Config } from '../../config/env.js';
import { apiTarget, callApi, withApiTargetOptions, type ApiTargetOptions } from '../api-target.js';
import { embeddedStoreHolder, engineDirOf } from '../store-holder.js';
import { positiveInteger } from './options.js';

const EXIT_USAGE = 2;
/** Table cells longer than this are cut: one wide value (a raw log line) would otherwise push every other column off screen. */
const CELL_WIDTH = 60;
const FORMATS = ['table', 'json', 'csv'] as const;
type Format = (typeof FORMATS)[number];
type Result = ReadResult;

/** A client that only reads: the store's own, or a plain one for a read-only server user. */
async function openReader(config: Config): Promise<ClickHouseClient> {
  const { url, user, password, database } = config.clickhouse;
  if (url) {
    // Not openStore: it creates the database, which a read-only user (cairn_reader) may not do.
    return createClient({ url, username: user, password, database, request_timeout: 300_000 });
  }
  const engineDir = engineDirOf(config);
  if (!(await fs.stat(engineDir).catch(() => null))?.isDirectory()) {
    throw new Error(`no embedded store in ${engineDir}: run \`cairn migrate\` or \`cairn start\` first, or set CAIRN_DATA_DIR (or CAIRN_CLICKHOUSE_URL)`);
  }
  try {
    return await openStore(config);
  } catch (err) {
    throw new Error(`cannot open the embedded store in ${engineDir}: ${oneLine(err)}`);
  }
}

/** The query on the store this process opens. */
async function queryStore(config: Config, statement: ReadStatement, limit: number): Promise<Result> {
  const store = await openReader(config);
  try {
    return await runReadOnlyQuery(store, statement, limit);
  } catch (err) {
    throw new Error(`query failed: ${oneLine(err)}${missingViewHint(err)}`);
  } finally {
    await store.close();
  }
}

/** The query through the running cairn `holder` that holds the embedded store. */
async function queryServer(config: Config, holder: number, statement: ReadStatement, limit: number, options: ApiTargetOptions): Promise<Result> {
  const target = await apiTarget(options, { subject: 'cairn-sql', permissions: ['admin'], ttlSeconds: 300 }).catch((err: Error) => {
    throw new Error(`the embedded store in ${engineDirOf(config)} is in use by process ${holder} (\`cairn start\`?) and ${err.message}`);
  });
  const answer = await callApi<Result>(target, 'POST', '/v1/sql', { query: statement.statement, limit });
  if (answer.status === 200 && answer.data) return answer.data;
  // The server's message already carries the view hint; its refusals are the ones checked here first.
  if (answer.code === 'query_failed' || answer.code === 'refused_query') throw new Error(`query failed: ${answer.message}`);
  throw new Error(`POST ${target.url}/api/v1/sql answered ${answer.status}: ${answer.message}`);
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

interface SqlOptions extends ApiTargetOptions {
  format: Format;
  limit: number;
}

export function sqlCommand(): Command {
  const command = new Command('sql')
    .description('run one read-only query (SELECT, WITH, SHOW, DESCRIBE, EXPLAIN) against the store and print the rows; through the running cairn when one holds the embedded store (docs/reporting.md)')
    .argument('<query>', 'the query, e.g. "SELECT status_name, count() FROM v_incidents GROUP BY status_name"')
    .addOption(new Option('--format <format>', 'output: an aligned table, JSON lines, or CSV (RFC 4180)').choices(FORMATS).default('table'))
    .option('--limit <rows>', 'print at most this many rows', positiveInteger, 1000);
  // Used only while a running cairn holds the embedded store.
  return withApiTargetOptions(command, 'admin', { org: false }).action(async (text: string, options: SqlOptions) => {
      let statement: ReadStatement;
      try {
        statement = readOnlyStatement(text);
      } catch (err) {
        if (err instanceof RefusedQuery) command.error(`cairn: ${err.message}`, { exitCode: EXIT_USAGE, code: 'cairn.usage' });
        throw err;
      }
      const config = loadConfig();
      const holder = await embeddedStoreHolder(config);
      const result = holder ? await queryServer(config, holder, statement, options.limit, options) : await queryStore(config, statement, options.limit);
      if (options.format === 'json') printJsonLines(result);
      else if (options.format === 'csv') printCsv(result);
      else printTable(result, options.limit);
      // The table says so in its footer; JSON lines and CSV stay data only, so the note goes to stderr.
      if (result.cut && options.format !== 'table') process.stderr.write(`cairn: printed the first ${options.limit} rows; more were cut (--limit)\n`);
    });
}
