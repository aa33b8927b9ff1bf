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
// Ordered sequences (ordered.ts) and first-seen values (first-seen.ts) have
// their own counting; suppression (suppress.ts) applies to every kind.
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
import { dispatchOf, type RuleDispatch } from './dispatch.js';
import { evaluateFirstSeen } from './first-seen.js';
import { evaluateOrdered } from './ordered.js';
import type { CompiledRule } from './rules.js';
import { suppressFirings } from './suppress.js';
import { addToWindow, byRuleAndGroup, eventNodeIds, groupValue, ruleBase, windowFiring, windowTtl, type Candidate, type Evaluated, type Firing, type Match } from './windows.js';

export type { Firing, Match } from './windows.js';

export interface Evaluation {
  firings: Firing[];
  /**
   * Call once the firings are written (whether or not there are any):
   * remembers what was emitted, so an unchanged window is not emitted again,
   * and what must only be remembered after the writes (values seen,
   * suppression), so a batch retried after a crash decides the same.
   */
  markEmitted(): Promise<void>;
}

/** Which rules match which events: pure, so it may run where the events were made (pipeline/analysis, on a worker). */
export function findMatches(events: EnrichedEvent[], rulesFor: (orgId: string) => CompiledRule[]): Match[] {
  const matches: Match[] = [];
  forEachMatch(events, rulesFor, (rule, index, at, keys) => matches.push({ rule, event: events[index]!, at, keys }));
  return matches;
}

/**
 * findMatches without a list: each match handed over as it is found, the
 * event by its place in `events`. The analysis worker keeps only what it
 * sends back; every object made per event and rule here is garbage to collect
 * on the ingest path.
 */
export function forEachMatch(
  events: EnrichedEvent[],
  rulesFor: (orgId: string) => CompiledRule[],
  onMatch: (rule: CompiledRule, eventIndex: number, at: number, keys: string[]) => void,
): void {
  const candidates: CompiledRule[] = [];
  // The dispatch of the last organization's rules: a batch is mostly one organization's, and looking it up per event showed.
  let lastRules: CompiledRule[] | null = null;
  let dispatch: RuleDispatch | null = null;
  const now = Date.now();
  for (let index = 0; index < events.length; index++) {
    const event = events[index]!;
    const rules = rulesFor(event.org_id);
    if (rules.length === 0) continue;
    if (rules !== lastRules) [lastRules, dispatch] = [rules, dispatchOf(rules)];
    const target = new PreparedTarget({ id: event.artifact_id, source: event.source, raw: event.raw, fields: event.fields });
    let at: number | undefined;
    for (const rule of dispatch!.candidates(target, candidates)) {
      if (rule.source && rule.source !== event.source) continue;
      if (!rule.matches(target)) continue;
      const keys = rule.countKeys ? rule.countKeys(target) : NO_KEYS;
      // An event of a sequence's pattern that is none of its steps is no part of it: not counted, not sent on.
      if (rule.steps !== undefined && keys.length === 0) continue;
      at ??= eventTime(event, now);
      onMatch(rule, index, at, keys);
    }
  }
}

const NO_KEYS: string[] = [];


function singleFiring({ rule, event, at }: Match): Firing {
  return {
    rule: rule.rule,
    id: stableId('observation', rule.rule.id, event.artifact_id),
    group: (rule.groupBy && groupValue(event, rule.groupBy)) || '',
    windowStart: null,
    count: 1,
    distinct: null,
    artifactIds: [event.artifact_id],
    nodeIds: eventNodeIds(event),
    firstSeen: at,
    lastSeen: at,
    sample: event,
  };
}

/** Tumbling windows: threshold, count_distinct and unordered sequences. */
async function evaluateWindows(matches: Match[], state: HotState): Promise<Evaluated> {
  const buckets = new Map<string, { rule: CompiledRule; group: string; windowStart: number; matches: Match[] }>();
  for (const match of matches) {
    const { rule } = match;
    const group = rule.groupBy ? groupValue(match.event, rule.groupBy) : '';
    if (group === null) continue;
    const windowStart = Math.floor(match.at / rule.windowMs!) * rule.windowMs!;
    const key = `${rule.rule.id}:${group}:${windowStart}`;
    const bucket = buckets.get(key) ?? { rule, group, windowStart, matches: [] };
    bucket.matches.push(match);
    buckets.set(key, bucket);
  }
  const candidates: Candidate[] = [];
  for (const { rule, group, windowStart, matches } of buckets.values()) {
    await addToWindow(
      state,
      `${ruleBase(rule, group)}:${windowStart}`,
      windowTtl(rule.windowMs!),
      matches.map(({ event, at, keys }) => ({ artifactId: event.artifact_id, at, nodeIds: eventNodeIds(event), keys })),
    );
    const candidate = await windowFiring(state, rule, group, windowStart, rule.threshold!, matches[0]!.event);
    if (candidate) candidates.push(candidate);
  }
  return { candidates };
}

/** The firings that matches make, counting windows, sequences and values seen in hot state, less the suppressed ones. */
export async function evaluateMatches(matches: Match[], state: HotState): Promise<Evaluation> {
  const ofKind = (kind: CompiledRule['kind']) => matches.filter((m) => m.rule.kind === kind);
  // Groups keep their state apart, so they are evaluated together.
  const evaluated: Evaluated[] = [
    { candidates: ofKind('event').map((m) => ({ firing: singleFiring(m), marks: [] })) },
    await evaluateWindows(ofKind('window'), state),
    ...(await Promise.all(byRuleAndGroup(ofKind('ordered')).map(({ rule, group, matches }) => evaluateOrdered(rule, group, matches, state)))),
    ...(await Promise.all(byRuleAndGroup(ofKind('first_seen')).map(({ rule, group, matches }) => evaluateFirstSeen(rule, group, matches, state)))),
  ];
  const suppression = await suppressFirings(evaluated.flatMap((e) => e.candidates), state);
  return {
    firings: suppression.kept.map((c) => c.firing),
    async markEmitted() {
      await Promise.all(suppression.kept.flatMap((c) => c.marks).map(([key, value]) => state.set(key, value, 24 * 3_600_000)));
      await Promise.all(evaluated.map((e) => e.commit?.()));
      await suppression.commit();
    },
  };
}
