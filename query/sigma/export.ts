// A cairn lead rule as Sigma YAML (GET /v1/lead-rules/:id?format=sigma): the
// pattern's tree becomes selections and a condition, fields go back to the
// Sigma names of the rule's log source (mapping.ts), threshold, distinct-value
// and sequence rules become correlation rules over a base rule. An imported
// rule keeps its Sigma id, author, references and log source; importing the
// export gives the same conditions again.
import { stringify } from 'yaml';
import type { LeadRule } from '../../clickhouse/tables/lead-rules.js';
import type { FieldNode, QueryNode } from '../ast.js';
import { isFieldNode } from '../ast.js';
import { parseQuery } from '../parse.js';
import { printQuery } from '../print.js';
import { checkRegex } from '../regex.js';
import { escapeGlob, hasWildcard } from '../values.js';
import { findLogsource, sigmaField, type LogsourceMapping } from './mapping.js';

/** Why a rule has no Sigma form (e.g. a time range, which Sigma's modifiers cannot say). */
export class NotExpressible extends Error {}

/** Builds selections with generated names, and the condition that combines them. */
class DetectionWriter {
  readonly selections: Record<string, unknown> = {};
  private count = 0;

  constructor(private readonly mapping: LogsourceMapping | null) {}

  private add(prefix: string, selection: unknown): string {
    const name = `${prefix}${++this.count}`;
    this.selections[name] = selection;
    return name;
  }

  private key(node: FieldNode, modifier?: string): string {
    const field = sigmaField(this.mapping, node.field);
    return modifier ? `${field}|${modifier}` : field;
  }

  /** One field test as a key and value of a selection map. */
  private entry(node: FieldNode): [string, unknown][] {
    switch (node.kind) {
      case 'eq':
        return [[this.key(node), escapeGlob(node.value)]];
      case 'glob':
        return [globEntry(this.key(node), node.pattern)];
      case 'exists':
        return [[this.key(node, 'exists'), true]];
      case 'cidr':
        return [[this.key(node, 'cidr'), node.cidr]];
      case 'regex':
        return [[this.key(node, 're'), sigmaRegex(node.pattern)]];
      case 'range': {
        if (node.type === 'time') throw new NotExpressible(`the time range on ${node.field} has no Sigma modifier`);
        const entries: [string, unknown][] = [];
        if (node.lower) entries.push([this.key(node, node.lower.inclusive ? 'gte' : 'gt'), Number(node.lower.value)]);
        if (node.upper) entries.push([this.key(node, node.upper.inclusive ? 'lte' : 'lt'), Number(node.upper.value)]);
        return entries;
      }
    }
  }

  /** The condition text for `node`, adding the selections it names. */
  write(node: QueryNode): string {
    switch (node.kind) {
      case 'all':
        throw new NotExpressible('a rule matching every event has no Sigma detection');
      case 'text':
      case 'text_glob':
        return this.add('keywords', [keyword(node)]);
      case 'not':
        return `not ${this.operand(node.child)}`;
      case 'and': {
        // Field tests on distinct keys share one selection map (a Sigma map is an AND).
        const fields = node.children.filter(isFieldNode).map((c) => this.entry(c));
        const keys = fields.flat().map(([k]) => k);
        if (fields.length === node.children.length && new Set(keys).size === keys.length) return this.add('selection', Object.fromEntries(fields.flat()));
        return node.children.map((c) => this.operand(c)).join(' and ');
      }
      case 'or': {
        // Tests of one key are one list (a Sigma list is an OR).
        const entries = node.children.every(isFieldNode) ? node.children.map((c) => this.entry(c as FieldNode)) : [];
        if (entries.length && entries.every((e) => e.length === 1 && e[0]![0] === entries[0]![0]![0])) {
          return this.add('selection', { [entries[0]![0]![0]]: entries.map((e) => e[0]![1]) });
        }
        const keywords = node.children.filter((c) => c.kind === 'text' || c.kind === 'text_glob');
        if (keywords.length === node.children.length) return this.add('keywords', keywords.map(keyword));
        return node.children.map((c) => this.operand(c)).join(' or ');
      }
      default:
        return this.add('selection', Object.fromEntries(this.entry(node)));
    }
  }

  private operand(node: QueryNode): string {
    const written = this.write(node);
    return /\s/.test(written) && !written.startsWith('not ') ? `(${written})` : written;
  }
}

/** cairn's regular expressions match the whole value, Sigma's anywhere: ".*(?:x).*" (how import writes one) is x again, the rest is anchored. */
function sigmaRegex(pattern: string): string {
  const inner = /^\.\*\(\?:([\s\S]*)\)\.\*$/.exec(pattern)?.[1];
  if (inner !== undefined) {
    try {
      checkRegex(inner, 0);
      return inner;
    } catch {
      // ".*(?:a)|(?:b).*" is no single group: anchor it as it is.
    }
  }
  return `^(?:${pattern})$`;
}

/** A text term as a Sigma keyword (a substring): a word or phrase escaped, a text glob without the * at its ends (keywords match anywhere). */
function keyword(node: Extract<QueryNode, { kind: 'text' | 'text_glob' }>): string {
  return node.kind === 'text' ? escapeGlob(node.value) : node.pattern.replace(/^\*/, '').replace(/\*$/, '');
}

