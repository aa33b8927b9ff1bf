// Running code whose cost cannot be known in advance (a pattern a user wrote,
// on text a user sent) with a hard stop. JavaScript cannot interrupt a
// function from the same thread, and a regular expression that backtracks
// catastrophically never returns to let it check a clock; V8 can, though,
// terminate a script run through node:vm with a timeout, and everything that
// script calls, regular expressions included. The work runs to its end or is
// abandoned where it stood: it must leave no shared state half-written
// (parsing a line only replaces whole cached values).
import vm from 'node:vm';

export class TimeLimitExceeded extends Error {
  constructor(readonly limitMs: number) {
    super(`stopped after ${limitMs} ms`);
    this.name = 'TimeLimitExceeded';
  }
}

/** One context for every call: made once, it costs a few microseconds a call instead of a new realm each. */
const context = vm.createContext({ work: null as (() => unknown) | null });
const RUN = new vm.Script('work()');

/** `work()`'s result, or TimeLimitExceeded once it has run `limitMs` (whole milliseconds, at least 1). */
export function runWithin<T>(limitMs: number, work: () => T): T {
  const timeout = Math.max(1, Math.ceil(limitMs));
  context.work = work;
  try {
    return RUN.runInContext(context, { timeout }) as T;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') throw new TimeLimitExceeded(timeout);
    throw err;
  } finally {
    context.work = null;
  }
}
