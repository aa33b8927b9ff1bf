// A query tree as the store runs it: field-only queries on events rows (the
// events table answers them alone), everything else on the artifacts table
// with field tests as events subqueries. Search and rule tests both compile
// through here, so they choose the same way; and one page of artifact search
// (GET /v1/artifacts, saved searches' results) is run here.
import type { Store } from '../clickhouse/client.js';
import { artifactHistogram, fieldsOfSearch, fieldValuesOfSearch, searchArtifacts, type ArtifactHistogram, type ArtifactPage, type SearchSelection } from '../clickhouse/tables/artifacts.js';
import { parseQuery } from '../query/parse.js';
import { storeCondition } from '../query/store-condition.js';
import { answerableFromEvents, countsFromIndex } from '../query/to-sql.js';

export { eventsTarget, storeCondition, type StoreCondition } from '../query/store-condition.js';

/** Matches a search counts before it stops (as search engines do): past it, `total` is a lower bound and `total_exact` false. */
export const COUNTED_MATCHES = 10_000;

export interface ArtifactPageRequest {
  orgId: string;
  source?: string;
  /** Inclusive. */
  start?: string;
  /** Exclusive. */
  end?: string;
  /** The query language; empty or absent selects everything in scope. */
  query?: string;
  limit: number;
  offset: number;
  /** Count every match instead of stopping past COUNTED_MATCHES. */
  exactTotal: boolean;
}

/** What a query selects in a scope, as the store runs it; throws QuerySyntaxError for a query that does not parse. */
function selection(request: Pick<ArtifactPageRequest, 'orgId' | 'source' | 'start' | 'end' | 'query'>): { tree: ReturnType<typeof parseQuery>; selected: SearchSelection } {
  const tree = parseQuery(request.query ?? '');
  return {
    tree,
    selected: {
      scope: { orgId: request.orgId, source: request.source, start: request.start, end: request.end },
      // Queries every match of which needs a parsed event are answered from the events table (query/to-sql.ts answerableFromEvents).
      on: answerableFromEvents(tree) ? 'events' : 'artifacts',
      conditions: (scope, params) => {
        const { sql } = storeCondition(tree, scope, params);
        return sql ? [sql] : [];
      },
    },
  };
}

/** The matches of a search over time (GET /v1/artifacts/histogram): the same selection as its pages. */
export async function searchHistogram(store: Store, request: Pick<ArtifactPageRequest, 'orgId' | 'source' | 'start' | 'end' | 'query'>, maxBuckets: number): Promise<ArtifactHistogram> {
  return artifactHistogram(store, selection(request).selected, maxBuckets);
}

type SearchScope = Pick<ArtifactPageRequest, 'orgId' | 'source' | 'start' | 'end' | 'query'>;

/** The parsed fields a search's matches hold, most common first (GET /v1/artifacts/fields without `field`). */
export async function searchFields(store: Store, request: SearchScope, limit: number): Promise<Array<{ field: string; count: number }>> {
  return fieldsOfSearch(store, selection(request).selected, limit);
}

/** One field's commonest values among a search's matches (GET /v1/artifacts/fields?field=). */
export async function searchFieldValues(store: Store, request: SearchScope, field: string, limit: number): Promise<Array<{ value: string; count: number }>> {
  return fieldValuesOfSearch(store, selection(request).selected, field, limit);
}

/**
 * One page of artifact search, newest first: what GET /v1/artifacts answers,
 * and saved searches' results through the same code, so both select alike.
 * Throws QuerySyntaxError for a query that does not parse.
 */
export async function searchArtifactPage(store: Store, request: ArtifactPageRequest): Promise<ArtifactPage> {
  const { tree, selected } = selection(request);
  return searchArtifacts(store, {
    ...selected,
    limit: request.limit,
    offset: request.offset,
    // Without a query the count comes from the primary key, and whole words are counted from the text index,
    // both exactly and fast; other searches read the rows they count, and stop at the limit.
    countLimit: request.exactTotal || tree.kind === 'all' || countsFromIndex(tree) ? undefined : COUNTED_MATCHES,
  });
}
