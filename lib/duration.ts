// Durations written the way analysts write them: 30s, 5m, 1h, 7d.
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export const DURATION_PATTERN = /^([1-9]\d{0,5})(s|m|h|d)$/;

/** Milliseconds of a duration such as "5m"; throws on anything else. */
export function parseDuration(text: string): number {
  const match = DURATION_PATTERN.exec(text);
  if (!match) throw new Error(`"${text}" is not a duration such as 30s, 5m, 1h or 7d`);
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

/** The largest whole unit that writes `ms` exactly: 3_600_000 → "1h", 90_000 → "90s". */
export function formatDuration(ms: number): string {
  for (const unit of ['d', 'h', 'm', 's'] as const) {
    if (ms % UNIT_MS[unit] === 0 && ms >= UNIT_MS[unit]) return `${ms / UNIT_MS[unit]}${unit}`;
  }
  return `${Math.max(1, Math.round(ms / 1000))}s`;
}
