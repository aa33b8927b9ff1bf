// Times in the browser's zone, with UTC on hover; relative ranges for search.

const local = new Intl.DateTimeFormat(undefined, { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });

export function Time({ iso }: { iso: string }) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return <span>{iso}</span>;
  return (
    <time dateTime={date.toISOString()} title={`${date.toISOString().replace('T', ' ').replace('Z', ' UTC')}`}>
      {local.format(date)}
    </time>
  );
}

/** The relative ranges the time picker offers, by the key kept in the URL. */
export const RANGES: ReadonlyArray<{ key: string; label: string; ms: number | null }> = [
  { key: '15m', label: 'Last 15 minutes', ms: 15 * 60_000 },
  { key: '1h', label: 'Last hour', ms: 3_600_000 },
  { key: '24h', label: 'Last 24 hours', ms: 86_400_000 },
  { key: '7d', label: 'Last 7 days', ms: 7 * 86_400_000 },
  { key: '30d', label: 'Last 30 days', ms: 30 * 86_400_000 },
  { key: 'all', label: 'All time', ms: null },
  { key: 'custom', label: 'Custom range', ms: null },
];
export const DEFAULT_RANGE = '24h';

/** The [start, end) the API takes for a range key (custom: the given ISO times); undefined leaves that end open. */
export function rangeBounds(key: string, from: string | null, to: string | null, now = Date.now()): { start?: string; end?: string } {
  if (key === 'custom') return { start: from ?? undefined, end: to ?? undefined };
  const range = RANGES.find((r) => r.key === key) ?? RANGES.find((r) => r.key === DEFAULT_RANGE)!;
  return range.ms === null ? {} : { start: new Date(now - range.ms).toISOString() };
}

/** An ISO time as a datetime-local input shows it (the browser's zone, to the minute). */
export function toLocalInput(iso: string | null): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const local = new Date(date.getTime() - date.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

/** A datetime-local input's value (the browser's zone) as ISO UTC; null when empty or not a time. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
