// Field writers that more than one Suricata event type's mapping uses.
import { isoString, parseIsoMillis } from '../../../../lib/iso-time.js';
import type { EventFields } from '../../types.js';

/** An EVE time as @timestamp writes it; undefined when absent or malformed. */
export function isoTime(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const ms = parseIsoMillis(value);
  return ms === null ? undefined : isoString(ms);
}

/** Adds a name the destination answers to (SNI, HTTP Host), keeping any already there. */
export function addDestinationDomain(fields: EventFields, domain: string): void {
  const current = fields['destination.domain'];
  if (current === undefined) fields['destination.domain'] = domain;
  else if (current !== domain && !(Array.isArray(current) && current.includes(domain))) {
    fields['destination.domain'] = Array.isArray(current) ? [...current, domain] : [String(current), domain];
  }
}
