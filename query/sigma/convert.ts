// Sigma rules (https://sigmahq.io, specification v2) to cairn lead rules. A
// rule's detection becomes one query tree (query/ast.ts): selections are
// maps (AND of fields) or lists (OR), field modifiers become wildcards,
// CIDR, ranges, regular expressions and value variants, keywords become
// text patterns, and the condition (and, or, not, parentheses, "1 of",
// "all of") combines them; the log source adds its filter (mapping.ts).
// Correlation rules (event_count, value_count, temporal, temporal_ordered)
// become threshold, count_distinct, sequence and ordered sequence rules. A rule that needs anything cairn cannot
// express is skipped as a whole, with the reason: never imported half-way.
import { Buffer } from 'node:buffer';
import { parseAllDocuments } from 'yaml';
import type { LeadRuleConditions, SigmaOrigin } from '../../clickhouse/tables/lead-rules.js';
import type { QueryNode } from '../ast.js';
import { QuerySyntaxError } from '../errors.js';
import { parseQuery } from '../parse.js';
import { printQuery } from '../print.js';
import { checkRegex, ignoreAsciiCase } from '../regex.js';
import { escapeGlob, globParts, hasWildcard, isNumber, looksLikeCidr } from '../values.js';
import { findLogsource, LEVEL_TO_SEVERITY, mapField, type LogsourceMapping } from './mapping.js';

export interface RuleDraft {
  name: string;
  description: string;
  severity: 'low' | 'medium' | 'high' | 'critical';
  tags: string[];
  conditions: LeadRuleConditions;
  origin: SigmaOrigin;
}

export type SigmaResult =
  | { status: 'imported'; title: string; sigma_id: string | null; draft: RuleDraft }
  | { status: 'skipped'; title: string; sigma_id: string | null; reason: string };

/** Why a rule cannot be imported; caught per rule. */
class Unsupported extends Error {}

type Doc = Record<string, unknown>;

