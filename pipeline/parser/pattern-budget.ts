// Whether a pattern stays fast on text shaped to make it slow: the literals it
// requires and the characters patterns repeat, run to a given length, and the
// slowest match over them. The shipped catalogues are held to a budget in a
// test; a decoder a user adds is held to the same budget when it is saved.
import { requiredLiterals } from './decoders/catalogue.js';
import { READABLE_LENGTH } from './readable.js';

/** Text runs that drive backtracking: spaces, words, addresses, separators, brackets, quotes. */
const FILLERS = [' ', 'a', 'a ', '1', '1.2.3.4 ', ': ', ':', '=', 'a=b ', 'a=b, ', '[a] ', '[', '(', '<a> ', '"', "'", '/', 'from ', 'user ', '\t'];

function runTo(unit: string, size: number): string {
  return unit.repeat(Math.ceil(size / unit.length)).slice(0, size);
}

/** Inputs of about `size` characters made to be slow for a pattern that requires `literals`. */
export function hostileInputs(literals: readonly string[], size: number): string[] {
  const inputs = FILLERS.map((f) => runTo(f, size));
  for (const literal of literals.slice(0, 4)) {
    inputs.push(runTo(`${literal} `, size), runTo(literal, size));
    for (const f of [' x', 'a', ' 1.2.3.4', ' [a]', '"', ' from 1.2.3.4', 'a=b, ']) inputs.push(literal + runTo(f, size - literal.length));
  }
  return inputs;
}

/** Runs of each input: the fastest counts, so that a moment the machine was busy elsewhere does not. */
const RUNS = 3;

/**
 * The slowest input's `regex.exec` time over the hostile inputs, in
 * milliseconds (each input's fastest of RUNS runs); it stops once an input
 * takes more than `stopAfterMs`.
 */
export function slowestMatchMs(regex: RegExp, size = READABLE_LENGTH, stopAfterMs = 1000): number {
  const probe = new RegExp(regex.source, regex.flags.replace(/[gy]/g, ''));
  let worst = 0;
  for (const input of hostileInputs(requiredLiterals(regex.source) ?? [], size)) {
    let best = Infinity;
    for (let run = 0; run < RUNS && (run === 0 || best <= stopAfterMs); run++) {
      const started = performance.now();
      probe.exec(input);
      best = Math.min(best, performance.now() - started);
    }
    worst = Math.max(worst, best);
    if (worst > stopAfterMs) break;
  }
  return worst;
}
