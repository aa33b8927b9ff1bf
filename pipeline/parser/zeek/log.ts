// What a Zeek log's mapping is: the dataset it writes, the keys it turns into
// ECS fields, and the function that does it. The rest of the record is kept
// under zeek.<dataset>.<field> (shared.ts keepZeekFields).
import type { Json } from '../json-values.js';
import type { EventFields } from '../types.js';

export interface ZeekLog {
  /** event.dataset is zeek.<dataset>: Elastic's names (conn.log is zeek.connection). */
  readonly dataset: string;
  readonly kind?: 'alert';
  /** The transport the log's analyzer runs over, for a log whose records do not say (they have no proto). */
  readonly transport?: 'tcp';
  /**
   * Keys the mapping copies into ECS fields as they are (not kept again under zeek.<dataset>); a key whose value the
   * mapping changes (seconds to nanoseconds, a code to an outcome, "TLSv12" to "1.2") is kept as Zeek wrote it too,
   * so that a rule naming it reads Zeek's value.
   */
  readonly mapped: ReadonlySet<string>;
  /** Adds the log's ECS fields; the time, four-tuple and uid are already there. */
  map(fields: EventFields, record: Json): void;
}
