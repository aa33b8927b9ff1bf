// Committed consumer offsets of the in-process bus: a map kept in a
// snapshot journal (one fsync'ed record per commit, and one per forgotten
// group, which the next snapshot leaves out).
import { SnapshotJournal } from '../../../lib/journal.js';

interface OffsetRecord {
  g: string;
  t: string;
  p: number;
  o: number;
}

/** A group forgotten: every offset it committed goes. */
interface ForgetRecord {
  forget: string;
}

function keyOf(group: string, topic: string, partition: number): string {
  return JSON.stringify([group, topic, partition]);
}

function encode(record: OffsetRecord | ForgetRecord): Buffer {
  return Buffer.from(JSON.stringify(record), 'utf8');
}

export class OffsetStore {
  private constructor(
    private readonly committed: Map<string, OffsetRecord>,
    private readonly journal: SnapshotJournal,
  ) {}

  static async open(path: string): Promise<OffsetStore> {
    const committed = new Map<string, OffsetRecord>();
    const journal = await SnapshotJournal.open(
      path,
      (body) => {
        const r = JSON.parse(body.toString('utf8')) as OffsetRecord | ForgetRecord;
        if ('forget' in r) dropGroup(committed, r.forget);
        else committed.set(keyOf(r.g, r.t, r.p), r);
      },
      () => [...committed.values()].map(encode),
    );
    return new OffsetStore(committed, journal);
  }

  /** Next offset the group reads, or undefined when it never committed. */
  get(group: string, topic: string, partition: number): number | undefined {
    return this.committed.get(keyOf(group, topic, partition))?.o;
  }

  async commit(group: string, topic: string, partition: number, nextOffset: number): Promise<void> {
    const record = { g: group, t: topic, p: partition, o: nextOffset };
    this.committed.set(keyOf(group, topic, partition), record);
    await this.journal.append([encode(record)]);
  }

  /** Drops every offset `group` committed, durably; returns the (topic, partition) pairs it had. */
  async forget(group: string): Promise<{ topic: string; partition: number }[]> {
    const dropped = dropGroup(this.committed, group);
    if (dropped.length > 0) await this.journal.append([encode({ forget: group })]);
    return dropped;
  }

  async close(): Promise<void> {
    await this.journal.close();
  }
}

function dropGroup(committed: Map<string, OffsetRecord>, group: string): { topic: string; partition: number }[] {
  const dropped: { topic: string; partition: number }[] = [];
  for (const [key, r] of committed) {
    if (r.g !== group) continue;
    committed.delete(key);
    dropped.push({ topic: r.t, partition: r.p });
  }
  return dropped;
}
