// The rule step: which enriched events match which lead rules, and which
// firings that makes.
//
// Without a threshold every matching event fires. With `threshold` N and
// `window` W a rule fires when N matching events fall in one window, counted
// per value of `group_by` when it is set. Windows tumble: they are aligned to
// the epoch in event time (a 5m window runs 06:00–06:05, 06:05–06:10 UTC...),
// so a firing has one identity, (rule, group, window), that replays and
// restarts reproduce. The price is that a burst straddling a window boundary
// is counted in two windows. Events without the group_by field do not count.
//
// Window membership lives in hot state (idempotent sets of artifact ids), so
// it survives a restart, and a replayed event does not count twice. A firing
// is emitted again when more events join its window: same observation and
// lead ids, newer version, higher count.
import { stableId } from '../../lib/ids.js';
import { PreparedTarget } from '../../query/match.js';
import type { EnrichedEvent } from '../../topics/index.js';
import { eventTime } from '../event-time.js';
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
  /** For rules counting keys: how many distinct values (or sequence parts) the window holds. */
  distinct: number | null;
  artifactIds: string[];
  nodeIds: string[];
  firstSeen: number;
  lastSeen: number;
  /** An event of the firing, for its description and type. */
  sample: EnrichedEvent;
}

export interface Evaluation {
  firings: Firing[];
  /** Call once the firings are written: remembers what was emitted, so an unchanged window is not emitted again. */
  markEmitted(): Promise<void>;
}

/** An event a rule matched. */
export interface Match {
  rule: CompiledRule;
  event: EnrichedEvent;
  at: number;
  /** What the window counts for this event when the rule counts keys rather than events. */
  keys: string[];
}

function groupValue(event: EnrichedEvent, field: string): string | null {
  if (field === 'source') return event.source;
  const value = event.fields[field];
  if (value === undefined || typeof value === 'boolean') return null;
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? null : String(first);
}

/** Which rules match which events: pure, so it may run where the events were made (pipeline/analysis, on a worker). */
export function findMatches(events: EnrichedEvent[], rulesFor: (orgId: string) => CompiledRule[]): Match[] {
  const matches: Match[] = [];
  for (const event of events) {
    const rules = rulesFor(event.org_id);
    if (rules.length === 0) continue;
    const target = new PreparedTarget({ id: event.artifact_id, source: event.source, raw: event.raw, fields: event.fields });
    for (const rule of rules) {
      const source = rule.rule.conditions.source;
      if (source && source !== event.source) continue;
      if (rule.matches(target)) matches.push({ rule, event, at: eventTime(event), keys: rule.countKeys?.(target) ?? [] });
    }
  }
  return matches;
}

function singleFiring({ rule, event, at }: Match): Firing {
  return {
    rule: rule.rule,
    id: stableId('observation', rule.rule.id, event.artifact_id),
    group: '',
    windowStart: null,
    count: 1,
    distinct: null,
    artifactIds: [event.artifact_id],
    nodeIds: [...new Set(event.entities.map((e) => e.id))].slice(0, MAX_FIRING_NODES),
    firstSeen: at,
    lastSeen: at,
    sample: event,
  };
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

/** The firings that matches make, counting windows in hot state. */
export async function evaluateMatches(matches: Match[], state: HotState): Promise<Evaluation> {
  const firings: Firing[] = [];
  const buckets = new Map<string, { rule: CompiledRule; group: string; windowStart: number; matches: Match[] }>();
  for (const match of matches) {
    const { rule } = match;
    if (!rule.threshold || !rule.windowMs) {
      firings.push(singleFiring(match));
      continue;
    }
    const group = rule.groupBy ? groupValue(match.event, rule.groupBy) : '';
    if (group === null) continue;
    const windowStart = Math.floor(match.at / rule.windowMs) * rule.windowMs;
    const key = `${rule.rule.id}:${group}:${windowStart}`;
    const bucket = buckets.get(key) ?? { rule, group, windowStart, matches: [] };
    bucket.matches.push(match);
    buckets.set(key, bucket);
  }

  const marks: [string, string][] = [];
  for (const [key, { rule, group, windowStart, matches }] of buckets) {
    const base = `leads:${key}`;
    // Kept a while past the window, so late events of it still count (and backfills of old windows work).
    const ttl = Math.max(2 * rule.windowMs!, 3_600_000);
    await addToWindow(
      state,
      base,
      ttl,
      matches.map(({ event, at, keys }) => ({ artifactId: event.artifact_id, at, nodeIds: event.entities.map((e) => e.id), keys })),
    );
    const stats = await state.windowStats(`${base}:artifacts`);
    // A rule counting keys (distinct values, sequence parts) fires on their number; the others on events.
    const counted = rule.countKeys ? await state.windowStats(`${base}:keys`) : stats;
    if (!stats || !counted || counted.count < rule.threshold!) continue;
    if ((await state.get(`${base}:emitted`)) === String(stats.count)) continue;
    const { artifactIds, nodeIds } = await windowIds(state, base);
    firings.push({
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
      sample: matches[0]!.event,
    });
    marks.push([`${base}:emitted`, String(stats.count)]);
  }

  return {
    firings,
    async markEmitted() {
      await Promise.all(marks.map(([key, count]) => state.set(key, count, 24 * 3_600_000)));
    },
  };
}
