// A query tree as the store runs it: field-only queries on events rows (the
// events table answers them alone), everything else on the artifacts table
// with field tests as events subqueries. Search and rule tests both compile
// through here, so they choose the same way.
import type { SqlParams } from '../clickhouse/sql.js';
import { eventFieldCondition, eventFieldSubquery, type EventScope } from '../clickhouse/tables/events.js';
import type { QueryNode } from '../query/ast.js';
import { answerableFromEvents, toSqlCondition } from '../query/to-sql.js';

export interface StoreCondition {
  /** null for the empty query (every row). */
  sql: string | null;
  on: 'events' | 'artifacts';
}

export function storeCondition(tree: QueryNode, scope: EventScope, params: SqlParams): StoreCondition {
  if (answerableFromEvents(tree)) return { on: 'events', sql: toSqlCondition(tree, { idColumn: 'artifact_id', fieldSubquery: eventFieldCondition }, params) };
  return { on: 'artifacts', sql: toSqlCondition(tree, { textColumn: 'raw', fieldSubquery: eventFieldSubquery(scope) }, params) };
}
