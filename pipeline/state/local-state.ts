// Hot state of the embedded default: a map in memory, every change written to
// a snapshot journal under the data dir before the call returns, so rule
// windows and firing marks survive a crash or restart. Without a journal
// (inMemory) it is the scratch state a rule backfill evaluates windows in,
// with expiry measured on the backfill's clock (event time) rather than the
// wall's (pipeline/leads/backfill.ts).
import { SnapshotJournal } from '../../lib/journal.js';
import type { HotState } from './types.js';

type Entry =
  | { kind: 'value'; value: string; expiresAt: number }
  | { kind: 'window'; members: Map<string, number>; expiresAt: number };

type Change =
  | { op: 'set'; k: string; v: string; e: number }
  | { op: 'del'; k: string }
  | { op: 'wadd'; k: string; m: string; s: number; e: number }
  | { op: 'wtrim'; k: string; b: number };

const SWEEP_INTERVAL_MS = 60_000;

export class LocalState implements HotState {
  private readonly entries = new Map<string, Entry>();
  private journal: SnapshotJournal | null = null;
  private readonly sweeper: NodeJS.Timeout;

  private constructor(private readonly now: () => number = Date.now) {
    this.sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();
  }

  /** State kept in memory only, its entries expiring on `now` (milliseconds): gone when the process is. */
  static inMemory(now: () => number = Date.now): LocalState {
    return new LocalState(now);
  }

  static async open(path: string): Promise<LocalState> {
    const state = new LocalState();
    state.journal = await SnapshotJournal.open(
      path,
      (body) => state.apply(JSON.parse(body.toString('utf8')) as Change),
      () => state.snapshot(),
    );
    return state;
  }

  private apply(change: Change): void {
    switch (change.op) {
      case 'set':
        this.entries.set(change.k, { kind: 'value', value: change.v, expiresAt: change.e });
        break;
      case 'del':
        this.entries.delete(change.k);
        break;
      case 'wadd': {
        const entry = this.liveEntry(change.k);
        if (entry?.kind === 'window') {
          entry.members.set(change.m, change.s);
          if (change.e) entry.expiresAt = change.e;
        } else {
          this.entries.set(change.k, { kind: 'window', members: new Map([[change.m, change.s]]), expiresAt: change.e });
        }
        break;
      }
      case 'wtrim': {
        const entry = this.liveEntry(change.k);
        if (entry?.kind !== 'window') break;
        for (const [m, s] of entry.members) if (s < change.b) entry.members.delete(m);
        if (entry.members.size === 0) this.entries.delete(change.k);
        break;
      }
    }
  }

  /** The state as a minimal list of changes, for compaction. */
  private snapshot(): Buffer[] {
    this.sweep();
    const changes: Change[] = [];
    for (const [k, entry] of this.entries) {
      if (entry.kind === 'value') changes.push({ op: 'set', k, v: entry.value, e: entry.expiresAt });
      else for (const [m, s] of entry.members) changes.push({ op: 'wadd', k, m, s, e: entry.expiresAt });
    }
    return changes.map((c) => Buffer.from(JSON.stringify(c), 'utf8'));
  }

  private async write(change: Change): Promise<void> {
    this.apply(change);
    await this.journal?.append([Buffer.from(JSON.stringify(change), 'utf8')]);
  }

  private liveEntry(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry && entry.expiresAt !== 0 && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  private sweep(): void {
    const now = this.now();
    for (const [k, entry] of this.entries) if (entry.expiresAt !== 0 && entry.expiresAt <= now) this.entries.delete(k);
  }

  async get(key: string): Promise<string | null> {
    const entry = this.liveEntry(key);
    if (entry && entry.kind !== 'value') throw new Error(`key ${key} holds a window, not a value`);
    return entry?.value ?? null;
  }

  async set(key: string, value: string, ttlMs?: number): Promise<void> {
    await this.write({ op: 'set', k: key, v: value, e: this.expiry(ttlMs) });
  }

  async setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean> {
    if (this.liveEntry(key)) return false;
    await this.write({ op: 'set', k: key, v: value, e: this.expiry(ttlMs) });
    return true;
  }

  async delete(key: string): Promise<void> {
    if (!this.entries.has(key)) return;
    await this.write({ op: 'del', k: key });
  }

  async increment(key: string, by = 1, ttlMs?: number): Promise<number> {
    const current = await this.get(key);
    const next = (current === null ? 0 : Number(current)) + by;
    if (!Number.isSafeInteger(next)) throw new Error(`key ${key} does not hold an integer`);
    const keepExpiry = this.liveEntry(key)?.expiresAt ?? 0;
    await this.write({ op: 'set', k: key, v: String(next), e: ttlMs ? this.expiry(ttlMs) : keepExpiry });
    return next;
  }

  async windowAdd(key: string, member: string, atMs: number, ttlMs?: number): Promise<void> {
    const entry = this.liveEntry(key);
    if (entry && entry.kind !== 'window') throw new Error(`key ${key} holds a value, not a window`);
    await this.write({ op: 'wadd', k: key, m: member, s: atMs, e: ttlMs ? this.expiry(ttlMs) : (entry?.expiresAt ?? 0) });
  }

  async windowMembers(key: string, fromMs: number, toMs: number): Promise<string[]> {
    return (await this.windowEntries(key, fromMs, toMs)).map((e) => e.member);
  }

  async windowEntries(key: string, fromMs: number, toMs: number, limit?: number): Promise<{ member: string; at: number }[]> {
    const members = this.windowOf(key);
    if (!members) return [];
    const entries: { member: string; at: number }[] = [];
    for (const [member, at] of members) if (at >= fromMs && at <= toMs) entries.push({ member, at });
    // Ties in time order by member, as Redis orders equal scores.
    entries.sort((a, b) => a.at - b.at || (a.member < b.member ? -1 : a.member > b.member ? 1 : 0));
    return limit === undefined ? entries : entries.slice(0, limit);
  }

  async windowTime(key: string, member: string): Promise<number | null> {
    return this.windowOf(key)?.get(member) ?? null;
  }

  private windowOf(key: string): Map<string, number> | null {
    const entry = this.liveEntry(key);
    if (!entry) return null;
    if (entry.kind !== 'window') throw new Error(`key ${key} holds a value, not a window`);
    return entry.members;
  }

  async windowStats(key: string): Promise<{ count: number; first: number; last: number } | null> {
    const entry = this.liveEntry(key);
    if (!entry) return null;
    if (entry.kind !== 'window') throw new Error(`key ${key} holds a value, not a window`);
    let first = Infinity;
    let last = -Infinity;
    for (const s of entry.members.values()) {
      if (s < first) first = s;
      if (s > last) last = s;
    }
    return { count: entry.members.size, first, last };
  }

  async windowTrim(key: string, beforeMs: number): Promise<void> {
    const entry = this.liveEntry(key);
    if (entry?.kind !== 'window') return;
    if (![...entry.members.values()].some((s) => s < beforeMs)) return;
    await this.write({ op: 'wtrim', k: key, b: beforeMs });
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    await this.journal?.close();
  }

  private expiry(ttlMs?: number): number {
    return ttlMs ? this.now() + ttlMs : 0;
  }
}
