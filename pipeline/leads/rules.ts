// The enabled lead rules, compiled for matching. The API announces every
// change in hot state (change notices), and the stage checks the notice
// before each batch, so a rule created, changed, disabled or deleted applies
// to every artifact ingested after the API answered. A periodic reload is the
// backstop for changes made behind the API's back (pipeline/state/watched-list.ts).
import type { LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { parseDuration } from '../../lib/duration.js';
import type { Logger } from '../../lib/logger.js';
import { compileMatcher, type PreparedTarget } from '../../query/match.js';
import { parseQuery } from '../../query/parse.js';
import { WatchedList } from '../state/watched-list.js';

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
  matches: (target: PreparedTarget) => boolean;
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

export function compileRule(rule: LeadRule): CompiledRule {
  const { pattern, threshold, window, group_by, count_distinct, sequence, ordered, first_seen } = rule.conditions;
  const compiled: CompiledRule = { rule, kind: 'event', matches: compileMatcher(parseQuery(pattern)), groupBy: group_by || undefined };
  if (sequence && window) {
    const parts = sequence.map((p) => compileMatcher(parseQuery(p)));
    compiled.kind = ordered ? 'ordered' : 'window';
    compiled.threshold = parts.length;
    compiled.steps = parts.length;
    compiled.windowMs = parseDuration(window);
    compiled.countKeys = (target) => parts.flatMap((part, i) => (part(target) ? [String(i)] : []));
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

/** What a thread needs to match with the rules the rule set holds: plain data, so it can be sent to a worker. */
export interface RuleSnapshot {
  /** Changes whenever the rules do. */
  generation: number;
  rules: LeadRule[];
}

/**
 * Rules compiled for matching, by organization. Recompiles only rules whose
 * `updated_at` changed, so a reload of an unchanged set costs nothing.
 */
export class CompiledRules {
  private byOrg = new Map<string, CompiledRule[]>();
  private byId = new Map<string, { version: string; rule: CompiledRule }>();

  constructor(private readonly onError: (rule: LeadRule, err: Error) => void) {}

  /** Replaces the rules; a rule whose pattern does not compile is left out and reported. */
  update(rules: LeadRule[]): void {
    const byOrg = new Map<string, CompiledRule[]>();
    const byId = new Map<string, { version: string; rule: CompiledRule }>();
    for (const rule of rules) {
      const version = rule.updated_at;
      let entry = this.byId.get(rule.id);
      if (!entry || entry.version !== version) {
        try {
          entry = { version, rule: compileRule(rule) };
        } catch (err) {
          this.onError(rule, err as Error);
          continue;
        }
      }
      byId.set(rule.id, entry);
      byOrg.set(rule.org_id, [...(byOrg.get(rule.org_id) ?? []), entry.rule]);
    }
    this.byId = byId;
    this.byOrg = byOrg;
  }

  rulesFor(orgId: string): CompiledRule[] {
    return this.byOrg.get(orgId) ?? [];
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
