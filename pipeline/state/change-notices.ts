// Change notices: a writer (the API saving a lead rule or a decoder, a threat feed sync
// or unsubscription changing the indicator library, notification rules)
// announces that a kind of configuration changed; every process that caches
// that configuration checks the notice before it next uses the cache and
// reloads when it moved. This makes a change apply to everything that happens
// after the write returned, instead of "within the next refresh period".
import { newId } from '../../lib/ids.js';
import type { HotState } from './types.js';

export type ChangeKind = 'lead-rules' | 'threat-intel' | 'notification-rules' | 'decoders';

function noticeKey(kind: ChangeKind): string {
  return `changed:${kind}`;
}

/** Records that `kind` changed; resolves once the notice is durable in hot state. */
export async function announceChange(state: HotState, kind: ChangeKind): Promise<void> {
  await state.set(noticeKey(kind), newId());
}

/** The current notice of `kind` (null before the first change): compare it with the one seen at the last load. */
export async function currentNotice(state: HotState, kind: ChangeKind): Promise<string | null> {
  return state.get(noticeKey(kind));
}
