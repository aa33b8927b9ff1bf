// What a reporting query may read: the read views (v_*) of the caller's
// organization, and the empty or descriptive system tables BI tools look at
// (system.one, system.numbers; system.databases, .tables and .columns,
// showing the views only). Two things hold it: the engine's own analysis of
// the query lists every table it reads (clickhouse/read-only-sql.ts
// queryTreeReads), refused unless allowed; and ClickHouse's
// additional_table_filters setting keeps each view to the organization's
// rows and the system tables to the views, with readonly = 1 after it so the
// query cannot change it.
import { queryTreeReads, READ_VIEWS, settingsNamedIn, withSettings } from '../../clickhouse/read-only-sql.js';
import type { Store } from '../../clickhouse/client.js';
import { ClickHouseHttpError, ErrorCode, settingValue, sqlString } from './protocol.js';

/** Settings a query's own SETTINGS clauses may set: output formatting only. */
const SETTINGS_IN_TEXT = /^(output_format_\w+|format_csv_\w+|format_tsv_\w+|date_time_output_format)$/;

const READABLE_SYSTEM_TABLES = ['system.one', 'system.numbers', 'system.numbers_mt', 'system.databases', 'system.tables', 'system.columns'];

export interface Limits {
  maxExecutionSeconds: number;
  maxMemoryBytes: number;
}

export class ReportingScope {
  private readonly allowed: Set<string>;
  private readonly filters: string;

  constructor(
    readonly database: string,
    readonly orgId: string,
  ) {
    this.allowed = new Set([...READ_VIEWS.map((v) => `${database}.${v}`), ...READABLE_SYSTEM_TABLES]);
    const views = READ_VIEWS.map(sqlString).join(', ');
    const filter: [string, string][] = [
      ...READ_VIEWS.map((v): [string, string] => [`${database}.${v}`, `org_id = ${sqlString(orgId)}`]),
      ['system.databases', `name = ${sqlString(database)}`],
      ['system.tables', `database = ${sqlString(database)} AND name IN (${views})`],
      ['system.columns', `database = ${sqlString(database)} AND table IN (${views})`],
    ];
    this.filters = `additional_table_filters = {${filter.map(([table, condition]) => `${sqlString(table)}: ${sqlString(condition)}`).join(', ')}}`;
  }

  /** Refuses a statement that reads anything but the allowed tables, or sets settings beyond formatting. */
  async check(store: Store, statement: string, keyword: string, params: Record<string, string>, limits: Limits): Promise<void> {
    const setting = settingsNamedIn(statement).find((name) => !SETTINGS_IN_TEXT.test(name));
    if (setting) throw new ClickHouseHttpError(ErrorCode.READONLY, `Cannot modify '${setting}' setting in readonly mode`);
    if (keyword === 'DESCRIBE' || keyword === 'DESC') {
      const table = /^\s*DESC(?:RIBE)?\s+(?:TABLE\s+)?((?:`?\w+`?\.)?`?\w+`?)\s*$/i.exec(statement)?.[1]?.replaceAll('`', '');
      if (!table) throw this.denied('DESCRIBE of a read view (DESCRIBE TABLE v_incidents)');
      if (!this.allowed.has(table.includes('.') ? table : `${this.database}.${table}`)) throw this.denied(table);
      return;
    }
    // EXPLAIN and SHOW would show what the engine folds (file contents, other tables' values) and what it holds.
    if (keyword !== 'SELECT' && keyword !== 'WITH') throw this.denied(`${keyword} (only SELECT and DESCRIBE run here)`);
    const reads = await queryTreeReads(store, statement, params, this.limitSettings(limits, new Map()));
    const refused = [...reads.tables.filter((t) => !this.allowed.has(t)), ...reads.tableFunctions.map((f) => `${f}()`), ...reads.forbiddenFunctions.map((f) => `${f}()`)];
    if (refused.length) throw this.denied(refused[0]!);
  }

  /** The statement with the client's honoured settings, the scope's filters and limits, and readonly = 1 last. */
  settle(statement: string, limits: Limits, clientSettings: Map<string, string>): string {
    return withSettings(statement, this.limitSettings(limits, clientSettings)).query;
  }

  private limitSettings(limits: Limits, clientSettings: Map<string, string>): string {
    const asked = Number(clientSettings.get('max_execution_time'));
    // A client may ask for less time (Grafana sends its own), never more.
    const seconds = Number.isFinite(asked) && asked > 0 ? Math.min(asked, limits.maxExecutionSeconds) : limits.maxExecutionSeconds;
    const theirs = [...clientSettings].filter(([name]) => name !== 'max_execution_time').map(([name, value]) => `${name} = ${settingValue(value)}`);
    return [
      // ClickHouse's default, which clients expect (JavaScript numbers cannot hold 64-bit integers); the embedded engine's is 0.
      ...(clientSettings.has('output_format_json_quote_64bit_integers') ? [] : ['output_format_json_quote_64bit_integers = 1']),
      ...theirs,
      this.filters,
      `max_execution_time = ${seconds}`,
      "timeout_overflow_mode = 'throw'",
      `max_memory_usage = ${limits.maxMemoryBytes}`,
      'readonly = 1',
    ].join(', ');
  }

  private denied(what: string): ClickHouseHttpError {
    return new ClickHouseHttpError(
      ErrorCode.ACCESS_DENIED,
      `Not enough privileges: this interface reads the read views (v_*) of organization ${this.orgId} only, not ${what}`,
    );
  }
}
