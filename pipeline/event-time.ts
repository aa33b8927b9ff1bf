// When an event happened: its own @timestamp when that is sane, else the
// artifact's timestamp. Graph edges and rule windows both count in it.
import { parseIso } from '../lib/iso-time.js';
import type { ParsedEvent } from '../topics/index.js';

/** How far in the future an event's own time may be before it is distrusted (clock skew). */
const FUTURE_TOLERANCE_MS = 86_400_000;

/** `now` may be read once for a batch: the tolerance is a day. */
export function eventTime(event: Pick<ParsedEvent, 'fields' | 'timestamp'>, now = Date.now()): number {
  const stamped = event.fields['@timestamp'];
  const ms = typeof stamped === 'string' ? parseIso(stamped) : NaN;
  return !Number.isNaN(ms) && ms <= now + FUTURE_TOLERANCE_MS ? ms : parseIso(event.timestamp);
}
