// Severities of lead rules, observations, leads and incidents, lowest first.
import { z } from 'zod';

export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;
export const Severity = z.enum(SEVERITIES);
export type Severity = z.infer<typeof Severity>;

export function severityRank(severity: Severity): number {
  return SEVERITIES.indexOf(severity);
}

export function highestSeverity(severities: Severity[]): Severity {
  return severities.reduce<Severity>((max, s) => (severityRank(s) > severityRank(max) ? s : max), 'low');
}
