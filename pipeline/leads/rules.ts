// The enabled lead rules, compiled for matching. The API announces every
// change in hot state (change notices), and the stage checks the notice
// before each batch, so a rule created, changed, disabled or deleted applies
// to every artifact ingested after the API answered. A periodic reload is the
// backstop for changes made behind the API's back (pipeline/state/watched-list.ts).
import type { LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { parseDuration } from '../../lib/duration.js';
import type { Logger } from '../../lib/logger.js';
import { compileMatcher, SharedParts, type GateTerm, type PreparedTarget } from '../../query/match.js';
import type { QueryNode } from '../../query/ast.js';
import { parseQuery } from '../../query/parse.js';
import { WatchedList } from '../state/watched-list.js';
import { gateOf } from './dispatch.js';
import { RULE_EVENT_FIELDS } from './windows.js';

/**
 * How a rule's matches become firings (evaluate.ts):
 * - `event`: every matching event fires;
 * - `window`: N matching events (or distinct keys) in one tumbling window (threshold, count_distinct, sequence);
 * - `ordered`: the steps of a sequence in their order of event time, the last within the window of the first;
 * - `first_seen`: a value of a field new for its group in the memory's span of event time.
 */
export type RuleKind = 'event' | 'window' | 'ordered' | 'first_seen';

export interface CompiledRule {
  rule: LeadRule;
  kind: RuleKind;
  /** The artifact source the rule is limited to (`conditions.source`), if any. */
  source: string | undefined;
  matches: (target: PreparedTarget) => boolean;
  /** Terms one of which every match meets (values, fields, texts): the rule is filed under them (dispatch.ts); null for none. */
  gate: GateTerm[] | null;
  /** window: fire when `threshold` matching events (or distinct keys) fall in one window of `windowMs`. */
  threshold?: number;
  /** window and ordered: the window's length. */
  windowMs?: number;
  /** Count per value of this field. */
  groupBy?: string;
  /**
   * What a match carries besides the event: the distinct values of a field
   * (count_distinct, first_seen), or which patterns of a sequence the event
   * matches (by index).
   */
  countKeys?: (target: PreparedTarget) => string[];
  /** ordered: how many patterns the sequence has. */
  steps?: number;
  /** first_seen: how long a value is remembered for its group, in event time. */
  memoryMs?: number;
}

const DAY_MS = 86_400_000;

/** A rule compiled alone, or with the parts it shares with the other rules of its set (query/match.ts SharedParts). */
export function compileRule(rule: LeadRule, shared?: SharedParts): CompiledRule {
  const { pattern, threshold, window, group_by, count_distinct, sequence, ordered, first_seen } = rule.conditions;
  const query = parseQuery(pattern);
  const compiled: CompiledRule = { rule, kind: 'event', source: rule.conditions.source || undefined, matches: compileMatcher(query, shared), gate: gateOf(query), groupBy: group_by || undefined };
  if (sequence && window) {
    // A step written more than once ("five failures, then a success") is tested once per event: its result gives
    // every index it stands at.
    const distinct = [...new Set(sequence)].map((p) => ({
      matches: compileMatcher(parseQuery(p), shared),
      indexes: sequence.flatMap((q, i) => (q === p ? [String(i)] : [])),
    }));
    compiled.kind = ordered ? 'ordered' : 'window';
    compiled.threshold = sequence.length;
    compiled.steps = sequence.length;
    compiled.windowMs = parseDuration(window);
    compiled.countKeys = (target) => {
      const matched: string[] = [];
      for (const step of distinct) if (step.matches(target)) matched.push(...step.indexes);
      return matched;
    };
  } else if (threshold && window) {
    compiled.kind = 'window';
    compiled.threshold = threshold;
    compiled.windowMs = parseDuration(window);
    if (count_distinct) compiled.countKeys = (target) => target.values(count_distinct);
  } else if (first_seen) {
    compiled.kind = 'first_seen';
    compiled.memoryMs = first_seen.days * DAY_MS;
    compiled.countKeys = (target) => [...new Set(target.values(first_seen.field))];
  }
  return compiled;
}

/** A rule's queries (its pattern and a sequence's steps); none for a rule that does not parse (compileRule reports it). */
function parsedQueries(rule: LeadRule): QueryNode[] {
  try {
    return [rule.conditions.pattern, ...(rule.conditions.sequence ?? [])].map((text) => parseQuery(text));
  } catch {
    return [];
  }
}

/** What a thread needs to match with the rules the rule set holds: plain data, so it can be sent to a worker. */
export interface RuleSnapshot {
  /** Changes whenever the rules do. */
  generation: number;
  rules: LeadRule[];
}

/** Rules compiled for matching, by organization; a reload of an unchanged set costs nothing. */
export class CompiledRules {
  private byOrg = new Map<string, CompiledRule[]>();
  private byId = new Map<string, { version: string; rule: CompiledRule }>();
  private eventFieldsByOrg = new Map<string, string[]>();

  constructor(private readonly onError: (rule: LeadRule, err: Error) => void) {}

  /**
   * Replaces the rules; a rule whose pattern does not compile is left out
   * and reported. The parts rules share are worked out over the whole set,
   * so any change recompiles every rule (a few milliseconds for the pack); an
   * unchanged set keeps its compiled rules.
   */
  update(rules: LeadRule[]): void {
    const unchanged = rules.length === this.byId.size && rules.every((rule) => this.byId.get(rule.id)?.version === rule.updated_at);
    if (unchanged) return;
    const shared = new SharedParts(rules.flatMap(parsedQueries));
    const byOrg = new Map<string, CompiledRule[]>();
    const byId = new Map<string, { version: string; rule: CompiledRule }>();
    for (const rule of rules) {
      let entry: { version: string; rule: CompiledRule };
      try {
        entry = { version: rule.updated_at, rule: compileRule(rule, shared) };
      } catch (err) {
        this.onError(rule, err as Error);
        continue;
      }
      byId.set(rule.id, entry);
      byOrg.set(rule.org_id, [...(byOrg.get(rule.org_id) ?? []), entry.rule]);
    }
    this.byId = byId;
    this.byOrg = byOrg;
    this.eventFieldsByOrg = new Map([...byOrg].map(([orgId, list]) => [orgId, [...new Set([...RULE_EVENT_FIELDS, ...list.flatMap((r) => (r.groupBy ? [r.groupBy] : []))])]]));
  }

  rulesFor(orgId: string): CompiledRule[] {
    return this.byOrg.get(orgId) ?? [];
  }

  /** The fields the rule step reads of an event of this organization's rules matched (windows.ts RuleEvent). */
  eventFields(orgId: string): readonly string[] {
    return this.eventFieldsByOrg.get(orgId) ?? RULE_EVENT_FIELDS;
  }

  rule(id: string): CompiledRule | undefined {
    return this.byId.get(id)?.rule;
  }
}

export class RuleSet {
  private readonly compiled: CompiledRules;
  private readonly list: WatchedList<LeadRule>;

  constructor(
    load: () => Promise<LeadRule[]>,
    notice: () => Promise<string | null>,
    logger: Logger,
    /** Read before each wait, so a new CAIRN_RULE_REFRESH_MS from the appliance config applies without a restart. */
    refreshMs: () => number,
  ) {
    this.compiled = new CompiledRules((rule, err) => logger.warn({ rule: rule.id, name: rule.name, err: err.message }, 'lead rule does not compile; skipped'));
    this.list = new WatchedList({ what: 'lead rules', load, notice, logger, refreshMs, onLoad: (rules) => this.compiled.update(rules) });
  }

  start(): Promise<void> {
    return this.list.start();
  }

  /** Reloads when a change was announced since the last load; call before using the rules. */
  ensureCurrent(): Promise<void> {
    return this.list.ensureCurrent();
  }

  /** Reloads the enabled rules; a rule whose pattern does not compile is skipped with a warning. */
  refresh(): Promise<void> {
    return this.list.refresh();
  }

  rulesFor(orgId: string): CompiledRule[] {
    return this.compiled.rulesFor(orgId);
  }

  /** A loaded rule by id (undefined once it is gone). */
  rule(id: string): CompiledRule | undefined {
    return this.compiled.rule(id);
  }

  /** The loaded rules as data, for matching on another thread (pipeline/analysis). */
  snapshot(): RuleSnapshot {
    const { generation, items } = this.list.snapshot();
    return { generation, rules: items };
  }

  stop(): void {
    this.list.stop();
  }
}
