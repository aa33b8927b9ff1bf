// The ClickHouse back end: a query tree compiled to one condition on the
// artifacts table (columns raw, source, id). Text terms use the full-text
// index on lower(raw) (hasAllTokens) and, where a substring must be exact,
// positionCaseInsensitive (ASCII case, like the matcher); parsed fields are
// tested in the events table through `id IN (...)` (clickhouse/tables/events.ts).
// Every user value is a query parameter (SqlParams), never SQL text.
import type { SqlParams } from '../clickhouse/sql.js';
import type { FieldTest } from '../clickhouse/tables/events.js';
import { walk, type FieldNode, type QueryNode } from './ast.js';
import { anchoredRegex } from './regex.js';
import { asciiLower, globParts, globToLike, IPV4_PATTERN, IPV6_PATTERN, NUMBER_PATTERN, parseNetwork, TIME_PATTERN, tokenize, type GlobPart } from './values.js';

/**
 * Builds `id IN (SELECT artifact_id FROM events WHERE ... AND <some value of field passes>)`.
 * `within`, when given, is a condition on the artifacts table that every
 * answer must also pass (the text terms ANDed beside the field test): the
 * subquery may keep to events of such artifacts, so that a selective word
 * bounds the set the field test builds.
 */
export type FieldSubquery = (field: string, test: FieldTest, params: SqlParams, within?: string) => string;

export interface SqlTarget {
  /** The artifacts' raw text column, with the full-text index; absent when the rows are events (see answerableFromEvents). */
  textColumn?: string;
  /**
   * On events rows: a condition on the artifacts table (its text in column
   * `raw`) as a condition on the row, `artifact_id IN (SELECT id FROM
   * artifacts WHERE ...)`.
   */
  throughArtifacts?: (artifactCondition: string, params: SqlParams) => string;
  /** The column holding the artifact id: `id` on artifacts, `artifact_id` on events. */
  idColumn?: string;
  fieldSubquery: FieldSubquery;
  /** A condition on the artifacts table every answer passes (see FieldSubquery). */
  within?: string;
}

/**
 * Whether a query can be answered from the events table: no artifact without
 * a parsed event can match it (every way to satisfy it passes a field test;
 * NOT alone does not). Such searches find their count and page among events,
 * which carry the time and the fields; their text terms become one subquery
 * on the artifacts (SqlTarget.throughArtifacts) that keeps the events of the
 * artifacts passing them.
 */
export function answerableFromEvents(node: QueryNode): boolean {
  const needsEvent = (n: QueryNode): boolean => {
    switch (n.kind) {
      case 'and':
        return n.children.some(needsEvent);
      case 'or':
        return n.children.every(needsEvent);
      case 'not':
      case 'all':
      case 'text':
      case 'text_glob':
        return false;
      default:
        return n.field !== 'source' && n.field !== 'id';
    }
  };
  return needsEvent(node);
}

/** Whether a text term is one whole word, which the text index answers without reading the raw text. */
function isIndexWord(value: string, phrase: boolean): boolean {
  const words = tokenize(value);
  return !phrase && words.length === 1 && asciiLower(words[0]!) === asciiLower(value);
}

/** Whether every test is a whole word the text index answers alone (no phrase, separator, wildcard or field to verify row by row). */
export function countsFromIndex(tree: QueryNode): boolean {
  let words = 0;
  let other = false;
  walk(tree, (node) => {
    if (node.kind === 'text' && isIndexWord(node.value, node.phrase)) words++;
    else if (node.kind !== 'and' && node.kind !== 'or' && node.kind !== 'not') other = true;
  });
  return words > 0 && !other;
}

