// What the kinds of lead rules share: the firing they make, matches, and
// windows of events in hot state (evaluate.ts, ordered.ts, first-seen.ts,
// suppress.ts; threat intel hits count their windows this way too).
import { stableId } from '../../lib/ids.js';
import type { EnrichedEvent } from '../../topics/index.js';
import type { HotState } from '../state/index.js';
import type { CompiledRule } from './rules.js';

/** Kept per firing: enough to follow an attack, bounded so one noisy window cannot grow without limit. */
export const MAX_FIRING_ARTIFACTS = 1000;
export const MAX_FIRING_NODES = 200;

export interface Firing {
  rule: CompiledRule['rule'];
  /** Also the lead's id: one observation and one lead per firing. */
  id: string;
  group: string;
  windowStart: number | null;
  /** Matching events in the firing. */
  count: number;
  /** For rules counting keys: how many distinct values (or sequence parts) the window holds; for ordered sequences, how many completed. */
  distinct: number | null;
  /** For a first_seen rule: the value new for its group. */
  value?: string;
  artifactIds: string[];
  nodeIds: string[];
  firstSeen: number;
  lastSeen: number;
  /** An event of the firing, for its description and type. */
  sample: RuleEvent;
}

/** A firing to emit, and the hot-state values that remember it once it is written. */
export interface Candidate {
  firing: Firing;
  marks: [key: string, value: string][];
}

/** What an evaluator of one kind of rule gives: candidate firings, and what to remember after the writes. */
export interface Evaluated {
  candidates: Candidate[];
  commit?: () => Promise<void>;
}

/**
 * What the rule step reads of an event a rule matched: its artifact, source,
 * the nodes it names, and the fields of RULE_EVENT_FIELDS and of the rules'
 * `group_by`. An EnrichedEvent is one; the analysis worker sends back only
 * these parts (pipeline/analysis/analyse.ts ruleEventOf), so that a task's
 * matched events need not be kept whole until it ends.
 */
export interface RuleEvent {
  artifact_id: string;
  org_id: string;
  source: string;
  fields: EnrichedEvent['fields'];
  entities: { id: string }[];
}

/** Fields a firing's description and type read from its sample (firing-records.ts), besides `group_by`. */
export const RULE_EVENT_FIELDS = ['event.category', 'source.ip', 'user.name'] as const;

/** An event a rule matched. */
export interface Match {
  rule: CompiledRule;
  event: RuleEvent;
  at: number;
  /** What the window counts for this event when the rule counts keys rather than events. */
  keys: string[];
}

/** The value of `field` an event is grouped by (its first when it has several); null when it has none. */
export function groupValue(event: RuleEvent, field: string): string | null {
  if (field === 'source') return event.source;
  const value = event.fields[field];
  if (value === undefined || typeof value === 'boolean') return null;
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? null : String(first);
}

/** The nodes an event names, each once, as many as a firing keeps: what a firing, a window and a sequence record of it. */
export function eventNodeIds(event: RuleEvent): string[] {
  return [...new Set(event.entities.map((e) => e.id))].slice(0, MAX_FIRING_NODES);
}

/** What one event adds to a window in hot state: its artifact, its nodes and, for a rule counting keys, its keys. */
export interface WindowEntry {
  artifactId: string;
  at: number;
  nodeIds: string[];
  keys?: string[];
}

/**
 * Adds events to the window at `base` in hot state: idempotent sets of their
 * artifacts, nodes and keys (`base:artifacts`, `:nodes`, `:keys`) kept `ttl`
 * ms, so a replayed event does not count twice. Lead rules and threat intel
 * hits (threatintel/matcher.ts) count their windows this way.
 */
export async function addToWindow(state: HotState, base: string, ttl: number, entries: WindowEntry[]): Promise<void> {
  await Promise.all(
    entries.flatMap(({ artifactId, at, nodeIds, keys = [] }) => [
      state.windowAdd(`${base}:artifacts`, artifactId, at, ttl),
      ...nodeIds.map((id) => state.windowAdd(`${base}:nodes`, id, at, ttl)),
      ...keys.map((k) => state.windowAdd(`${base}:keys`, k, at, ttl)),
    ]),
  );
}

/** The artifact and node ids of the window at `base`, as many as a firing keeps. */
export async function windowIds(state: HotState, base: string): Promise<{ artifactIds: string[]; nodeIds: string[] }> {
  const [artifactIds, nodeIds] = await Promise.all([state.windowMembers(`${base}:artifacts`, -Infinity, Infinity), state.windowMembers(`${base}:nodes`, -Infinity, Infinity)]);
  return { artifactIds: artifactIds.slice(0, MAX_FIRING_ARTIFACTS), nodeIds: nodeIds.slice(0, MAX_FIRING_NODES) };
}

/** Where a rule keeps its state for one group: `${ruleBase(rule, group)}:...`. */
export function ruleBase(rule: CompiledRule, group: string): string {
  return `leads:${rule.rule.id}:${group}`;
}

/** How long a window's sets are kept: a while past the window, so late events of it still count (and backfills of old windows work). */
export function windowTtl(windowMs: number): number {
  return Math.max(2 * windowMs, 3_600_000);
}

/**
 * The firing of the window of `rule` and `group` starting at `windowStart`
 * when it holds `threshold` counted items (its keys when the rule counts
 * keys, else its events) and changed since it was last emitted; null
 * otherwise.
 */
export async function windowFiring(state: HotState, rule: CompiledRule, group: string, windowStart: number, threshold: number, sample: RuleEvent): Promise<Candidate | null> {
  const base = `${ruleBase(rule, group)}:${windowStart}`;
  const stats = await state.windowStats(`${base}:artifacts`);
  // A rule counting keys (distinct values, sequence parts, completed sequences) fires on their number; the others on events.
  const counted = rule.countKeys ? await state.windowStats(`${base}:keys`) : stats;
  if (!stats || !counted || counted.count < threshold) return null;
  if ((await state.get(`${base}:emitted`)) === String(stats.count)) return null;
  const { artifactIds, nodeIds } = await windowIds(state, base);
  const firing: Firing = {
    rule: rule.rule,
    id: stableId('observation', rule.rule.id, group, String(windowStart)),
    group,
    windowStart,
    count: stats.count,
    distinct: rule.countKeys ? counted.count : null,
    artifactIds,
    nodeIds,
    firstSeen: stats.first,
    lastSeen: stats.last,
    sample,
  };
  return { firing, marks: [[`${base}:emitted`, String(stats.count)]] };
}

/** Matches by rule and group (the value of group_by, or '' for the whole rule); matches without the group_by field are left out. */
export function byRuleAndGroup(matches: Match[]): { rule: CompiledRule; group: string; matches: Match[] }[] {
  const groups = new Map<string, { rule: CompiledRule; group: string; matches: Match[] }>();
  for (const match of matches) {
    const { rule } = match;
    const group = rule.groupBy ? groupValue(match.event, rule.groupBy) : '';
    if (group === null) continue;
    const key = `${rule.rule.id}\u0000${group}`;
    const entry = groups.get(key) ?? { rule, group, matches: [] };
    entry.matches.push(match);
    groups.set(key, entry);
  }
  return [...groups.values()];
}

