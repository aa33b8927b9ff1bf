// Ordered sequences: "A then B (then C...) within W, same group", in event
// time. The window slides: a sequence is complete when an event matching the
// last pattern at time t has, for every earlier pattern, a distinct event
// matching it at or after the one before, the first no earlier than t - W.
// Equal times count as in order (logs often have whole seconds); B before A
// in event time does not complete.
//
// Every step event is kept in hot state, per rule, group and pattern, in a
// time-ordered set, so arrival order does not matter: a last-pattern event
// looks back for its predecessors, and an earlier-pattern event that arrives
// late looks forward for the last-pattern events it may complete. Each side
// adds its own event before looking, so two consumers handling A and B at
// once cannot both miss the other.
//
// A completed sequence joins the firing of the tumbling window (aligned to
// the epoch, W long) its last event falls in: one identity per (rule, group,
// window), as threshold rules have, whatever order events came in, so
// several completions close together update one lead.
import type { HotState } from '../state/index.js';
import { addToWindow, eventNodeIds, ruleBase, windowFiring, windowTtl, type Candidate, type Evaluated, type Match, type RuleEvent, type WindowEntry } from './windows.js';
import type { CompiledRule } from './rules.js';

/** Earlier-pattern events kept with a firing, per pattern, from the start of the sequence to its end (besides the sequence itself). */
const CONTEXT_PER_STEP = 100;
/** Last-pattern events an earlier-pattern event arriving late may complete, looked at per group and batch. */
const MAX_PENDING = 1000;
/**
 * How far behind the newest event of its group (in event time, beyond the
 * window) an event may arrive and still take part: older step events are
 * trimmed, so a long attack does not grow the sets without bound.
 */
export function orderedLatenessMs(windowMs: number): number {
  return Math.max(windowMs, 3_600_000);
}

/** An event of a step, as a step set holds it: its artifact and the nodes it names travel in the member. */
interface StepEvent {
  artifactId: string;
  at: number;
  nodeIds: string[];
}

function toMember(e: StepEvent): string {
  return `${e.artifactId}|${e.nodeIds.join(',')}`;
}

function fromEntry({ member, at }: { member: string; at: number }): StepEvent {
  const bar = member.indexOf('|');
  const nodes = member.slice(bar + 1);
  return { artifactId: member.slice(0, bar), at, nodeIds: nodes ? nodes.split(',') : [] };
}

function stepEvent({ event, at }: { event: RuleEvent; at: number }): StepEvent {
  return { artifactId: event.artifact_id, at, nodeIds: eventNodeIds(event) };
}

/**
 * The events completing the sequence that ends with `last`, or null when the
 * earlier patterns did not all match, in order, within the window before it.
 * Each pattern takes the earliest event it can, which finds a sequence
 * whenever one exists.
 */
async function completion(state: HotState, stepKey: (i: number) => string, steps: number, windowMs: number, last: StepEvent): Promise<StepEvent[] | null> {
  const chain: StepEvent[] = [];
  const used = new Set([last.artifactId]);
  let from = last.at - windowMs;
  for (let i = 0; i < steps - 1; i++) {
    // An event matching several patterns takes one place: skip those already taken.
    const entries = await state.windowEntries(stepKey(i), from, last.at, used.size + 1);
    const next = entries.map(fromEntry).find((e) => !used.has(e.artifactId));
    if (!next) return null;
    chain.push(next);
    used.add(next.artifactId);
    from = next.at;
  }
  return chain;
}

/** The firings ordered-sequence matches of one rule and group make. */
export async function evaluateOrdered(rule: CompiledRule, group: string, matches: Match[], state: HotState): Promise<Evaluated> {
  const steps = rule.steps!;
  const windowMs = rule.windowMs!;
  const base = ruleBase(rule, group);
  const stepKey = (i: number) => `${base}:step:${i}`;
  const lastStep = String(steps - 1);
  const ttl = windowTtl(windowMs) + orderedLatenessMs(windowMs);

  // Each event into the set of every pattern it matches, before looking for sequences.
  const adds: Promise<void>[] = [];
  for (const match of matches) for (const i of match.keys) adds.push(state.windowAdd(stepKey(Number(i)), toMember(stepEvent(match)), match.at, ttl));
  await Promise.all(adds);

  // Last-pattern events to check: those of the batch, and those already held that an earlier-pattern event of the batch may complete.
  const lasts = new Map<string, StepEvent>();
  for (const match of matches) if (match.keys.includes(lastStep)) lasts.set(match.event.artifact_id, stepEvent(match));
  const earlier = matches.filter((m) => m.keys.some((k) => k !== lastStep));
  if (earlier.length > 0) {
    const from = Math.min(...earlier.map((m) => m.at));
    const to = Math.max(...earlier.map((m) => m.at)) + windowMs;
    for (const entry of await state.windowEntries(stepKey(steps - 1), from, to, MAX_PENDING)) {
      const held = fromEntry(entry);
      if (!lasts.has(held.artifactId)) lasts.set(held.artifactId, held);
    }
  }

  // Completed sequences into the window their last event falls in; every window touched is looked at, so one
  // completed before a crash, but not yet emitted, is emitted now.
  const windows = new Set<number>();
  for (const last of lasts.values()) {
    const windowStart = Math.floor(last.at / windowMs) * windowMs;
    windows.add(windowStart);
    const windowBase = `${base}:${windowStart}`;
    if ((await state.windowTime(`${windowBase}:keys`, last.artifactId)) !== null) continue;
    const chain = await completion(state, stepKey, steps, windowMs, last);
    if (!chain) continue;
    const context = await Promise.all(Array.from({ length: steps - 1 }, (_, i) => state.windowEntries(stepKey(i), chain[0]!.at, last.at, CONTEXT_PER_STEP)));
    const events = new Map<string, StepEvent>();
    for (const e of [...chain, ...context.flat().map(fromEntry)]) events.set(e.artifactId, e);
    const entries: WindowEntry[] = [...events.values()].map((e) => ({ artifactId: e.artifactId, at: e.at, nodeIds: e.nodeIds }));
    // The last event carries the key: the window counts completed sequences.
    entries.push({ artifactId: last.artifactId, at: last.at, nodeIds: last.nodeIds, keys: [last.artifactId] });
    await addToWindow(state, windowBase, windowTtl(windowMs), entries);
  }

  const newest = Math.max(...matches.map((m) => m.at));
  await Promise.all(Array.from({ length: steps }, (_, i) => state.windowTrim(stepKey(i), newest - windowMs - orderedLatenessMs(windowMs))));

  const candidates: Candidate[] = [];
  const sample = matches.find((m) => m.keys.includes(lastStep))?.event ?? matches[0]!.event;
  for (const windowStart of windows) {
    const candidate = await windowFiring(state, rule, group, windowStart, 1, sample);
    if (candidate) candidates.push(candidate);
  }
  return { candidates };
}
