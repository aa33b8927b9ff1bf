// Building WHERE clauses from parts without ever putting a value into SQL
// text: every value becomes a typed {pN:Type} parameter that ClickHouse binds.
import type { Store } from './client.js';

export class SqlParams {
  readonly values: Record<string, unknown> = {};
  private next = 0;

  /** Registers a value and returns its placeholder, e.g. {p3:String}. */
  add(value: unknown, type: string): string {
    const name = `p${this.next++}`;
    this.values[name] = value;
    return `{${name}:${type}}`;
  }
}

export function whereClause(conditions: string[]): string {
  return conditions.length ? `WHERE ${conditions.map((c) => `(${c})`).join(' AND ')}` : '';
}

export interface Page {
  limit: number;
  offset: number;
}

export interface PagedQuery {
  /** A SELECT without ORDER BY or LIMIT, its values in `params`. */
  query: string;
  params: SqlParams;
  orderBy: string;
  page: Page;
  settings?: Record<string, string | number>;
}

/** Runs a SELECT whose values are in `params`, rows as JSON objects. */
export async function queryRows(store: Store, query: string, params: SqlParams, settings?: Record<string, string | number>): Promise<unknown[]> {
  const result = await store.query({ query, query_params: params.values, format: 'JSONEachRow', clickhouse_settings: settings });
  return result.json();
}

/** Runs one page of `query` and, beside it, the count of all its rows: what every list answers. */
export async function queryPage(store: Store, { query, params, orderBy, page, settings }: PagedQuery): Promise<{ rows: unknown[]; total: number }> {
  const [rows, counted] = await Promise.all([
    queryRows(store, `${query} ORDER BY ${orderBy} LIMIT ${params.add(page.limit, 'UInt32')} OFFSET ${params.add(page.offset, 'UInt64')}`, params, settings),
    queryRows(store, `SELECT count() AS total FROM (${query})`, params, settings),
  ]);
  return { rows, total: Number((counted[0] as { total?: string } | undefined)?.total ?? 0) };
}
