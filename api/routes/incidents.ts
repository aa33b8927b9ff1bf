// Incidents (SPEC 2.6, 3, 4.6): correlated leads, worked by analysts through
// their status. Any status may follow any other; every change is recorded
// with who made it and when, and drives the classification.
import { z } from 'zod';
import { Severity } from '../../clickhouse/severity.js';
import { getIncident, listIncidents, setIncidentStatus, statusHistory, type Incident } from '../../clickhouse/tables/incidents.js';
import { nodeSummaries } from '../../clickhouse/tables/nodes.js';
import { listObservations } from '../../clickhouse/tables/observations.js';
import type { Store } from '../../clickhouse/client.js';
import type { IncidentDetail, PresentedIncident } from '../../ai/tools/types.js';
import { notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';

export const STATUS_NAMES: Record<number, string> = { 1: 'New', 2: 'Investigating', 3: 'Resolved', 4: 'Closed', 5: 'Disrupted' };

/** SPEC 3: Resolved and Disrupted were real (true positive), Closed was not (false positive). */
export function classification(status: number): 'true_positive' | 'false_positive' | null {
  if (status === 3 || status === 5) return 'true_positive';
  if (status === 4) return 'false_positive';
  return null;
}

const STATUS_RULE = 'status must be an integer from 1 to 5';
/** A status in a body: a JSON integer (the string "3" is refused). */
const StatusNumber = z.number({ message: STATUS_RULE }).int(STATUS_RULE).min(1, STATUS_RULE).max(5, STATUS_RULE);
/** A status in a query string, where every value is text. */
const StatusQuery = z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : v), StatusNumber);
const Classification = z.enum(['true_positive', 'false_positive']).nullable();

const IncidentSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  title: z.string(),
  severity: Severity,
  status: z.number().int(),
  status_name: z.string(),
  classification: Classification,
  artifact_count: z.number().int(),
  node_count: z.number().int(),
  first_seen: Timestamp,
  last_seen: Timestamp,
  created_at: Timestamp,
  updated_at: Timestamp,
});

const ListQuery = Pagination.extend({
  status: StatusQuery.optional(),
  severity: Severity.optional(),
  start: Timestamp.optional(),
  end: Timestamp.optional(),
});

const StatusBody = z.strictObject({ status: StatusNumber });

/** An incident as the API answers it (also the AI tools', api/ai-reads.ts). */
export function presentIncident(incident: Incident): PresentedIncident {
  const { node_ids: _nodes, observation_ids: _observations, ...rest } = incident;
  return { ...rest, status_name: STATUS_NAMES[incident.status] ?? 'Unknown', classification: classification(incident.status) };
}

/** GET /v1/incidents/:id: the incident with its nodes, observations and status history; null when there is none. */
export async function incidentDetail(store: Store, orgId: string, id: string): Promise<IncidentDetail | null> {
  const incident = await getIncident(store, orgId, id);
  if (!incident) return null;
  const [nodes, observations, history] = await Promise.all([
    nodeSummaries(store, orgId, incident.node_ids),
    listObservations(store, orgId, { ids: incident.observation_ids, limit: 1000, offset: 0 }),
    statusHistory(store, orgId, incident.id),
  ]);
  return {
    ...presentIncident(incident),
    nodes: incident.node_ids.map((nodeId) => nodes.get(nodeId)).filter((n) => n !== undefined),
    observations: observations.observations.map(({ id: observationId, type, description, severity }) => ({ id: observationId, type, description, severity })),
    status_history: history,
  };
}

export const incidentRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/incidents',
    summary: 'List incidents, newest first; start/end filter created_at in [start, end)',
    tag: 'Incidents',
    permission: 'incidents:read',
    query: ListQuery,
    response: listData('incidents', IncidentSchema),
    async handler({ query, auth, deps }) {
      const { incidents, total } = await listIncidents(deps.store, auth.orgId, query);
      return { message: `${total} incident(s)`, data: { incidents: incidents.map(presentIncident), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/incidents/:id',
    summary: 'Get an incident with its nodes, observations and status history',
    tag: 'Incidents',
    permission: 'incidents:read',
    params: IdParams,
    response: IncidentSchema.extend({
      nodes: z.array(z.object({ id: z.string(), type: z.string(), value: z.string() })),
      observations: z.array(z.object({ id: z.string(), type: z.string(), description: z.string(), severity: Severity })),
      status_history: z.array(z.object({ from_status: z.number(), to_status: z.number(), changed_by: z.string(), changed_at: Timestamp })),
    }),
    errors: [404],
    async handler({ params, auth, deps }) {
      const incident = await incidentDetail(deps.store, auth.orgId, params.id);
      if (!incident) throw notFound('incident');
      return { message: 'Incident found', data: incident };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/incidents/:id/status',
    summary: 'Set the status (1 New, 2 Investigating, 3 Resolved, 4 Closed, 5 Disrupted)',
    tag: 'Incidents',
    permission: 'incidents:write',
    params: IdParams,
    body: StatusBody,
    response: z.object({ id: z.string(), status: z.number().int(), status_name: z.string(), classification: Classification }),
    errors: [404],
    async handler({ params, body, auth, deps }) {
      const incident = await getIncident(deps.store, auth.orgId, params.id);
      if (!incident) throw notFound('incident');
      if (incident.status !== body.status) {
        await setIncidentStatus(deps.store, auth.orgId, incident.id, { from_status: incident.status, to_status: body.status, changed_by: auth.subject, changed_at: new Date().toISOString() });
      }
      const name = STATUS_NAMES[body.status]!;
      return {
        message: `Incident status updated to ${name}`,
        data: { id: incident.id, status: body.status, status_name: name, classification: classification(body.status) },
        audit: { before: { id: incident.id, status: incident.status, status_name: STATUS_NAMES[incident.status] ?? null } },
      };
    },
  }),
];
