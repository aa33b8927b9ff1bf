// A query tree back to query text that parses to the same tree: what Sigma
// import stores as a rule's pattern, and what the differential test feeds the
// parser.
import type { Bound, QueryNode } from './ast.js';

const SAFE_WORD = /^[A-Za-z0-9_.@/[\]{}<>=!#$%&+,;^|~'`-]+$/;
const KEYWORDS = new Set(['AND', 'OR', 'NOT', 'TO']);
const FIELD_LIKE = /^[A-Za-z@][A-Za-z0-9_.@-]*(?:>=|<=|>|<|:)/;

function quote(value: string): string {
  return `"${value.replace(/["\\]/g, '\\$&')}"`;
}

/** A bare word when it reads back as the same word, else a phrase (same meaning for text). */
function textWord(value: string): string {
  return SAFE_WORD.test(value) && !KEYWORDS.has(value) && !value.startsWith('-') && !FIELD_LIKE.test(value) ? value : quote(value);
}

/** A glob pattern as a word: wildcards stay, the characters that end words are escaped. */
function globWord(pattern: string): string {
  const escaped = pattern.replace(/([\s()"])/g, '\\$1');
  return escaped.startsWith('-') || KEYWORDS.has(escaped) || FIELD_LIKE.test(escaped) ? `\\${escaped}` : escaped;
}

function bound(b: Bound | undefined): string {
  return b ? b.value : '*';
}

/** A value inside field:( ... ), or null when the node cannot stand there. */
function groupValue(node: QueryNode, field: string): string | null {
  if (!('field' in node) || node.field !== field) return null;
  if (node.kind === 'eq') return quote(node.value);
  if (node.kind === 'glob') return globWord(node.pattern);
  if (node.kind === 'cidr') return node.cidr;
  if (node.kind === 'exists') return '*';
  return null;
}

/** An OR of tests on one field, written field:(a OR b OR c): shorter, and how an analyst would write it. */
function fieldGroup(children: QueryNode[]): string | null {
  const first = children[0];
  if (!first || !('field' in first)) return null;
  const values = children.map((c) => groupValue(c, first.field));
  return values.every((v) => v !== null) ? `${first.field}:(${values.join(' OR ')})` : null;
}

/** A child of AND, OR or NOT: in parentheses when it is itself an AND or OR. */
function operand(node: QueryNode): string {
  if (node.kind === 'or' && fieldGroup(node.children)) return printQuery(node);
  return node.kind === 'and' || node.kind === 'or' ? `(${printQuery(node)})` : printQuery(node);
}

export function printQuery(node: QueryNode): string {
  switch (node.kind) {
    case 'all':
      return '';
    case 'text':
      return node.phrase ? quote(node.value) : textWord(node.value);
    case 'text_glob':
      return globWord(node.pattern);
    case 'eq':
      return `${node.field}:${quote(node.value)}`;
    case 'glob': {
      // After "field:", a leading / would start a regular expression.
      const word = globWord(node.pattern);
      return `${node.field}:${word.startsWith('/') || word.startsWith(':') ? `\\${word}` : word}`;
    }
    case 'exists':
      return `${node.field}:*`;
    case 'cidr':
      return `${node.field}:${node.cidr}`;
    case 'range':
      return `${node.field}:${node.lower?.inclusive === false ? '{' : '['}${bound(node.lower)} TO ${bound(node.upper)}${node.upper?.inclusive === false ? '}' : ']'}`;
    case 'regex':
      return `${node.field}:/${node.pattern.replace(/\//g, '\\/')}/`;
    case 'and':
      return node.children.map(operand).join(' AND ');
    case 'or':
      return fieldGroup(node.children) ?? node.children.map(operand).join(' OR ');
    case 'not':
      return `NOT ${operand(node.child)}`;
  }
}
