// system.events: what the platform says about itself (SPEC section 6), for
// notification rules and the history.
import { z } from 'zod';
import { defineTopic } from './topic.js';
import { SYSTEM_EVENT_TYPES } from './system-event-types.js';

export { SYSTEM_EVENT_TYPES };

export const SystemEvent = z.object({
  /** Deterministic where the event has a natural key, so a replay can be recognised. */
  id: z.uuid(),
  type: z.enum(SYSTEM_EVENT_TYPES),
  org_id: z.string(),
  occurred_at: z.string(),
  severity: z.enum(['info', 'warning', 'error']),
  summary: z.string(),
  details: z.record(z.string(), z.unknown()),
});
export type SystemEvent = z.infer<typeof SystemEvent>;

export const systemEvents = defineTopic<SystemEvent>({
  name: 'system.events',
  schema: SystemEvent,
  key: (e) => e.type,
});
