// ECS's allowed values for the categorisation fields (ECS 8.x reference,
// "ECS Categorization Fields"): what every parser may put in event.kind,
// event.category, event.type and event.outcome.
export const ECS_ALLOWED: Readonly<Record<'event.kind' | 'event.category' | 'event.type' | 'event.outcome', ReadonlySet<string>>> = {
  'event.kind': new Set(['alert', 'asset', 'enrichment', 'event', 'metric', 'state', 'pipeline_error', 'signal']),
  'event.category': new Set([
    'api', 'authentication', 'configuration', 'database', 'driver', 'email', 'file', 'host', 'iam', 'intrusion_detection',
    'library', 'malware', 'network', 'package', 'process', 'registry', 'session', 'threat', 'vulnerability', 'web',
  ]),
  'event.type': new Set([
    'access', 'admin', 'allowed', 'change', 'connection', 'creation', 'deletion', 'denied', 'end', 'error', 'group',
    'indicator', 'info', 'installation', 'protocol', 'start', 'user',
  ]),
  'event.outcome': new Set(['success', 'failure', 'unknown']),
};

/** The categorisation fields of `fields` whose values ECS does not allow, as "field=value" (empty when all are allowed). */
export function ecsViolations(fields: Record<string, unknown>): string[] {
  const wrong: string[] = [];
  for (const [name, allowed] of Object.entries(ECS_ALLOWED)) {
    const value = fields[name];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    if (name === 'event.category' || name === 'event.type') {
      if (!Array.isArray(value) || value.length === 0) wrong.push(`${name} is not a non-empty array`);
    }
    for (const v of values) if (typeof v !== 'string' || !allowed.has(v)) wrong.push(`${name}=${String(v)}`);
  }
  return wrong;
}
