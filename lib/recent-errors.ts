// The last errors a process met, per source (a stage's consumer group, or
// "api"), for the health endpoints: what went wrong lately, without a log
// search. Messages only, never stacks or payloads.

export interface RecentError {
  at: string;
  message: string;
}

const KEEP = 20;
const bySource = new Map<string, RecentError[]>();

export function noteError(source: string, message: string): void {
  const list = bySource.get(source) ?? [];
  list.push({ at: new Date().toISOString(), message: message.slice(0, 500) });
  if (list.length > KEEP) list.splice(0, list.length - KEEP);
  bySource.set(source, list);
}

export function recentErrors(source: string): RecentError[] {
  return [...(bySource.get(source) ?? [])];
}