function isMap(value: unknown): value is Doc {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function text(value: unknown): string | null {
  return typeof value === 'string' ? value : typeof value === 'number' || typeof value === 'boolean' ? String(value) : null;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.map(text).filter((v): v is string => v !== null) : text(value) !== null ? [text(value)!] : [];
}

/** AND and OR of children, nested ones of the same kind flattened: (a and b) and c is a and b and c. */
function combine(kind: 'and' | 'or', children: QueryNode[]): QueryNode {
  const flat = children.flatMap((c) => (c.kind === kind ? c.children : [c]));
  return flat.length === 1 ? flat[0]! : { kind, children: flat };
}
const and = (children: QueryNode[]): QueryNode => combine('and', children);
const or = (children: QueryNode[]): QueryNode => combine('or', children);

// ---- values and modifiers -------------------------------------------------

const STRING_MATCH = new Set(['contains', 'startswith', 'endswith']);
const TRANSFORMS = new Set(['base64', 'base64offset', 'windash']);
const COMPARE = new Set(['gt', 'gte', 'lt', 'lte']);
const REGEX_FLAGS = new Set(['i', 'm', 's']);
const KNOWN = new Set([...STRING_MATCH, ...TRANSFORMS, ...COMPARE, ...REGEX_FLAGS, 'all', 're', 'cidr', 'exists']);

/**
 * A Sigma regular expression as one cairn runs the same in search and rules:
 * leading inline flags and the i/m/s sub-modifiers read; ignoring case is
 * spelled with classes, dot already matches newlines (s), and multi-line
 * anchors (m) are only accepted where the pattern has no anchors.
 */
function sigmaRegex(field: string, value: string, modifiers: string[]): string {
  const inline = /^\(\?([ims]+)\)/.exec(value);
  const flags = new Set([...modifiers.filter((m) => REGEX_FLAGS.has(m)), ...(inline?.[1] ?? '')]);
  let pattern = inline ? value.slice(inline[0].length) : value;
  if (flags.has('m') && /(^|[^\\])[$^]/.test(pattern)) throw new Unsupported(`regular expression of ${field} anchors at line ends (multi-line), which cairn does not run`);
  try {
    checkRegex(pattern, 0);
  } catch (err) {
    throw new Unsupported(`regular expression of ${field} uses what cairn does not run the same way in search and rules (${(err as Error).message})`);
  }
  if (flags.has('i')) pattern = ignoreAsciiCase(pattern);
  // Sigma's re matches anywhere in the value; cairn's regular expressions match the whole value.
  return `.*(?:${pattern}).*`;
}

/** Sigma's three shifts of base64 for a value found at any offset in base64 text. */
function base64Offsets(value: string): string[] {
  const bytes = Buffer.from(value, 'utf8');
  const starts = [0, 2, 3];
  const ends = [0, 3, 2];
  return [0, 1, 2].map((shift) => {
    const encoded = Buffer.concat([Buffer.alloc(shift), bytes]).toString('base64');
    const cut = (bytes.length + shift) % 3;
    return encoded.slice(starts[shift], encoded.length - (cut === 0 ? 0 : ends[cut]!)).replace(/=+$/, '');
  });
}

/** Dashes Windows command lines accept in place of "-". */
function windashVariants(value: string): string[] {
  if (!value.includes('-') && !value.includes('/')) return [value];
  const variants = new Set<string>();
  for (const dash of ['-', '/', '\u2013', '\u2014', '\u2015']) variants.add(value.replace(/(^|\s)[-/]/g, `$1${dash}`));
  return [...variants];
}

/** The text a glob without wildcards stands for. */
function globLiteral(pattern: string): string {
  return globParts(pattern)
    .map((p) => ('literal' in p ? p.literal : ''))
    .join('');
}

/** A Sigma value as a cairn glob (wildcards * and ? are the same): Sigma escapes only * ? and \; a backslash before anything else is itself. */
function sigmaGlob(value: string): string {
  return value.replace(/\\([*?\\])|\\/g, (m, escaped: string | undefined) => (escaped ? m : '\\\\'));
}

/** One value of one field under its modifiers, as a query node. */
function valueNode(field: string, raw: unknown, modifiers: string[]): QueryNode {
  if (raw === null) return { kind: 'not', child: { kind: 'exists', field } };
  const value = text(raw);
  if (value === null) throw new Unsupported(`field ${field} has a value that is neither text nor a number`);
  if (modifiers.includes('exists')) {
    const exists: QueryNode = { kind: 'exists', field };
    return value === 'true' ? exists : { kind: 'not', child: exists };
  }
  if (modifiers.includes('re')) return { kind: 'regex', field, pattern: sigmaRegex(field, value, modifiers) };
  if (modifiers.includes('cidr')) {
    if (!looksLikeCidr(value)) throw new Unsupported(`"${value}" is not a CIDR network`);
    return { kind: 'cidr', field, cidr: value };
  }
  const compare = modifiers.find((m) => COMPARE.has(m));
  if (compare) {
    if (!isNumber(value)) throw new Unsupported(`${compare} needs a number, not "${value}"`);
    const bound = { value, inclusive: compare.endsWith('e') };
    return { kind: 'range', field, type: 'number', ...(compare.startsWith('g') ? { lower: bound } : { upper: bound }) };
  }
  let variants = [value];
  if (modifiers.includes('windash')) variants = variants.flatMap(windashVariants);
  if (modifiers.includes('base64offset')) variants = variants.flatMap(base64Offsets);
  else if (modifiers.includes('base64')) variants = variants.map((v) => Buffer.from(v, 'utf8').toString('base64'));
  const encoded = modifiers.includes('base64') || modifiers.includes('base64offset');
  const match = modifiers.find((m) => STRING_MATCH.has(m));
  return or(
    variants.map((v): QueryNode => {
      // Wildcards in a value keep their meaning; after an encoding they are just characters.
      const pattern = encoded ? escapeGlob(v) : sigmaGlob(v);
      if (!match && !hasWildcard(pattern)) return { kind: 'eq', field, value: globLiteral(pattern) };
      const glob = match === 'contains' ? `*${pattern}*` : match === 'startswith' ? `${pattern}*` : match === 'endswith' ? `*${pattern}` : pattern;
      return { kind: 'glob', field, pattern: glob };
    }),
  );
}

/** `field|mod|mod: value or list` as a node. */
function fieldNode(key: string, values: unknown, source: LogsourceMapping): QueryNode {
  const [sigmaName, ...modifiers] = key.split('|');
  for (const m of modifiers) {
    if (!KNOWN.has(m)) throw new Unsupported(`modifier |${m} is not supported (field ${sigmaName})`);
  }
  if (!sigmaName) return keywordsNode(values, modifiers);
  const field = mapField(source, sigmaName);
  if (!field) throw new Unsupported(`field ${sigmaName} has no cairn field for this log source`);
  const list = Array.isArray(values) ? values : [values];
  if (list.length === 0) throw new Unsupported(`field ${sigmaName} has an empty list of values`);
  const nodes = list.map((v) => valueNode(field, v, modifiers));
  return modifiers.includes('all') ? and(nodes) : or(nodes);
}

/** A keyword: the text anywhere in the raw line, ASCII case ignored (Sigma keywords are substrings). */
function keywordNode(raw: unknown): QueryNode {
  const value = text(raw);
  if (value === null || value === '') throw new Unsupported('a keyword must be text');
  return { kind: 'text_glob', pattern: `*${sigmaGlob(value)}*` };
}

/** Keywords under modifiers (`'|all': [...]`): every one of them, or any. */
function keywordsNode(values: unknown, modifiers: string[]): QueryNode {
  const unsupported = modifiers.filter((m) => m !== 'all' && m !== 'contains');
  if (unsupported.length > 0) throw new Unsupported(`keywords with |${unsupported.join('|')} are not supported (only |all)`);
  const list = Array.isArray(values) ? values : [values];
  if (list.length === 0) throw new Unsupported('an empty list of keywords');
  const nodes = list.map(keywordNode);
  return modifiers.includes('all') ? and(nodes) : or(nodes);
}

function selectionNode(name: string, selection: unknown, source: LogsourceMapping): QueryNode {
  if (isMap(selection)) {
    const keys = Object.entries(selection);
    if (keys.length === 0) throw new Unsupported(`selection ${name} is empty`);
    return and(keys.map(([key, values]) => fieldNode(key, values, source)));
  }
  if (Array.isArray(selection)) {
    if (selection.length === 0) throw new Unsupported(`selection ${name} is empty`);
    // A list of maps is an OR of them; a list of plain values is keywords.
    if (selection.every(isMap)) return or(selection.map((s, i) => selectionNode(`${name}[${i}]`, s, source)));
    if (selection.some(isMap)) throw new Unsupported(`selection ${name} mixes maps and keywords`);
    return or(selection.map(keywordNode));
  }
  return keywordNode(selection);
}

// ---- conditions -----------------------------------------------------------

function conditionTokens(condition: string): string[] {
  return condition.replace(/#.*$/, '').match(/\(|\)|[^\s()]+/g) ?? [];
}

/** Sigma's condition language: or < and < not, parentheses, "1 of x*", "all of x*", "them". */
function parseCondition(condition: string, selections: Map<string, QueryNode>): QueryNode {
  if (condition.includes('|')) throw new Unsupported('aggregations in the condition ("| count() ...") are Sigma v1: write them as a correlation rule');
  const tokens = conditionTokens(condition);
  let i = 0;
  const peek = () => tokens[i]?.toLowerCase();
  const named = (pattern: string): QueryNode[] => {
    const names = pattern === 'them' ? [...selections.keys()].filter((n) => !n.startsWith('_')) : [...selections.keys()].filter((n) => new RegExp(`^${pattern.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`).test(n));
    if (names.length === 0) throw new Unsupported(`condition names "${pattern}", which matches no selection`);
    return names.map((n) => selections.get(n)!);
  };
  const primary = (): QueryNode => {
    const token = tokens[i++];
    if (token === undefined) throw new Unsupported('the condition ends too early');
    if (token === '(') {
      const inner = orExpr();
      if (tokens[i++] !== ')') throw new Unsupported('unbalanced parentheses in the condition');
      return inner;
    }
    if (/^\d+$/.test(token) || token.toLowerCase() === 'all' || token.toLowerCase() === 'any') {
      if (tokens[i++]?.toLowerCase() !== 'of') throw new Unsupported(`"${token}" must be followed by "of"`);
      const target = tokens[i++];
      if (!target) throw new Unsupported(`"${token} of" names nothing`);
      if (token === '1' || token.toLowerCase() === 'any') return or(named(target));
      if (token.toLowerCase() === 'all') return and(named(target));
      throw new Unsupported(`"${token} of" (at least ${token} selections) is not supported; only "1 of" and "all of"`);
    }
    const selection = selections.get(token);
    if (!selection) throw new Unsupported(`condition names "${token}", which is no selection`);
    return selection;
  };
  const notExpr = (): QueryNode => (peek() === 'not' ? (i++, { kind: 'not', child: notExpr() }) : primary());
  /** Operands joined by `op` (left to right), combined into one node. */
  const joined = (op: 'and' | 'or', operand: () => QueryNode): QueryNode => {
    const children = [operand()];
    while (peek() === op) {
      i++;
      children.push(operand());
    }
    return op === 'and' ? and(children) : or(children);
  };
  const andExpr = (): QueryNode => joined('and', notExpr);
  const orExpr = (): QueryNode => joined('or', andExpr);
  const node = orExpr();
  if (i < tokens.length) throw new Unsupported(`unexpected "${tokens[i]}" in the condition`);
  return node;
}

function detectionNode(detection: unknown, source: LogsourceMapping): QueryNode {
  if (!isMap(detection)) throw new Unsupported('detection is missing');
  const { condition, timeframe, ...rest } = detection;
  if (timeframe !== undefined) throw new Unsupported('timeframe (Sigma v1 aggregation) is not supported: write a correlation rule');
  const selections = new Map<string, QueryNode>();
  for (const [name, selection] of Object.entries(rest)) selections.set(name, selectionNode(name, selection, source));
  const conditions = strings(condition);
  if (conditions.length === 0) throw new Unsupported('detection has no condition');
  // A list of conditions means any of them.
  return or(conditions.map((c) => parseCondition(c, selections)));
}

// ---- rules ----------------------------------------------------------------

const DURATION = /^(\d{1,6})([smhd])$/;
const TITLE_MAX = 200;

function origin(doc: Doc, logsource: Record<string, string>): SigmaOrigin {
  return {
    format: 'sigma',
    id: text(doc.id),
    title: text(doc.title) ?? '',
    author: text(doc.author),
    references: strings(doc.references),
    license: text(doc.license) ?? 'DRL-1.1',
    logsource,
    level: text(doc.level),
    status: text(doc.status),
    date: text(doc.date),
    modified: text(doc.modified),
    falsepositives: strings(doc.falsepositives),
  };
}

function baseDraft(doc: Doc, logsource: Record<string, string>, conditions: LeadRuleConditions): RuleDraft {
  const title = text(doc.title)?.trim();
  if (!title) throw new Unsupported('a rule needs a title');
  const level = text(doc.level)?.toLowerCase() ?? 'medium';
  const severity = LEVEL_TO_SEVERITY[level];
  if (!severity) throw new Unsupported(`level "${level}" is not a Sigma level`);
  const pattern = conditions.pattern;
  try {
    parseQuery(pattern);
    for (const part of conditions.sequence ?? []) parseQuery(part);
  } catch (err) {
    if (err instanceof QuerySyntaxError) throw new Unsupported(`the converted pattern is beyond cairn's limits (${err.message})`);
    throw err;
  }
  return {
    name: title.slice(0, TITLE_MAX),
    description: (text(doc.description) ?? '').trim().slice(0, 2000),
    severity,
    tags: strings(doc.tags).map((t) => t.trim()).filter(Boolean).slice(0, 50),
    conditions,
    origin: origin(doc, logsource),
  };
}

function logsourceOf(doc: Doc): Record<string, string> {
  return Object.fromEntries(Object.entries(isMap(doc.logsource) ? doc.logsource : {}).flatMap(([k, v]) => (text(v) === null ? [] : [[k, text(v)!]])));
}

function convertDetectionRule(doc: Doc): { draft: RuleDraft; detection: Referenced } {
  const logsource = logsourceOf(doc);
  const source = findLogsource(logsource);
  if (!source) throw new Unsupported(`log source ${JSON.stringify(logsource)} is not mapped to cairn's parsers (docs/sigma.md lists those that are)`);
  const detection = detectionNode(doc.detection, source);
  const pattern = source.filter ? and([source.filter, detection]) : detection;
  // A rule exported from cairn names its artifact source as the service.
  const artifactSource = source.cairnNames && logsource.service ? { source: logsource.service } : {};
  return { draft: baseDraft(doc, logsource, { ...artifactSource, pattern: printQuery(pattern) }), detection: { node: pattern, source } };
}

interface Referenced {
  node: QueryNode;
  source: LogsourceMapping;
}

function convertCorrelation(doc: Doc, referenced: Map<string, Referenced>): RuleDraft {
  const correlation = isMap(doc.correlation) ? doc.correlation : {};
  const type = text(correlation.type);
  const refs = strings(correlation.rules);
  if (refs.length === 0) throw new Unsupported('a correlation names no rules');
  const rules = refs.map((ref) => {
    const rule = referenced.get(ref);
    if (!rule) throw new Unsupported(`correlation refers to rule "${ref}", which is not among the rules imported with it or was skipped`);
    return rule;
  });
  const patterns = rules.map((r) => r.node);
  // Fields the correlation names are in the vocabulary of the rules it combines.
  const field = (name: string): string => {
    const mapped = rules.map((r) => mapField(r.source, name)).find((f) => f !== null);
    if (!mapped) throw new Unsupported(`field ${name} has no cairn field for the log sources of the correlated rules`);
    return mapped;
  };
  const groupBy = strings(correlation['group-by']);
  if (groupBy.length > 1) throw new Unsupported(`group-by on ${groupBy.length} fields is not supported (cairn groups by one field)`);
  const timespan = text(correlation.timespan) ?? '';
  if (!DURATION.test(timespan)) throw new Unsupported(`timespan "${timespan}" is not a duration such as 5m or 1h`);
  const group = groupBy[0] ? field(groupBy[0]) : undefined;
  const condition = isMap(correlation.condition) ? correlation.condition : {};
  const threshold = (): number => {
    if (condition.gte !== undefined) return Number(condition.gte);
    if (condition.gt !== undefined) return Number(condition.gt) + 1;
    throw new Unsupported('only gte and gt thresholds are supported in a correlation condition');
  };
  const pattern = printQuery(or(patterns));
  const own = logsourceOf(doc);
  const logsource = Object.keys(own).length ? own : rules[0]!.source.when;
  const base = { pattern, window: timespan, ...(group ? { group_by: group } : {}) };
  switch (type) {
    case 'event_count':
      return baseDraft(doc, logsource, { ...base, threshold: threshold() });
    case 'value_count': {
      const distinct = text(condition.field);
      if (!distinct) throw new Unsupported('value_count needs condition.field');
      return baseDraft(doc, logsource, { ...base, threshold: threshold(), count_distinct: field(distinct) });
    }
    case 'temporal':
    case 'temporal_ordered':
      if (patterns.length < 2) throw new Unsupported(`a ${type} correlation needs at least two rules`);
      return baseDraft(doc, logsource, { ...base, sequence: patterns.map(printQuery), ...(type === 'temporal_ordered' ? { ordered: true } : {}) });
    default:
      throw new Unsupported(`correlation type "${type}" is not supported (event_count, value_count, temporal and temporal_ordered are)`);
  }
}

/** Every document of a Sigma YAML text (one rule, or many separated by ---), converted or skipped with the reason. */
export function convertSigma(yamlText: string): SigmaResult[] {
  const results: SigmaResult[] = [];
  const docs: Doc[] = [];
  for (const document of parseAllDocuments(yamlText)) {
    if (document.errors.length > 0) {
      results.push({ status: 'skipped', title: '', sigma_id: null, reason: `not valid YAML: ${document.errors[0]!.message.split('\n')[0]}` });
      continue;
    }
    const value: unknown = document.toJS();
    if (isMap(value)) docs.push(value);
    else if (value !== null) results.push({ status: 'skipped', title: '', sigma_id: null, reason: 'a Sigma rule is a YAML map' });
  }
  // Detection rules first, so correlations can refer to them by id or name.
  const referenced = new Map<string, Referenced>();
  const usedByCorrelation = new Set(docs.filter((d) => isMap(d.correlation)).flatMap((d) => strings((d.correlation as Doc).rules)));
  const report = (doc: Doc, convert: () => RuleDraft): SigmaResult => {
    const title = text(doc.title) ?? '';
    const sigmaId = text(doc.id);
    try {
      return { status: 'imported', title, sigma_id: sigmaId, draft: convert() };
    } catch (err) {
      if (err instanceof Unsupported) return { status: 'skipped', title, sigma_id: sigmaId, reason: err.message };
      throw err;
    }
  };
  for (const doc of docs.filter((d) => !isMap(d.correlation))) {
    let detection: Referenced | null = null;
    const result = report(doc, () => {
      const converted = convertDetectionRule(doc);
      detection = converted.detection;
      return converted.draft;
    });
    if (detection) for (const key of [text(doc.id), text(doc.name)]) if (key) referenced.set(key, detection);
    const referencedBy = [text(doc.id), text(doc.name)].some((k) => k && usedByCorrelation.has(k));
    // Rules a correlation refers to do not alert on their own unless they say generate: true.
    if (result.status === 'imported' && referencedBy && doc.generate !== true) {
      results.push({ status: 'skipped', title: result.title, sigma_id: result.sigma_id, reason: 'part of a correlation rule (generate: false); its matches count in the correlation' });
    } else {
      results.push(result);
    }
  }
  for (const doc of docs.filter((d) => isMap(d.correlation))) results.push(report(doc, () => convertCorrelation(doc, referenced)));
  return results;
}
