// Matching at ingest on an analysis worker thread (pipeline/stage.ts
// WorkerMatching): a copy of the index, loaded from the claims the main
// thread's matcher sends whenever its library has changed, matched against
// the events where the worker makes them, so that only hits cross back.
import type { WorkerHit, WorkerMatching } from '../pipeline/stage.js';
import type { EnrichedEvent } from '../topics/index.js';
import { IntelIndex, type ClaimInput, type IntelHit } from './intel-index.js';

/** What a hit carries back to the main thread: all of an IntelHit but its event. */
export type WorkerIntelHit = Omit<IntelHit, 'event'>;

let index = new IntelIndex();

const matching: WorkerMatching = {
  load(data) {
    const fresh = new IntelIndex();
    for (const claim of data as ClaimInput[]) fresh.put(claim);
    index = fresh;
  },
  match(events: EnrichedEvent[]): WorkerHit<WorkerIntelHit>[] {
    // match() hands back the events it was given.
    return index.match(events).map(({ event, ...hit }) => ({ event: event as EnrichedEvent, hit }));
  },
};

export default matching;
