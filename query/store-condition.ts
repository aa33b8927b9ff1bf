// A query tree as the store runs it: queries every match of which needs a
// parsed event on events rows (the events table answers them alone),
// everything else on the artifacts table with field tests as events
// subqueries. Search, rule trials and rule backfills compile through here,
// so they choose the same way.
import type { SqlParams } from '../clickhouse/sql.js';
import { eventFieldCondition, eventFieldSubquery, eventsOfArtifacts, type EventScope } from '../clickhouse/tables/events.js';
import type { QueryNode } from './ast.js';
import { answerableFromEvents, toSqlCondition, type SqlTarget } from './to-sql.js';

export interface StoreCondition {
  /** null for the empty query (every row). */
  sql: string | null;
  on: 'events' | 'artifacts';
}

export function storeCondition(tree: QueryNode, scope: EventScope, params: SqlParams): StoreCondition {
  if (answerableFromEvents(tree)) return { on: 'events', sql: toSqlCondition(tree, eventsTarget(scope), params) };
  return { on: 'artifacts', sql: toSqlCondition(tree, { textColumn: 'raw', fieldSubquery: eventFieldSubquery(scope) }, params) };
}

/** Events rows as a query's target: fields in their columns, text through the artifacts in the same scope. */
export function eventsTarget(scope: EventScope): SqlTarget {
  return { idColumn: 'artifact_id', fieldSubquery: eventFieldCondition, throughArtifacts: eventsOfArtifacts(scope) };
}

/** The query as a condition on events rows: a condition on artifacts becomes the membership of the row's artifact among those it selects. */
export function eventCondition(tree: QueryNode, scope: EventScope, params: SqlParams): string {
  const { on, sql } = storeCondition(tree, scope, params);
  if (sql === null) return '1';
  return on === 'events' ? `(${sql})` : eventsOfArtifacts(scope)(sql, params);
}
