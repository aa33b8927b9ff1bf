// The rule that fired and what an IPS did about it, from an alert record.
import { count, text, type Json } from '../../json-values.js';
import type { EventFields } from '../../types.js';

export function addAlert(fields: EventFields, alert: Json): void {
  const signatureId = count(alert.signature_id);
  const signature = text(alert.signature);
  const category = text(alert.category);
  const severity = count(alert.severity);
  const revision = count(alert.rev);
  if (signatureId !== undefined) fields['rule.id'] = String(signatureId);
  if (signature) fields['rule.name'] = signature;
  if (category) fields['rule.category'] = category;
  if (revision !== undefined) fields['rule.version'] = String(revision);
  if (severity !== undefined) fields['event.severity'] = severity;
  // "blocked" is what an IPS did with the packet: ECS calls that "denied".
  const action = alert.action === 'blocked' ? 'denied' : alert.action === 'allowed' ? 'allowed' : undefined;
  if (action) fields['event.type'] = [action];
}
