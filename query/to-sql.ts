// The ClickHouse back end: a query tree compiled to one condition on the
// artifacts table (columns raw, source, id). Text terms use the full-text
// index on lower(raw) (hasAllTokens) and, where a substring must be exact,
// positionCaseInsensitive (ASCII case, like the matcher); parsed fields are
// tested in the events table through `id IN (...)` (clickhouse/tables/events.ts).
// Every user value is a query parameter (SqlParams), never SQL text.
import type { SqlParams } from '../clickhouse/sql.js';
import type { FieldNode, QueryNode } from './ast.js';
import { anchoredRegex } from './regex.js';
import { asciiLower, globParts, globToLike, IPV4_PATTERN, IPV6_PATTERN, NUMBER_PATTERN, parseNetwork, TIME_PATTERN, tokenize, type GlobPart } from './values.js';

/**
 * Builds `id IN (SELECT artifact_id FROM events WHERE ... AND <some value of field passes>)`;
 * `valueTest` uses the lambda variable `v`, null means "the field has a value".
 */
export type FieldSubquery = (field: string, valueTest: string | null, params: SqlParams) => string;

export interface SqlTarget {
  /** The artifacts' raw text column, with the full-text index. */
  textColumn: string;
  fieldSubquery: FieldSubquery;
}

export function textCondition(column: string, value: string, phrase: boolean, params: SqlParams): string {
  const words = tokenize(value).map(asciiLower);
  const conditions: string[] = [];
  if (words.length > 0) conditions.push(`hasAllTokens(lower(${column}), ${params.add([...new Set(words)], 'Array(String)')})`);
  const exactWord = !phrase && words.length === 1 && words[0] === asciiLower(value);
  if (!exactWord) conditions.push(`positionCaseInsensitive(${column}, ${params.add(value, 'String')}) > 0`);
  return conditions.join(' AND ');
}

/** Tokens a glob's literal text surely holds whole (separators on both sides), for the index to prune with. */
function wholeTokens(parts: GlobPart[]): string[] {
  const tokens: string[] = [];
  for (const part of parts) {
    if (!('literal' in part)) continue;
    const pieces = asciiLower(part.literal).split(/[\x00-\x2f\x3a-\x40\x5b-\x60\x7b-\x7f]+/);
    // The first and last pieces may continue past the literal into what a wildcard matches.
    tokens.push(...pieces.slice(1, -1).filter(Boolean));
  }
  return tokens;
}

function textGlobCondition(column: string, pattern: string, params: SqlParams): string {
  const parts = globParts(pattern);
  const like = `lower(${column}) LIKE ${params.add(`%${globToLike(parts)}%`, 'String')}`;
  const tokens = wholeTokens(parts);
  return tokens.length ? `hasAllTokens(lower(${column}), ${params.add([...new Set(tokens)], 'Array(String)')}) AND ${like}` : like;
}

/** The test one value `v` must pass, shared by parsed fields and the artifact's own columns. */
function valueTest(node: FieldNode, v: string, params: SqlParams): string {
  switch (node.kind) {
    case 'eq':
      return `lower(${v}) = ${params.add(asciiLower(node.value), 'String')}`;
    case 'glob':
      return `lower(${v}) LIKE ${params.add(globToLike(globParts(node.pattern)), 'String')}`;
    case 'exists':
      return '1';
    case 'cidr': {
      const network = parseNetwork(node.cidr);
      if (network.kind === 'ipv4') {
        return `match(${v}, ${params.add(IPV4_PATTERN, 'String')}) AND toIPv4OrNull(${v}) BETWEEN toIPv4(${params.add(network.first, 'String')}) AND toIPv4(${params.add(network.last, 'String')})`;
      }
      const ipv6 = `(match(${v}, ${params.add(IPV4_PATTERN, 'String')}) OR match(${v}, ${params.add(IPV6_PATTERN, 'String')}))`;
      return `${ipv6} AND toIPv6OrNull(${v}) BETWEEN toIPv6(${params.add(network.first, 'String')}) AND toIPv6(${params.add(network.last, 'String')})`;
    }
    case 'range': {
      const number = node.type === 'number';
      const read = number ? `toFloat64OrNull(${v})` : `parseDateTime64BestEffortOrNull(${v}, 3, 'UTC')`;
      const bound = (value: string) => (number ? params.add(Number(value), 'Float64') : `toDateTime64(${params.add(new Date(Date.parse(value)).toISOString().replace('T', ' ').replace('Z', ''), 'String')}, 3, 'UTC')`);
      const tests = [`match(${v}, ${params.add(number ? NUMBER_PATTERN : TIME_PATTERN, 'String')})`];
      if (node.lower) tests.push(`${read} ${node.lower.inclusive ? '>=' : '>'} ${bound(node.lower.value)}`);
      if (node.upper) tests.push(`${read} ${node.upper.inclusive ? '<=' : '<'} ${bound(node.upper.value)}`);
      return tests.join(' AND ');
    }
    case 'regex':
      return `match(${v}, ${params.add(`(?s)${anchoredRegex(node.pattern)}`, 'String')})`;
  }
}

function fieldCondition(node: FieldNode, target: SqlTarget, params: SqlParams): string {
  if (node.field === 'source' || node.field === 'id') {
    const column = node.field === 'id' ? 'toString(id)' : 'source';
    // The artifact's own source and id compare exactly, as the matcher does.
    if (node.kind === 'eq') return `${column} = ${params.add(node.field === 'id' ? node.value.toLowerCase() : node.value, 'String')}`;
    return `ifNull(${valueTest(node, column, params)}, 0)`;
  }
  return target.fieldSubquery(node.field, node.kind === 'exists' ? null : `ifNull(${valueTest(node, 'v', params)}, 0)`, params);
}

function compile(node: QueryNode, target: SqlTarget, params: SqlParams): string {
  switch (node.kind) {
    case 'all':
      return '1';
    case 'text':
      return textCondition(target.textColumn, node.value, node.phrase, params);
    case 'text_glob':
      return textGlobCondition(target.textColumn, node.pattern, params);
    case 'and':
      return node.children.map((c) => `(${compile(c, target, params)})`).join(' AND ');
    case 'or':
      return node.children.map((c) => `(${compile(c, target, params)})`).join(' OR ');
    case 'not':
      return `NOT (${compile(node.child, target, params)})`;
    default:
      return fieldCondition(node, target, params);
  }
}

/** One condition on the artifacts table; null for the empty query (every artifact). */
export function toSqlCondition(query: QueryNode, target: SqlTarget, params: SqlParams): string | null {
  return query.kind === 'all' ? null : compile(query, target, params);
}
