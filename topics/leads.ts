// leads: one message per rule firing (and per update of a firing as more
// events join its window), for the correlator. Keyed by organization, so one
// worker correlates an organization's leads in order.
import { z } from 'zod';
import { defineTopic } from './topic.js';

export const Lead = z.object({
  id: z.uuid(),
  org_id: z.string(),
  rule_id: z.uuid(),
  rule_name: z.string(),
  observation_id: z.uuid(),
  type: z.string(),
  severity: z.enum(['low', 'medium', 'high', 'critical']),
  /** The field counted per value (e.g. source.ip), and this firing's value; empty without group_by. */
  group_by: z.string(),
  group_value: z.string(),
  window_start: z.string().nullable(),
  event_count: z.number().int(),
  node_ids: z.array(z.uuid()),
  artifact_ids: z.array(z.uuid()),
  /** The source (sensor) of the firing's first event; empty on leads written before it was kept. */
  source: z.string().default(''),
  first_seen: z.string(),
  last_seen: z.string(),
  created_at: z.string(),
});
export type Lead = z.infer<typeof Lead>;

export const leads = defineTopic<Lead>({
  name: 'leads',
  schema: Lead,
  key: (lead) => lead.org_id,
});
