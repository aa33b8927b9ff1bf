// Suppression: a rule with `suppress: P` raises, per group, no new firing
// within P (event time, either side, so late events do not slip through) of
// the last firing it raised for that group. A firing already raised is
// still updated as its window grows. A scanner then gives one lead an hour,
// not one a minute.
//
// Hot state holds, per rule and group, the time of the latest firing raised
// and, per firing raised, a mark (so its updates pass); both are written
// after the firings are (Evaluation.markEmitted). Suppressed firings are
// counted per rule and day they were suppressed on (the ids, so a retried
// batch counts once), for GET /api/v1/lead-rules/:id.
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

/** The candidates to emit, and what to remember once they are written. */
export async function suppressFirings(candidates: Candidate[], state: HotState, now = Date.now()): Promise<{ kept: Candidate[]; commit(): Promise<void> }> {
  const kept: Candidate[] = [];
  const suppressed: Candidate[] = [];
  /** The latest firing raised per rule and group, as this batch leaves it. */
  const latest = new Map<string, number | null>();
  const raised: Candidate[] = [];
  const inTimeOrder = [...candidates].sort((a, b) => a.firing.firstSeen - b.firing.firstSeen);
  for (const candidate of inTimeOrder) {
    const { firing } = candidate;
    if (!firing.rule.conditions.suppress) {
      kept.push(candidate);
      continue;
    }
    if ((await state.get(firedKey(firing.id))) !== null) {
      kept.push(candidate); // an update of a firing raised before
      continue;
    }
    const key = latestKey(candidate);
    if (!latest.has(key)) {
      const stored = await state.get(key);
      latest.set(key, stored === null ? null : Number(stored));
    }
    const last = latest.get(key)!;
    if (last !== null && Math.abs(firing.firstSeen - last) < suppressMs(candidate)) {
      suppressed.push(candidate);
      continue;
    }
    kept.push(candidate);
    raised.push(candidate);
    latest.set(key, last === null ? firing.firstSeen : Math.max(last, firing.firstSeen));
  }

  return {
    kept,
    async commit() {
      const day = new Date(now).toISOString().slice(0, 10);
      await Promise.all([
        ...raised.map((c) => state.set(firedKey(c.firing.id), '1', suppressMs(c) + DAY_MS)),
        ...raised.map((c) => state.set(latestKey(c), String(latest.get(latestKey(c))), suppressMs(c) + DAY_MS)),
        ...suppressed.map((c) => state.windowAdd(suppressedKey(c.firing.rule.id, day), c.firing.id, now, SUPPRESSED_DAYS * DAY_MS)),
      ]);
    },
  };
}

function suppressMs({ firing }: Candidate): number {
  return parseDuration(firing.rule.conditions.suppress!);
}

function latestKey({ firing }: Candidate): string {
  return `leads:${firing.rule.id}:${firing.group}:suppress`;
}

function firedKey(firingId: string): string {
  return `leads:fired:${firingId}`;
}
