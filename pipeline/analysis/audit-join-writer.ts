// The audit join (audit-join.ts) between batches: the serials still waiting
// for records are kept in hot state, one value per consumer group and
// partition, so that the next batch of the partition, in this process or
// another after a crash or a rebalance, finishes them.
//
// Why hot state, and this order (pipeline/README.md, "Joining Linux audit
// records"):
// - The records of a serial arrive in the order auditd wrote them, so a
//   serial cut by a batch boundary is finished by the partition's next
//   batch: what waits is the partition's, and only its own batches touch it
//   (no two writers of one value).
// - A batch writes its joined events, then the serials it leaves waiting,
//   then commits. A crash before the state write redelivers the batch onto
//   the state it started from: the same joins again. A crash after it
//   redelivers the batch onto the state it left: its records are held once
//   (by artifact id), and serials it had finished come back as fragments of
//   themselves. Either way a joined id may be written a second time, so
//   joined rows are always checked against the store first: the first write
//   of an id stands, a later one (a repeat, or records arriving after their
//   serial was ended by the wait) is left out. The check costs one lookup a
//   batch that joins anything, nothing for other batches.
// - The records' own events are written by the batch as before: a lost
//   join never loses a record.
import { insertEncoded } from '../../clickhouse/encoded-rows.js';
import { encodeEvents } from '../../clickhouse/tables/events.js';
import { withoutStoredEvents } from '../../clickhouse/tables/replays.js';
import type { Store } from '../../clickhouse/client.js';
import type { HotState } from '../state/types.js';
import { DEFAULT_JOIN_LIMITS, joinAuditRecords, type AuditRecord, type JoinLimits, type PendingSerial } from './audit-join.js';

/** How long the waiting serials of a partition that gets no more batches are kept. */
const PENDING_TTL_MS = 24 * 3600_000;

export interface AuditJoinOptions {
  state: HotState;
  store: Store;
  /** Consumer group and topic: the waiting serials are a group's partition's. */
  group: string;
  topic: string;
  limits?: JoinLimits;
  now?: () => number;
}

export class AuditJoinWriter {
  /** Partitions known to have nothing waiting: their batches without audit records skip the state read. */
  private readonly empty = new Set<string>();

  constructor(private readonly options: AuditJoinOptions) {}

  private key(partition: number): string {
    return `audit-join:${this.options.group}:${this.options.topic}:${partition}`;
  }

  /**
   * Joins a batch's audit records (in partition order) with what waits from
   * earlier batches, writes the joined events, then keeps what still waits.
   * Call after the batch's own writes and before its commit.
   */
  async handle(partition: number, records: readonly AuditRecord[]): Promise<void> {
    const key = this.key(partition);
    if (records.length === 0 && this.empty.has(key)) return;
    const { state, store } = this.options;
    const stored = await state.get(key);
    const waiting = stored ? (JSON.parse(stored) as PendingSerial[]) : [];
    const now = (this.options.now ?? Date.now)();
    const { joined, pending } = joinAuditRecords(waiting, records, now, this.options.limits ?? DEFAULT_JOIN_LIMITS);
    if (joined.length > 0) await insertEncoded(store, await withoutStoredEvents(store, encodeEvents(joined)));
    // Without records, what waits can only have shrunk: written only when it did.
    const changed = records.length > 0 || pending.length !== waiting.length;
    if (changed && pending.length > 0) await state.set(key, JSON.stringify(pending), PENDING_TTL_MS);
    else if (changed && waiting.length > 0) await state.delete(key);
    if (pending.length === 0) this.empty.add(key);
    else this.empty.delete(key);
  }
}
