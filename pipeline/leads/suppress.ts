// Suppression: a rule with `suppress: P` raises no firing for a group
// within P (event time, either side) of another it raised for that group, so
// a scanner gives one lead an hour, not one a minute. The leads a group gets
// are at least P apart; a firing already raised is still updated as its
// window grows. When events arrive out of order, which firing of a busy
// period is the one raised depends on what arrived first.
//
// Hot state holds, per rule and group, the firings raised (id at their time,
// a time-ordered set), written after the firings are (Evaluation.markEmitted),
// so a retried batch decides the same. Suppressed firings are counted per
// rule and the day they were suppressed on (a set of their ids, so a retried
// batch or a window suppressed as it grows counts once), for
// GET /api/v1/lead-rules/:id.
import { parseDuration } from '../../lib/duration.js';
import type { HotState } from '../state/index.js';
import type { Candidate } from './windows.js';

const DAY_MS = 86_400_000;
/** Suppressed firings are counted for this many days. */
export const SUPPRESSED_DAYS = 31;

/** The set of firing ids of `ruleId` suppressed on `day` (YYYY-MM-DD, UTC). */
export function suppressedKey(ruleId: string, day: string): string {
  return `leads:${ruleId}:suppressed:${day}`;
}

/** How many firings of the rule were suppressed on each of `days`. */
export async function suppressedCounts(state: HotState, ruleId: string, days: string[]): Promise<number[]> {
  return Promise.all(days.map(async (day) => (await state.windowStats(suppressedKey(ruleId, day)))?.count ?? 0));
}

function raisedKey({ firing }: Candidate): string {
  return `leads:${firing.rule.id}:${firing.group}:raised`;
}

function periodMs({ firing }: Candidate): number {
  return parseDuration(firing.rule.conditions.suppress!);
}

/** The candidates to emit, and what to remember once they are written. */
export async function suppressFirings(candidates: Candidate[], state: HotState, now = Date.now()): Promise<{ kept: Candidate[]; commit(): Promise<void> }> {
  const kept: Candidate[] = [];
  const suppressed: Candidate[] = [];
  const raised: Candidate[] = [];
  /** Times of the firings this batch raises, per raised set. */
  const raisedNow = new Map<string, number[]>();
  const inTimeOrder = [...candidates].sort((a, b) => a.firing.firstSeen - b.firing.firstSeen);
  for (const candidate of inTimeOrder) {
    const { firing } = candidate;
    if (!firing.rule.conditions.suppress) {
      kept.push(candidate);
      continue;
    }
    const key = raisedKey(candidate);
    if ((await state.windowTime(key, firing.id)) !== null) {
      kept.push(candidate); // an update of a firing raised before
      continue;
    }
    const period = periodMs(candidate);
    const at = firing.firstSeen;
    const near =
      (raisedNow.get(key) ?? []).some((t) => Math.abs(t - at) < period) || (await state.windowEntries(key, at - period + 1, at + period - 1, 1)).length > 0;
    if (near) {
      suppressed.push(candidate);
      continue;
    }
    kept.push(candidate);
    raised.push(candidate);
    raisedNow.set(key, [...(raisedNow.get(key) ?? []), at]);
  }

  return {
    kept,
    async commit() {
      const day = new Date(now).toISOString().slice(0, 10);
      await Promise.all([
        ...raised.map((c) => state.windowAdd(raisedKey(c), c.firing.id, c.firing.firstSeen, periodMs(c) + DAY_MS)),
        ...suppressed.map((c) => state.windowAdd(suppressedKey(c.firing.rule.id, day), c.firing.id, now, SUPPRESSED_DAYS * DAY_MS)),
      ]);
      // Raised firings further back than a period and a day behind the newest no longer hold anything back.
      const newest = new Map<string, { at: number; period: number }>();
      for (const c of raised) {
        const before = newest.get(raisedKey(c));
        if (!before || c.firing.firstSeen > before.at) newest.set(raisedKey(c), { at: c.firing.firstSeen, period: periodMs(c) });
      }
      await Promise.all([...newest].map(([key, { at, period }]) => state.windowTrim(key, at - period - DAY_MS)));
    },
  };
}
