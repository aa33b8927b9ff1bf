// Leads (SPEC 2.3): one per rule firing, each joined to an incident by the
// correlator. Read-only: the lead-rule stage writes them.
import { z } from 'zod';
import { ListSort } from '../../clickhouse/list-order.js';
import { Severity } from '../../clickhouse/severity.js';
import { listLeads } from '../../clickhouse/tables/leads.js';
import { defineRoute } from '../route.js';
import { listData, Pagination, Timestamp } from '../schemas.js';

const LeadSchema = z.object({
  id: z.string(),
  rule_id: z.string(),
  rule_name: z.string(),
  observation_id: z.string().describe('the observation the same firing wrote'),
  type: z.string(),
  severity: Severity,
  group_by: z.string().describe("the rule's group_by field; empty without one"),
  group_value: z.string(),
  window_start: Timestamp.nullable().describe("the threshold window's start; null for a rule without one"),
  event_count: z.number().int(),
  node_ids: z.array(z.string()),
  artifact_ids: z.array(z.string()).describe('the evidence: the artifacts the lead was raised on (up to 1,000)'),
  source: z.string().describe("the source of the lead's first event"),
  first_seen: Timestamp,
  last_seen: Timestamp,
  created_at: Timestamp,
  incident_id: z.string().nullable().describe('the incident the lead joined; null until the correlator placed it'),
});

const ListQuery = Pagination.extend({
  severity: Severity.optional(),
  rule_id: z.uuid({ message: 'rule_id must be a UUID' }).optional(),
  node_id: z.uuid({ message: 'node_id must be a UUID' }).optional().describe('only leads naming this node'),
  incident_id: z.uuid({ message: 'incident_id must be a UUID' }).optional(),
  start: Timestamp.optional(),
  end: Timestamp.optional(),
  sort: ListSort.default('newest').describe('newest or oldest (by created_at), or severity (highest first, newest first within one)'),
});

export const leadRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/leads',
    summary: 'List leads, newest first unless sort says otherwise; start/end filter created_at in [start, end)',
    tag: 'Leads',
    permission: 'signals:read',
    query: ListQuery,
    response: listData('leads', LeadSchema),
    async handler({ query, auth, deps }) {
      const { leads, total } = await listLeads(deps.store, auth.orgId, {
        severity: query.severity,
        ruleId: query.rule_id,
        nodeId: query.node_id,
        incidentId: query.incident_id,
        start: query.start,
        end: query.end,
        sort: query.sort,
        limit: query.limit,
        offset: query.offset,
      });
      return { message: `${total} lead(s)`, data: { leads, total, limit: query.limit, offset: query.offset } };
    },
  }),
];