/** A glob as Sigma: contains/startswith/endswith where it is one, else the wildcard value (both use * ? and \\ alike). */
function globEntry(key: string, pattern: string): [string, string] {
  // A trailing * that a backslash escapes is a literal star, not a wildcard.
  const endsInWildcard = /(^|[^\\])(\\\\)*\*$/.test(pattern);
  const startsWithWildcard = pattern.startsWith('*');
  const inner = pattern.slice(startsWithWildcard ? 1 : 0, endsInWildcard ? -1 : undefined);
  if (!hasWildcard(inner) && inner !== '') {
    if (startsWithWildcard && endsInWildcard) return [`${key}|contains`, inner];
    if (endsInWildcard) return [`${key}|startswith`, inner];
    if (startsWithWildcard) return [`${key}|endswith`, inner];
  }
  return [key, pattern];
}

/** The rule's detection without the filter its log source adds on import (that is what logsource says). */
function withoutSourceFilter(tree: QueryNode, mapping: LogsourceMapping | null): QueryNode {
  if (!mapping?.filter || tree.kind !== 'and') return tree;
  // Compared as printed after a parse, the form the stored pattern has; a filter that is itself an AND was
  // flattened into the rule's AND on import, so each of its parts is looked for.
  const filter = parseQuery(printQuery(mapping.filter));
  const parts = (filter.kind === 'and' ? filter.children : [filter]).map(printQuery);
  const printed = tree.children.map(printQuery);
  if (!parts.every((p) => printed.includes(p))) return tree;
  const rest = tree.children.filter((_, i) => !parts.includes(printed[i]!));
  return rest.length === 1 ? rest[0]! : { kind: 'and', children: rest };
}

function detection(pattern: string, mapping: LogsourceMapping | null): Record<string, unknown> {
  const writer = new DetectionWriter(mapping);
  const condition = writer.write(withoutSourceFilter(parseQuery(pattern), mapping));
  return { ...writer.selections, condition };
}

/** The Sigma id a rule exports under: an imported rule keeps its own, any other is its cairn id (a UUID, as Sigma asks). */
export function sigmaId(rule: LeadRule): string {
  return (rule.origin?.format === 'sigma' ? rule.origin.id : null) ?? rule.id;
}

/** The rule as Sigma YAML: one document, or a base rule and a correlation for threshold, distinct-value and sequence rules. */
export function toSigma(rule: LeadRule): string {
  const sigma = rule.origin?.format === 'sigma' ? rule.origin : null;
  const pack = rule.origin?.format === 'pack' ? rule.origin : null;
  // suppress is noise control, not detection: Sigma has no word for it, and the rule detects the same without it.
  const { source, pattern, threshold, window, group_by: groupBy, count_distinct: distinct, sequence, ordered, first_seen: firstSeen } = rule.conditions;
  if (firstSeen) throw new NotExpressible('first_seen (a value new for its group) has no Sigma correlation');
  const logsource = sigma?.logsource ?? { product: 'cairn', ...(source ? { service: source } : {}) };
  const mapping = findLogsource(logsource);
  const author = sigma?.author ?? (pack ? 'cairn rule pack' : null);
  const meta = {
    title: rule.name,
    id: sigmaId(rule),
    ...(sigma?.status ? { status: sigma.status } : {}),
    description: rule.description || undefined,
    ...(sigma?.references.length ? { references: sigma.references } : {}),
    ...(author ? { author } : {}),
    ...(sigma?.date ? { date: sigma.date } : {}),
    ...(sigma?.modified ? { modified: sigma.modified } : {}),
    ...(rule.tags.length ? { tags: rule.tags } : {}),
  };
  // cairn's severities are Sigma levels by name (informational imports as low).
  const level = rule.severity;
  const falsepositives = sigma?.falsepositives ?? pack?.false_positives ?? [];
  const tail = { ...(falsepositives.length ? { falsepositives } : {}), level };
  const dump = (docs: object[]) => docs.map((d) => stringify(JSON.parse(JSON.stringify(d)), { lineWidth: 0 })).join('---\n');

  if (!threshold && !sequence) return dump([{ ...meta, logsource, detection: detection(pattern, mapping), ...tail }]);

  const baseName = (i: number) => `${rule.id}-base${sequence ? `-${i + 1}` : ''}`;
  const parts = sequence ?? [pattern];
  const bases = parts.map((p, i) => ({
    title: `${rule.name} (${sequence ? `step ${i + 1}` : 'events'})`,
    id: baseName(i),
    name: baseName(i),
    logsource,
    detection: detection(p, mapping),
    level,
  }));
  const field = (ecs: string) => sigmaField(mapping, ecs);
  const correlation = {
    type: sequence ? (ordered ? 'temporal_ordered' : 'temporal') : distinct ? 'value_count' : 'event_count',
    rules: bases.map((b) => b.name),
    ...(groupBy ? { 'group-by': [field(groupBy)] } : {}),
    // Sigma's duration units s, m, h, d are cairn's.
    timespan: window ?? '5m',
    ...(sequence ? {} : { condition: { gte: threshold, ...(distinct ? { field: field(distinct) } : {}) } }),
  };
  return dump([...bases, { ...meta, correlation, ...tail }]);
}
