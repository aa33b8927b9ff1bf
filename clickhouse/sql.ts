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

/**
 * The query with its own SETTINGS clause. Settings given to the client apply
 * to the session, and the embedded engine has one session: there they would
 * stay for every later query (an optimize_read_in_order = 0 for one search
 * made the next ones sort everything). A SETTINGS clause ends with its query.
 */
function withSettings(query: string, settings: Record<string, string | number> | undefined): string {
  const clause = settingsClause(settings);
  return clause ? `${query} ${clause}` : query;
}

/** `SETTINGS a = 1, b = 'x'` of plain settings (names and values of word characters), or '' for none. */
export function settingsClause(settings: Record<string, string | number> | undefined): string {
  const entries = Object.entries(settings ?? {});
  if (entries.length === 0) return '';
  for (const [name, value] of entries) {
    if (!/^[a-z_]+$/.test(name) || !/^[\w.]+$/.test(String(value))) throw new Error(`not a plain setting: ${name} = ${value}`);
  }
  return `SETTINGS ${entries.map(([name, value]) => `${name} = ${typeof value === 'number' ? value : `'${value}'`}`).join(', ')}`;
}

/** Runs a SELECT whose values are in `params`, rows as JSON objects; `settings` hold for this query only. */
export async function queryRows(store: Store, query: string, params: SqlParams, settings?: Record<string, string | number>): Promise<unknown[]> {
  const result = await store.query({ query: withSettings(query, settings), query_params: params.values, format: 'JSONEachRow' });
  return result.json();
}

/** Runs one page of `query` and the count of all its rows: what every list answers. */
export async function queryPage(store: Store, { query, params, orderBy, page, settings }: PagedQuery): Promise<{ rows: unknown[]; total: number }> {
  const pageQuery = `${query} ORDER BY ${orderBy} LIMIT ${params.add(page.limit, 'UInt32')} OFFSET ${params.add(page.offset, 'UInt64')}`;
  const [rows, counted] = await Promise.all([queryRows(store, pageQuery, params, settings), queryRows(store, `SELECT count() AS total FROM (${query})`, params, settings)]);
  return { rows, total: Number((counted[0] as { total?: string } | undefined)?.total ?? 0) };
}
