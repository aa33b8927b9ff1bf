// The saved_searches table: rows, writes and the queries the API needs.
// Who may see a row is decided by the caller's filter (`visibleTo`), so the
// list and its total count only what the caller may see.
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

/** What a saved search selects besides its query; `range` and `start`/`end` exclude each other (checked by the API). */
export interface SavedSearchFilters {
  source?: string;
  /** ISO 8601, inclusive. */
  start?: string;
  /** ISO 8601, exclusive. */
  end?: string;
  /** Relative to the time of each request, e.g. "last 24h". */
  range?: string;
}

export interface SavedSearch {
  id: string;
  org_id: string;
  name: string;
  query: string;
  filters: SavedSearchFilters;
  /** A user id, or the subject of an operator token. */
  created_by: string;
  shared: boolean;
  created_at: string;
  updated_at: string;
}

const Row = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  query: z.string(),
  filters: z.string(),
  created_by: z.string(),
  shared: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

// Read back loosely: the API validated the filters when they were written.
const StoredFilters = z.object({ source: z.string().optional(), start: z.string().optional(), end: z.string().optional(), range: z.string().optional() });

const COLUMNS = 'id, org_id, name, query, filters, created_by, shared, created_at, updated_at';

function fromRow(row: unknown): SavedSearch {
  const r = Row.parse(row);
  return {
    ...r,
    filters: StoredFilters.parse(JSON.parse(r.filters)),
    created_at: toIsoTimestamp(r.created_at),
    updated_at: toIsoTimestamp(r.updated_at),
  };
}

async function insertVersion(store: Store, search: SavedSearch, isDeleted: boolean): Promise<void> {
  await store.insert({
    table: 'saved_searches',
    format: 'JSONEachRow',
    values: [{ ...search, filters: JSON.stringify(search.filters), version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }],
  });
}

export const saveSavedSearch = (store: Store, search: SavedSearch) => insertVersion(store, search, false);
export const deleteSavedSearch = (store: Store, search: SavedSearch) => insertVersion(store, { ...search, updated_at: new Date().toISOString() }, true);

/** One saved search of the organization, whoever made it (the API decides who may see it). */
export async function getSavedSearch(store: Store, orgId: string, id: string): Promise<SavedSearch | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT ${COLUMNS} FROM saved_searches FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')}`, params);
  return rows[0] ? fromRow(rows[0]) : null;
}

export interface SavedSearchFilter extends Page {
  /** Only the shared searches and this creator's own; absent: all of them (an admin). */
  visibleTo?: string;
  shared?: boolean;
  /** Only those this creator made. */
  createdBy?: string;
  /** Only those someone other than this creator made. */
  notCreatedBy?: string;
}

/** By name, then id, so pages are stable. */
export async function listSavedSearches(store: Store, orgId: string, filter: SavedSearchFilter): Promise<{ searches: SavedSearch[]; total: number }> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.visibleTo !== undefined) where.push(`shared OR created_by = ${params.add(filter.visibleTo, 'String')}`);
  if (filter.shared !== undefined) where.push(`shared = ${params.add(filter.shared, 'Bool')}`);
  if (filter.createdBy !== undefined) where.push(`created_by = ${params.add(filter.createdBy, 'String')}`);
  if (filter.notCreatedBy !== undefined) where.push(`created_by != ${params.add(filter.notCreatedBy, 'String')}`);
  const { rows, total } = await queryPage(store, { query: `SELECT ${COLUMNS} FROM saved_searches FINAL ${whereClause(where)}`, params, orderBy: 'name, id', page: filter });
  return { searches: rows.map(fromRow), total };
}
