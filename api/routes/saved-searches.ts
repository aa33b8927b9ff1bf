// Saved searches (SPEC 2.9, 4.9; docs/saved-searches.md): a named query of
// the query language with its filters, private to its creator unless shared,
// and their results (a cairn extension) through the same search code as
// GET /v1/artifacts, so a saved search selects what the same search would.
//
// Who sees what: a private search exists only for its creator (anyone else
// gets 404, as for an id that does not exist, so ids are not confirmed); a
// shared one is seen by everyone with signals:read in the organization, but
// only its creator changes or deletes it (403 for the others, who already
// know it exists). The `admin` permission sees, changes and deletes all.
import { z } from 'zod';
import { deleteSavedSearch, getSavedSearch, listSavedSearches, saveSavedSearch, type SavedSearch, type SavedSearchFilters } from '../../clickhouse/tables/saved-searches.js';
import type { ArtifactPage } from '../../clickhouse/tables/artifacts.js';
import { parseDuration } from '../../lib/duration.js';
import { newId } from '../../lib/ids.js';
import { parseQuery, QuerySyntaxError } from '../../query/parse.js';
import type { AuthContext } from '../auth.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import { ArtifactSchema } from './artifacts.js';
import { defineRoute } from '../route.js';
import { COUNTED_MATCHES, searchArtifactPage } from '../search-sql.js';
import { IdParams, listData, Pagination, QueryBoolean, Timestamp } from '../schemas.js';

/** The longest relative range: ten years, far past any retention worth searching. */
const MAX_RANGE_DAYS = 3650;
/** As long as GET /v1/artifacts takes, so a saved search can always be typed there too. */
const MAX_QUERY_CHARS = 2000;

/** "last <duration>", the duration written as everywhere else in cairn (lib/duration.ts: 30s, 5m, 1h, 7d). */
const RANGE_PATTERN = /^last ([1-9]\d{0,5}[smhd])$/;
const RANGE_MESSAGE = 'range must be "last <n><unit>" with unit s, m, h or d, e.g. "last 30m", "last 24h", "last 7d"';

const rangeMs = (range: string) => parseDuration(RANGE_PATTERN.exec(range)![1]!);

const Range = z
  .string()
  .regex(RANGE_PATTERN, RANGE_MESSAGE)
  .refine((r) => !RANGE_PATTERN.test(r) || rangeMs(r) <= MAX_RANGE_DAYS * 86_400_000, `range must be at most ${MAX_RANGE_DAYS}d`);

/** ISO 8601 with a zone, kept in UTC (as every timestamp cairn answers with). */
const FilterTime = Timestamp.refine((t) => !Number.isNaN(Date.parse(t)), 'must be a date that exists').transform((t) => new Date(t).toISOString());

const Filters = z
  .strictObject({
    source: z.string().trim().min(1, 'source must not be empty').max(128, 'source must be at most 128 characters').optional(),
    start: FilterTime.optional(),
    end: FilterTime.optional(),
    range: Range.optional(),
  })
  .refine((f) => f.range === undefined || (f.start === undefined && f.end === undefined), { message: 'give either range or start/end, not both', path: ['range'] })
  .refine((f) => !f.start || !f.end || f.start <= f.end, { message: 'start must not be after end', path: ['start'] });

const Name = z.string().trim().min(1, 'name is required').max(200, 'name must be at most 200 characters');
// Not trimmed: the position a parse error names is a position in the text as sent.
const Query = z
  .string({ message: 'query is required and must be a string' })
  .max(MAX_QUERY_CHARS, `query must be at most ${MAX_QUERY_CHARS} characters`);

