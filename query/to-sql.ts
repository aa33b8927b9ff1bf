// Compiles a parsed query to ClickHouse conditions over a text column that
// carries a text index (tokenizer splitByNonAlpha, preprocessor lower).
// Words go through the index (hasAllTokens); phrases and words with
// separators ("10.0.0.1", "sshd[42]") also need the exact substring, checked
// case-insensitively on the rows the index let through.
import type { SqlParams } from '../clickhouse/sql.js';
import { asciiLower, QuerySyntaxError, tokenize, type Clause, type Query } from './parse.js';

/** Turns a field clause into a SQL condition, or throws QuerySyntaxError for an unknown field. */
export type FieldCondition = (clause: Extract<Clause, { kind: 'field' }>, params: SqlParams) => string;

export interface SqlTarget {
  textColumn: string;
  field: FieldCondition;
}

export function textCondition(column: string, value: string, phrase: boolean, params: SqlParams): string {
  const words = tokenize(value);
  const conditions: string[] = [];
  if (words.length > 0) conditions.push(`hasAllTokens(${column}, ${params.add(words.map(asciiLower), 'Array(String)')})`);
  const exactWord = !phrase && words.length === 1 && words[0] === value;
  if (!exactWord) conditions.push(`positionCaseInsensitiveUTF8(${column}, ${params.add(value, 'String')}) > 0`);
  return conditions.join(' AND ');
}

export function queryConditions(query: Query, target: SqlTarget, params: SqlParams): string[] {
  return query.clauses.map((clause) => {
    const condition = clause.kind === 'text' ? textCondition(target.textColumn, clause.value, clause.phrase, params) : target.field(clause, params);
    return clause.negated ? `NOT (${condition})` : condition;
  });
}

export function unknownField(field: string, known: readonly string[]): QuerySyntaxError {
  return new QuerySyntaxError(`unknown field "${field}"; fields: ${known.join(', ')}`);
}
