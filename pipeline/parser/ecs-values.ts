// ECS's allowed values for the categorization fields (ECS 8: event.kind,
// event.category, event.type, event.outcome). Parsers write only these; the
// catalogue tests and the CEF/LEEF categoriser check their data against them.
export const ECS_KINDS: ReadonlySet<string> = new Set(['alert', 'asset', 'enrichment', 'event', 'metric', 'state', 'pipeline_error', 'signal']);

export const ECS_CATEGORIES: ReadonlySet<string> = new Set([
  'api',
  'authentication',
  'configuration',
  'database',
  'driver',
  'email',
  'file',
  'host',
  'iam',
  'intrusion_detection',
  'library',
  'malware',
  'network',
  'package',
  'process',
  'registry',
  'session',
  'threat',
  'vulnerability',
  'web',
]);

export const ECS_TYPES: ReadonlySet<string> = new Set(['access', 'admin', 'allowed', 'change', 'connection', 'creation', 'deletion', 'denied', 'end', 'error', 'group', 'indicator', 'info', 'installation', 'protocol', 'start', 'user']);

export const ECS_OUTCOMES: ReadonlySet<string> = new Set(['success', 'failure', 'unknown']);

/** What is wrong with an event's categorization (a missing category or type, a value ECS does not allow); empty when nothing is. */
export function categorizationProblems(fields: Readonly<Record<string, unknown>>): string[] {
  const problems: string[] = [];
  const check = (name: string, allowed: ReadonlySet<string>, required: boolean) => {
    const value = fields[name];
    if (value === undefined) {
      if (required) problems.push(`${name} is missing`);
      return;
    }
    const values = Array.isArray(value) ? value : [value];
    if (values.length === 0 && required) problems.push(`${name} is empty`);
    for (const v of values) if (!allowed.has(String(v))) problems.push(`${name} ${String(v)} is not an ECS value`);
  };
  check('event.kind', ECS_KINDS, false);
  check('event.category', ECS_CATEGORIES, true);
  check('event.type', ECS_TYPES, true);
  check('event.outcome', ECS_OUTCOMES, false);
  return problems;
}
