// Severity shown the same way everywhere: its name in words, coloured as a hint.
export const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

export function SeverityBadge({ severity }: { severity: string }) {
  return <span class={`severity severity-${severity}`}>{severity}</span>;
}