export function textCondition(column: string, value: string, phrase: boolean, params: SqlParams): string {
  const words = tokenize(value).map(asciiLower);
  const conditions: string[] = [];
  if (words.length > 0) conditions.push(`hasAllTokens(lower(${column}), ${params.add([...new Set(words)], 'Array(String)')})`);
  if (!isIndexWord(value, phrase)) conditions.push(`positionCaseInsensitive(${column}, ${params.add(value, 'String')}) > 0`);
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
  // Text globs match anywhere, so leading and trailing * add nothing; one literal left is a substring test, which needs no lower() copy of every row.
  const inner = parts.filter((p, i) => !('any' in p && (i === 0 || i === parts.length - 1)));
  if (inner.length === 1 && 'literal' in inner[0]!) return `positionCaseInsensitive(${column}, ${params.add(inner[0].literal, 'String')}) > 0`;
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
      // The range test first: the pattern (strict address syntax, as the matcher checks) runs only on values inside it.
      if (network.kind === 'ipv4') {
        // A canonical address (the only kind the pattern admits) inside a /8 or longer starts with the network's whole octets: a cheap first test.
        const octets = Math.min(Math.floor(network.range[1] / 8), 3);
        const prefix = octets > 0 ? `startsWith(${v}, ${params.add(`${network.first.split('.').slice(0, octets).join('.')}.`, 'String')}) AND ` : '';
        return `${prefix}toIPv4OrNull(${v}) BETWEEN toIPv4(${params.add(network.first, 'String')}) AND toIPv4(${params.add(network.last, 'String')}) AND match(${v}, ${params.add(IPV4_PATTERN, 'String')})`;
      }
      const ipv6 = `(match(${v}, ${params.add(IPV4_PATTERN, 'String')}) OR match(${v}, ${params.add(IPV6_PATTERN, 'String')}))`;
      return `toIPv6OrNull(${v}) BETWEEN toIPv6(${params.add(network.first, 'String')}) AND toIPv6(${params.add(network.last, 'String')}) AND ${ipv6}`;
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
    const column = node.field === 'id' ? `toString(${target.idColumn ?? 'id'})` : 'source';
    // The artifact's own source and id compare exactly, as the matcher does.
    if (node.kind === 'eq') return `${column} = ${params.add(node.field === 'id' ? node.value.toLowerCase() : node.value, 'String')}`;
    return `ifNull(${valueTest(node, column, params)}, 0)`;
  }
  const lambda = node.kind === 'exists' ? null : `ifNull(${valueTest(node, 'v', params)}, 0)`;
  return target.fieldSubquery(node.field, node.kind === 'eq' ? { lambda, equals: asciiLower(node.value) } : { lambda }, params, target.within);
}

/** Whether a test reads the events table (a parsed field other than the artifact's own source and id). */
function hasEventField(node: QueryNode): boolean {
  if (node.kind === 'and' || node.kind === 'or') return node.children.some(hasEventField);
  if (node.kind === 'not') return hasEventField(node.child);
  return 'field' in node && node.field !== 'source' && node.field !== 'id';
}

/** A test of the raw text alone, on whichever rows the target has. */
function textTest(target: SqlTarget, params: SqlParams, test: (column: string) => string): string {
  if (target.textColumn) return test(target.textColumn);
  if (!target.throughArtifacts) throw new Error('a text test on a target without raw text');
  return target.throughArtifacts(test('raw'), params);
}

function compile(node: QueryNode, target: SqlTarget, params: SqlParams): string {
  switch (node.kind) {
    case 'all':
      return '1';
    case 'text':
      return textTest(target, params, (column) => textCondition(column, node.value, node.phrase, params));
    case 'text_glob':
      return textTest(target, params, (column) => textGlobCondition(column, node.pattern, params));
    case 'and': {
      const text = node.children.filter((c) => !hasEventField(c));
      if (!target.textColumn && target.throughArtifacts && text.length > 1) {
        // On events rows, the text tests of an AND read the artifacts once, together.
        const textSql = textTest(target, params, (column) => text.map((c) => `(${compile(c, { ...target, textColumn: column }, params)})`).join(' AND '));
        return [textSql, ...node.children.filter(hasEventField).map((c) => `(${compile(c, target, params)})`)].join(' AND ');
      }
      // Text beside field tests bounds them: compile the text first, then the field tests within it.
      if (!target.textColumn || text.length === 0 || text.length === node.children.length) return node.children.map((c) => `(${compile(c, target, params)})`).join(' AND ');
      const textSql = text.map((c) => `(${compile(c, target, params)})`).join(' AND ');
      const within = target.within ? `(${target.within}) AND ${textSql}` : textSql;
      const fields = node.children.filter(hasEventField).map((c) => `(${compile(c, { ...target, within }, params)})`);
      return [textSql, ...fields].join(' AND ');
    }
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
