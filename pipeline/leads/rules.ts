// The enabled lead rules, compiled for matching. The API announces every
// change in hot state (change notices), and the stage checks the notice
// before each batch, so a rule created, changed, disabled or deleted applies
// to every artifact ingested after the API answered. A periodic reload is the
// backstop for changes made behind the API's back.
import type { LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { parseDuration } from '../../lib/duration.js';
import type { Logger } from '../../lib/logger.js';
import { compileMatcher, type PreparedTarget } from '../../query/match.js';
import { parseQuery } from '../../query/parse.js';

export interface CompiledRule {
  rule: LeadRule;
  matches: (target: PreparedTarget) => boolean;
  /** Set together: fire when `threshold` matching events (or distinct keys) fall in one window of `windowMs`. */
  threshold?: number;
  windowMs?: number;
  /** Count per value of this field. */
  groupBy?: string;
  /**
   * What a window counts instead of events: the distinct values of a field
   * (count_distinct), or which patterns of a sequence matched (all of them fire).
   */
  countKeys?: (target: PreparedTarget) => string[];
}

export function compileRule(rule: LeadRule): CompiledRule {
  const { pattern, threshold, window, group_by, count_distinct, sequence } = rule.conditions;
  const compiled: CompiledRule = { rule, matches: compileMatcher(parseQuery(pattern)), groupBy: group_by || undefined };
  if (sequence && window) {
    const parts = sequence.map((p) => compileMatcher(parseQuery(p)));
    compiled.threshold = parts.length;
    compiled.windowMs = parseDuration(window);
    compiled.countKeys = (target) => parts.flatMap((part, i) => (part(target) ? [String(i)] : []));
  } else if (threshold && window) {
    compiled.threshold = threshold;
    compiled.windowMs = parseDuration(window);
    if (count_distinct) compiled.countKeys = (target) => target.values(count_distinct);
  }
  return compiled;
}

export class RuleSet {
  private byOrg = new Map<string, CompiledRule[]>();
  private compiled = new Map<string, { version: string; rule: CompiledRule }>();
  private timer: NodeJS.Timeout | null = null;
  /** The change notice current when the loaded rules were read. */
  private loadedNotice: string | null = null;

  constructor(
    private readonly load: () => Promise<LeadRule[]>,
    private readonly notice: () => Promise<string | null>,
    private readonly logger: Logger,
    /** Read before each wait, so a new CAIRN_RULE_REFRESH_MS from the appliance config applies without a restart. */
    private readonly refreshMs: () => number,
  ) {}

  async start(): Promise<void> {
    await this.refresh();
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.refresh()
        .catch((err: unknown) => this.logger.warn({ err }, 'could not refresh lead rules; keeping the ones loaded'))
        .finally(() => {
          if (this.timer) this.schedule();
        });
    }, this.refreshMs());
    this.timer.unref();
  }

  /** Reloads when a change was announced since the last load; call before using the rules. */
  async ensureCurrent(): Promise<void> {
    if ((await this.notice()) !== this.loadedNotice) await this.refresh();
  }

  /** Reloads the enabled rules; a rule whose pattern does not compile is skipped with a warning. */
  async refresh(): Promise<void> {
    // Read the notice first: a change landing during the load moves it again, and the next check reloads.
    const notice = await this.notice();
    const rules = await this.load();
    const byOrg = new Map<string, CompiledRule[]>();
    const compiled = new Map<string, { version: string; rule: CompiledRule }>();
    for (const rule of rules) {
      const version = rule.updated_at;
      let entry = this.compiled.get(rule.id);
      if (!entry || entry.version !== version) {
        try {
          entry = { version, rule: compileRule(rule) };
        } catch (err) {
          this.logger.warn({ rule: rule.id, name: rule.name, err: (err as Error).message }, 'lead rule does not compile; skipped');
          continue;
        }
      }
      compiled.set(rule.id, entry);
      byOrg.set(rule.org_id, [...(byOrg.get(rule.org_id) ?? []), entry.rule]);
    }
    this.compiled = compiled;
    this.byOrg = byOrg;
    this.loadedNotice = notice;
  }

  rulesFor(orgId: string): CompiledRule[] {
    return this.byOrg.get(orgId) ?? [];
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }
}
