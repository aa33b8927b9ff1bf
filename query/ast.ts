// The syntax tree of cairn's query language (docs/query-language.md). One
// tree, two back ends: query/to-sql.ts compiles it to ClickHouse conditions
// for search, query/match.ts to an in-memory predicate for lead rules.
// Sigma rules convert into it (query/sigma/).

/** A text test against the raw artifact. */
export type TextNode =
  /** A word or phrase: its tokens, and for phrases and words with separators the exact text (ASCII case ignored). */
  | { kind: 'text'; value: string; phrase: boolean }
  /** A pattern anywhere in the raw text: * any run of characters, ? one character (ASCII case ignored). */
  | { kind: 'text_glob'; pattern: string };

/** A test on a parsed field (any value of a multi-valued field may satisfy it). */
export type FieldNode =
  /** Equal, ASCII case ignored. */
  | { kind: 'eq'; field: string; value: string }
  /** The whole value matches the pattern: * any run, ? one character (ASCII case ignored). */
  | { kind: 'glob'; field: string; pattern: string }
  /** The field has a value. */
  | { kind: 'exists'; field: string }
  /** The value is an IP address inside the network. */
  | { kind: 'cidr'; field: string; cidr: string }
  /** The value is a number (or an ISO 8601 time) within the bounds. */
  | { kind: 'range'; field: string; type: 'number' | 'time'; lower?: Bound; upper?: Bound }
  /** The whole value matches the regular expression (the subset query/regex.ts allows; case matters). */
  | { kind: 'regex'; field: string; pattern: string };

export interface Bound {
  value: string;
  inclusive: boolean;
}

export type QueryNode =
  | TextNode
  | FieldNode
  | { kind: 'and'; children: QueryNode[] }
  | { kind: 'or'; children: QueryNode[] }
  | { kind: 'not'; child: QueryNode }
  /** The empty query: every artifact. */
  | { kind: 'all' };

/** Fields that are the artifact's own columns rather than parsed event fields. */
export const ARTIFACT_FIELDS = ['source', 'id'] as const;

export function isFieldNode(node: QueryNode): node is FieldNode {
  return node.kind === 'eq' || node.kind === 'glob' || node.kind === 'exists' || node.kind === 'cidr' || node.kind === 'range' || node.kind === 'regex';
}

/** Calls `visit` on every node, parents before children. */
export function walk(node: QueryNode, visit: (node: QueryNode) => void): void {
  visit(node);
  if (node.kind === 'and' || node.kind === 'or') for (const child of node.children) walk(child, visit);
  else if (node.kind === 'not') walk(node.child, visit);
}