const CreateSavedSearch = z.strictObject({ name: Name, query: Query, filters: Filters.default({}), shared: z.boolean().default(false) });
const UpdateSavedSearch = z
  .strictObject({ name: Name.optional(), query: Query.optional(), filters: Filters.optional(), shared: z.boolean().optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

const ListQuery = Pagination.extend({
  shared: QueryBoolean.optional().describe('true: only shared searches; false: only private ones'),
  mine: QueryBoolean.optional().describe("true: only the caller's own; false: only other people's"),
});

const ResultsQuery = Pagination.extend({
  exact_total: QueryBoolean.default(false).describe(`count every match; by default counting stops past ${COUNTED_MATCHES.toLocaleString('en')} and total_exact says so`),
});

const FiltersSchema = z.object({
  source: z.string().optional(),
  start: Timestamp.optional(),
  end: Timestamp.optional(),
  range: z.string().optional().describe('relative to each request: "last <n><unit>", unit s, m, h or d'),
});

const SavedSearchSchema = z.object({
  id: z.string(),
  name: z.string(),
  query: z.string().describe('the query language (docs/query-language.md); empty selects every artifact the filters allow'),
  filters: FiltersSchema,
  created_by: z.string().describe('the user id of the creator, or the subject of an operator token'),
  shared: z.boolean().describe('false: only its creator (and admins) see it; true: everyone with signals:read in the organization'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const ResultsSchema = listData('artifacts', ArtifactSchema).extend({
  total_exact: z.boolean().describe(`false when more than ${COUNTED_MATCHES.toLocaleString('en')} matched and exact_total was not asked: total is then that many, a lower bound`),
});

function present(search: SavedSearch): z.input<typeof SavedSearchSchema> {
  const { org_id: _org, ...rest } = search;
  return rest;
}

/** Who a saved search belongs to: the user behind the request, else the operator token's subject. */
const callerOf = (auth: AuthContext) => auth.userId ?? auth.subject;
const isAdmin = (auth: AuthContext) => auth.permissions.has('admin');

/** The search if the caller may see it; someone else's private one is 404 like a missing one. */
async function visibleSearch(deps: ApiDeps, auth: AuthContext, id: string): Promise<SavedSearch> {
  const search = await getSavedSearch(deps.store, auth.orgId, id);
  if (!search || (!search.shared && search.created_by !== callerOf(auth) && !isAdmin(auth))) throw notFound('saved search');
  return search;
}

/** The search if the caller may change it: only its creator or an admin; a shared one of someone else is 403. */
async function changeableSearch(deps: ApiDeps, auth: AuthContext, id: string): Promise<SavedSearch> {
  const search = await visibleSearch(deps, auth, id);
  if (search.created_by !== callerOf(auth) && !isAdmin(auth)) {
    throw new HttpError(403, 'forbidden', 'only the creator of a saved search or an admin may change or delete it');
  }
  return search;
}

/** The query must parse: a 400 names the character where it stops, like every other body error. */
function checkQuery(query: string): void {
  try {
    parseQuery(query);
  } catch (err) {
    if (!(err instanceof QuerySyntaxError)) throw err;
    throw new HttpError(400, 'validation_error', `invalid body: query: ${err.message}`, [{ in: 'body', path: 'query', message: err.message, position: err.position, reason: err.reason }]);
  }
}

/** The time window the filters select at `now`: a relative range is [now − duration, now). */
function timeWindow(filters: SavedSearchFilters, now: Date): { start?: string; end?: string } {
  if (filters.range === undefined) return { start: filters.start, end: filters.end };
  return { start: new Date(now.getTime() - rangeMs(filters.range)).toISOString(), end: now.toISOString() };
}

export const savedSearchRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/saved-searches',
    summary: 'List the saved searches the caller may see (their own and shared ones; all for admin), by name',
    tag: 'Saved searches',
    permission: 'signals:read',
    query: ListQuery,
    response: listData('saved_searches', SavedSearchSchema),
    async handler({ query, auth, deps }) {
      const caller = callerOf(auth);
      const { searches, total } = await listSavedSearches(deps.store, auth.orgId, {
        limit: query.limit,
        offset: query.offset,
        visibleTo: isAdmin(auth) ? undefined : caller,
        shared: query.shared,
        createdBy: query.mine === true ? caller : undefined,
        notCreatedBy: query.mine === false ? caller : undefined,
      });
      return { message: `${total} saved search(es)`, data: { saved_searches: searches.map(present), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saved-searches/:id',
    summary: "Get one saved search; someone else's private search is 404",
    tag: 'Saved searches',
    permission: 'signals:read',
    params: IdParams,
    response: SavedSearchSchema,
    errors: [404],
    async handler({ params, auth, deps }) {
      return { message: 'Saved search found', data: present(await visibleSearch(deps, auth, params.id)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/saved-searches',
    summary: 'Save a search: name, query (checked by the query parser), filters (source, start/end or range) and shared (default false)',
    description:
      'filters: source (an artifact source), and either start and end (ISO 8601; start inclusive, end exclusive) or range, relative to each request: "last <n><unit>" with unit s, m, h or d (e.g. "last 24h"), at most 3650d. A query that does not parse is a 400 whose details give the position (1-based character) and the reason.',
    tag: 'Saved searches',
    permission: 'signals:write',
    body: CreateSavedSearch,
    response: SavedSearchSchema,
    successStatus: 201,
    async handler({ body, auth, deps }) {
      checkQuery(body.query);
      const now = new Date().toISOString();
      const search: SavedSearch = { id: newId(), org_id: auth.orgId, name: body.name, query: body.query, filters: body.filters, created_by: callerOf(auth), shared: body.shared, created_at: now, updated_at: now };
      await saveSavedSearch(deps.store, search);
      return { message: 'Saved search created', data: present(search) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/saved-searches/:id',
    summary: 'Change a saved search (its creator or an admin); only the fields given change, and filters given replace the old ones whole',
    tag: 'Saved searches',
    permission: 'signals:write',
    params: IdParams,
    body: UpdateSavedSearch,
    response: SavedSearchSchema,
    errors: [404],
    async handler({ params, body, auth, deps }) {
      const before = await changeableSearch(deps, auth, params.id);
      if (body.query !== undefined) checkQuery(body.query);
      const after: SavedSearch = {
        ...before,
        name: body.name ?? before.name,
        query: body.query ?? before.query,
        filters: body.filters ?? before.filters,
        shared: body.shared ?? before.shared,
        updated_at: new Date().toISOString(),
      };
      await saveSavedSearch(deps.store, after);
      return { message: 'Saved search updated', data: present(after), audit: { before: present(before) } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/saved-searches/:id',
    summary: 'Delete a saved search (its creator or an admin)',
    tag: 'Saved searches',
    permission: 'signals:write',
    params: IdParams,
    response: z.null(),
    errors: [404],
    async handler({ params, auth, deps }) {
      const search = await changeableSearch(deps, auth, params.id);
      await deleteSavedSearch(deps.store, search);
      return { message: `Saved search "${search.name}" deleted`, data: null, audit: { before: present(search), after: null } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/saved-searches/:id/results',
    summary: 'Run a saved search (cairn extension): the page of artifacts it selects, as GET /v1/artifacts answers it',
    description:
      'The same search as GET /v1/artifacts with the saved query, source, start and end, newest first, in the same shape (artifacts, total, total_exact, limit, offset). A relative range is resolved when the request arrives: "last 24h" is [now − 24h, now). Visible to whoever may see the saved search.',
    tag: 'Saved searches',
    permission: 'signals:read',
    params: IdParams,
    query: ResultsQuery,
    response: ResultsSchema,
    errors: [404],
    async handler({ params, query, auth, deps }) {
      const search = await visibleSearch(deps, auth, params.id);
      let page: ArtifactPage;
      try {
        page = await searchArtifactPage(deps.store, {
          orgId: auth.orgId,
          source: search.filters.source,
          ...timeWindow(search.filters, new Date()),
          query: search.query,
          limit: query.limit,
          offset: query.offset,
          exactTotal: query.exact_total,
        });
      } catch (err) {
        // Checked when saved; only a later, stricter parser can refuse it now.
        if (err instanceof QuerySyntaxError) throw badRequest(`the saved query no longer parses: ${err.message}; change it with PUT`, { position: err.position, reason: err.reason });
        throw err;
      }
      const { artifacts, total, totalExact } = page;
      return {
        message: `${totalExact ? '' : 'more than '}${total} artifact(s) found by "${search.name}"`,
        data: { artifacts, total, total_exact: totalExact, limit: query.limit, offset: query.offset },
      };
    },
  }),
];
