// First-seen values: a rule with `first_seen: {field, days}` fires on an
// event whose value of `field` was not seen for its group (group_by, or the
// whole rule) in the `days` days of event time before it.
//
// The memory is a time-ordered set in hot state per rule and group: each
// value at the time it was last seen. A value is new when the set does not
// hold it, or holds it more than `days` before the event. Decisions follow
// arrival: of a new value's events, the first to arrive fires (the earliest
// when they come in one batch), and an event older than the value's last
// sighting never fires (a late event of a value already reported). Events
// of one group mostly arrive in order; over several Kafka partitions a later
// event of a burst may be the one that fires. The memory is written only after the firings are
// (Evaluation.markEmitted), so a batch retried after a crash decides the
// same; a replayed event finds its value and does not fire again.
//
// With `baseline`, a group the memory holds nothing of (a new account, a
// host never seen, or one idle past `days`) learns its first value without
// firing: "new for the account" then means new against a history, not the
// first login of every account after a rule is enabled.
//
// The memory is bounded: values not seen for `days` before the newest event
// of the group are dropped, at most MAX_VALUES_PER_GROUP are kept (the
// longest unseen go first), and a group's set expires `days` (plus a day)
// after its last change.
import { stableId } from '../../lib/ids.js';
import type { HotState } from '../state/index.js';
import { eventNodeIds, ruleBase, type Candidate, type Evaluated, type Firing, type Match } from './windows.js';
import type { CompiledRule } from './rules.js';

export const MAX_VALUES_PER_GROUP = 10_000;
/** A value's last sighting is moved forward only by this much or more: a value seen again and again costs a write a minute, not one an event. */
const REFRESH_MS = 60_000;
const DAY_MS = 86_400_000;

/** The firings first-seen matches of one rule and group make, and the memory to write once they are. */
export async function evaluateFirstSeen(rule: CompiledRule, group: string, matches: Match[], state: HotState): Promise<Evaluated> {
  const memoryMs = rule.memoryMs!;
  const key = `${ruleBase(rule, group)}:seen`;
  const values = [...new Set(matches.flatMap((m) => m.keys))];
  const times = await Promise.all(values.map((v) => state.windowTime(key, v)));
  const lastSeen = new Map(values.map((v, i) => [v, times[i]!]));
  const changed = new Map<string, number>();
  const candidates: Candidate[] = [];
  // Read only for baseline rules: one more hot-state read per group and batch.
  let known = !rule.rule.conditions.first_seen?.baseline || times.some((t) => t !== null) || ((await state.windowStats(key))?.count ?? 0) > 0;
  // In event time, so the earliest event of a value new in the batch is the one that fires.
  const ordered = [...matches].sort((a, b) => a.at - b.at || (a.event.artifact_id < b.event.artifact_id ? -1 : 1));
  for (const match of ordered) {
    for (const value of match.keys) {
      const previous = lastSeen.get(value) ?? null;
      if (previous !== null && match.at <= previous) continue;
      if (previous === null || match.at - previous > memoryMs) {
        if (known) candidates.push({ firing: firstSeenFiring(rule, group, value, match), marks: [] });
        known = true;
      } else if (match.at - previous < REFRESH_MS) {
        continue;
      }
      lastSeen.set(value, match.at);
      changed.set(value, match.at);
    }
  }

  return {
    candidates,
    async commit() {
      if (changed.size === 0) return;
      const ttl = memoryMs + DAY_MS;
      await Promise.all([...changed].map(([value, at]) => state.windowAdd(key, value, at, ttl)));
      await state.windowTrim(key, Math.max(...changed.values()) - memoryMs);
      const stats = await state.windowStats(key);
      if (stats && stats.count > MAX_VALUES_PER_GROUP) {
        const oldest = await state.windowEntries(key, -Infinity, Infinity, stats.count - MAX_VALUES_PER_GROUP);
        await state.windowTrim(key, oldest[oldest.length - 1]!.at + 1);
      }
    },
  };
}

/**
 * One firing per new value. Its identity is (rule, group, value, the span
 * of `days` days of event time the event falls in): two firings for one
 * value are more than `days` apart, so never share it, and two consumers
 * that raced on the same new value write one lead.
 */
function firstSeenFiring(rule: CompiledRule, group: string, value: string, { event, at }: Match): Firing {
  const span = Math.floor(at / rule.memoryMs!);
  return {
    rule: rule.rule,
    id: stableId('observation', rule.rule.id, 'first_seen', group, value, String(span)),
    group,
    windowStart: null,
    count: 1,
    distinct: null,
    value,
    artifactIds: [event.artifact_id],
    nodeIds: eventNodeIds(event),
    firstSeen: at,
    lastSeen: at,
    sample: event,
  };
}
