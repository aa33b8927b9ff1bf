// Whether a pattern stays fast on text shaped to make it slow: the literals it
// requires and the characters patterns repeat, run to a given length, and the
// slowest match over them. The shipped catalogues are held to a budget in a
// test; a decoder a user adds is held to the same budget when it is saved
// (pipeline/parser/decoders/user.ts), with every probe stopped at a hard limit.
import { runWithin, TimeLimitExceeded } from '../../lib/time-limit.js';
import { requiredLiterals } from './decoders/catalogue.js';
import { READABLE_LENGTH } from './readable.js';

/** Far above a linear pattern's few milliseconds on a line as long as READABLE_LENGTH, far below a runaway one's seconds on a busy machine. */
export const PATTERN_BUDGET_MS = 250;

/** Text runs that drive backtracking: spaces, words, addresses, separators, brackets, quotes. */
const FILLERS = [' ', 'a', 'a ', '1', '1.2.3.4 ', ': ', ':', '=', 'a=b ', 'a=b, ', '[a] ', '[', '(', '<a> ', '"', "'", '/', 'from ', 'user ', '\t'];
/**
 * Ends a run with a character no filler holds: a pattern that nests
 * quantifiers over the run ("(a+)+$", "^(\w+\s?)+$") matches the bare run at
 * once and tries every way of splitting it only when its end does not fit.
 */
const BREAK = '\u0001';

function runTo(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/**
 * Inputs of about `size` characters made to be slow for a pattern that
 * requires `literals`; with `breaks`, also each filler run ended by a
 * character that fits no pattern (what exposes exponential backtracking).
 */
export function hostileInputs(literals: readonly string[], size: number, { breaks = false } = {}): string[] {
  const inputs = FILLERS.map((f) => runTo(f, size));
  for (const literal of literals.slice(0, 4)) {
    inputs.push(runTo(`${literal} `, size), runTo(literal, size));
    for (const f of [' x', 'a', ' 1.2.3.4', ' [a]', '"', ' from 1.2.3.4', 'a=b, ']) inputs.push(literal + runTo(f, size - literal.length));
  }
  if (breaks) {
    inputs.push(...FILLERS.map((f) => runTo(f, size - 1) + BREAK));
    for (const literal of literals.slice(0, 4)) for (const f of ['a', 'a ', ' a']) inputs.push(literal + runTo(f, size - literal.length - 1) + BREAK);
  }
  return inputs;
}

export interface SlowestMatch {
  ms: number;
  /** The input it was slowest on. */
  input: string;
  /** Whether that run was stopped at `interruptAfterMs` rather than finished. */
  interrupted: boolean;
}

export interface ProbeOptions {
  /** Length of each hostile input; default READABLE_LENGTH, as long as the readers let a message be. */
  size?: number;
  /** Stop probing once one run took longer than this. */
  stopAfterMs?: number;
  /** Add the inputs that end in a character no pattern fits (hostileInputs `breaks`). */
  breaks?: boolean;
  /** Abandon a single run after this long (lib/time-limit.ts): a pattern that backtracks exponentially never finishes one. */
  interruptAfterMs?: number;
}

/** Runs of each input: the fastest counts, so that a moment the machine was busy elsewhere does not. */
const RUNS = 3;

/** One timed `exec`, stopped after `interruptAfterMs` when given. */
function timedRun(probe: RegExp, input: string, interruptAfterMs: number | undefined): { ms: number; interrupted: boolean } {
  const started = performance.now();
  let interrupted = false;
  if (interruptAfterMs === undefined) probe.exec(input);
  else {
    try {
      runWithin(interruptAfterMs, () => probe.exec(input));
    } catch (err) {
      if (!(err instanceof TimeLimitExceeded)) throw err;
      interrupted = true;
    }
  }
  return { ms: performance.now() - started, interrupted };
}

/**
 * The slowest input's `regex.exec` over the hostile inputs, and which: each
 * input's fastest of RUNS runs (one run when it was interrupted or already
 * over `stopAfterMs`); it stops once an input takes more than `stopAfterMs`.
 */
export function slowestMatch(regex: RegExp, { size = READABLE_LENGTH, stopAfterMs = 1000, breaks = false, interruptAfterMs }: ProbeOptions = {}): SlowestMatch {
  const probe = new RegExp(regex.source, regex.flags.replace(/[gy]/g, ''));
  let worst: SlowestMatch = { ms: 0, input: '', interrupted: false };
  for (const input of hostileInputs(requiredLiterals(regex.source) ?? [], size, { breaks })) {
    let best = timedRun(probe, input, interruptAfterMs);
    for (let run = 1; run < RUNS && !best.interrupted && best.ms <= stopAfterMs; run++) {
      const next = timedRun(probe, input, interruptAfterMs);
      if (next.ms < best.ms) best = next;
    }
    if (best.ms > worst.ms) worst = { ms: best.ms, input, interrupted: best.interrupted };
    if (worst.ms > stopAfterMs) break;
  }
  return worst;
}

/** The slowest `regex.exec` over the hostile inputs, in milliseconds; it stops once one run takes more than `stopAfterMs`. */
export function slowestMatchMs(regex: RegExp, size = READABLE_LENGTH, stopAfterMs = 1000): number {
  return slowestMatch(regex, { size, stopAfterMs }).ms;
}
