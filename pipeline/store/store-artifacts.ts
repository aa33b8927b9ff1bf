// The store step: complete the batch's artifacts, leave out those a previous
// delivery already stored, insert the rest in one go.
import type { Store } from '../../clickhouse/client.js';
import { insertArtifacts } from '../../clickhouse/tables/artifacts.js';
import { storedArtifactIds } from '../../clickhouse/tables/replays.js';
import type { RawArtifact } from '../../topics/index.js';
import { uniqueArtifacts } from '../artifacts.js';
import type { Envelope } from '../bus/consume.js';

export interface StoreResult {
  inserted: number;
  /** Already stored by an earlier delivery of the same messages. */
  replayed: number;
}

/**
 * `mayRepeat` (pipeline/bus/consume.ts HandlerContext): the batch may have
 * been stored before, so what is stored already is looked up and left out.
 * The lookup costs the engine about 3 µs an artifact, so it is made only then.
 */
export async function storeArtifacts(store: Store, batch: Envelope<RawArtifact>[], defaultOrgId: string, mayRepeat: boolean): Promise<StoreResult> {
  const artifacts = uniqueArtifacts(batch, defaultOrgId).map(({ artifact }) => artifact);
  const stored = mayRepeat ? await storedArtifactIds(store, artifacts) : new Set<string>();
  const fresh = stored.size ? artifacts.filter((a) => !stored.has(a.id)) : artifacts;
  await insertArtifacts(store, fresh);
  return { inserted: fresh.length, replayed: batch.length - fresh.length };
}
