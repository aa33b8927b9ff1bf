// Hot state: small, fast, shared state of the stages (rule windows, firing
// marks, cooldowns). Redis in distributed mode, a journaled in-process map in
// the embedded default. Every write is durable when its promise resolves, so a
// stage may commit its offsets right after.

export interface HotState {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlMs?: number): Promise<void>;
  /** Sets only when the key is absent; true when this call set it. */
  setIfAbsent(key: string, value: string, ttlMs?: number): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Adds `by` (default 1) to an integer value, creating it at 0; returns the new value. */
  increment(key: string, by?: number, ttlMs?: number): Promise<number>;
  /** Adds or moves `member` at time `atMs` in a time-ordered set (idempotent per member). */
  windowAdd(key: string, member: string, atMs: number, ttlMs?: number): Promise<void>;
  /** Members with fromMs <= time <= toMs, oldest first. */
  windowMembers(key: string, fromMs: number, toMs: number): Promise<string[]>;
  /** Members with their times, fromMs <= time <= toMs, oldest first; at most `limit` of them when given. */
  windowEntries(key: string, fromMs: number, toMs: number, limit?: number): Promise<{ member: string; at: number }[]>;
  /** The time of one member, or null when the window does not hold it. */
  windowTime(key: string, member: string): Promise<number | null>;
  /** How many members, and the earliest and latest time among them; null for an empty window. */
  windowStats(key: string): Promise<{ count: number; first: number; last: number } | null>;
  /** Drops members older than `beforeMs`. */
  windowTrim(key: string, beforeMs: number): Promise<void>;
  close(): Promise<void>;
}
