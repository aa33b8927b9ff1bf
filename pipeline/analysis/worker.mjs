// Entry of an analysis worker thread (pool.ts): the sources are TypeScript,
// run through tsx as bin/cairn.mjs does, so no build step is needed here either.
import { register } from 'tsx/esm/api';
import { move, transferableSymbol, valueSymbol } from 'piscina';

register();
const { analyse } = await import('./analyse.ts');

/**
 * The analysis of a task, its encoded rows moved to the main thread rather
 * than copied (a chunk's events are several MiB; each body has a memory of
 * its own, clickhouse/row-binary.ts).
 */
export default async function analyseAndMove(task) {
  const result = await analyse(task);
  if (result === 'stale') return result;
  return move({
    get [transferableSymbol]() {
      return result.inserts.map((rows) => rows.body.buffer);
    },
    get [valueSymbol]() {
      return result;
    },
  });
}
