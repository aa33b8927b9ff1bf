// Entry of a re-parsing worker thread (pool.ts): the sources are TypeScript,
// run through tsx as bin/cairn.mjs does (as pipeline/analysis/worker.mjs).
import { register } from 'tsx/esm/api';
import { move, transferableSymbol, valueSymbol } from 'piscina';

register();
const { reparse } = await import('./reparse.ts');

/** A slice re-parsed, its encoded rows moved to the main thread rather than copied. */
export default function reparseAndMove(task) {
  const result = reparse(task);
  return move({
    get [transferableSymbol]() {
      return result.inserts.map((rows) => rows.body.buffer);
    },
    get [valueSymbol]() {
      return result;
    },
  });
}
