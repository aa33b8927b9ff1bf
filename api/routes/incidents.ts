// Incidents (SPEC 2.6, 3, 4.6): correlated leads, worked by analysts through
// their status. Any status may follow any other; every change is recorded
// with who made it and when, and drives the classification.
import { z } from 'zod';
import { Severity } from '../../clickhouse/severity.js';
import { getIncident, listIncidents, setIncidentStatus, statusHistory, type Incident } from '../../clickhouse/tables/incidents.js';
import { incidentMembers } from '../../clickhouse/tables/leads.js';
import { ListSort } from '../../clickhouse/list-order.js';
import { listNodes, nodeSummaries } from '../../clickhouse/tables/nodes.js';
import { listObservations } from '../../clickhouse/tables/observations.js';
import { userLabels } from '../../clickhouse/tables/users.js';
import type { Store } from '../../clickhouse/client.js';
import type { GraphScopes } from '../../config/env.js';
import type { IncidentDetail, PresentedIncident } from '../../ai/tools/types.js';
import { notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';
import { NodeSchema, presentNode } from './graph.js';

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
  node_id: z.uuid({ message: 'node_id must be a UUID' }).optional().describe('only incidents holding this node'),
  sort: ListSort.default('newest').describe('newest or oldest (by created_at), or severity (highest first, newest first within one)'),
});

const MAX_NOTE = 2000;
const StatusBody = z.strictObject({
  status: StatusNumber,
  note: z.string({ message: 'note must be a string' }).trim().max(MAX_NOTE, `note must be at most ${MAX_NOTE} characters`).optional().describe('why, kept in the status history; a note with the status unchanged is recorded too'),
});

const StatusChangeSchema = z.object({
  from_status: z.number(),
  to_status: z.number(),
  changed_by: z.string().describe('the user id (or API key, service) that made the change'),
  changed_by_name: z.string().nullable().describe("the user's name, else email; null when changed_by is no user"),
  changed_at: Timestamp,
  note: z.string().describe('empty when none was given'),
});

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
  const names = await userLabels(store, orgId, history.map((h) => h.changed_by));
  return {
    ...presentIncident(incident),
    nodes: incident.node_ids.map((nodeId) => nodes.get(nodeId)).filter((n) => n !== undefined),
    observations: observations.observations.map(({ id: observationId, type, description, severity }) => ({ id: observationId, type, description, severity })),
    status_history: history.map((h) => ({ ...h, changed_by_name: names.get(h.changed_by) ?? null })),
  };
}

/** Nodes named at most on one incident page; node_count says how many there are. */
const MAX_PAGE_NODES = 1000;

/**
 * The incident as its page shows it: the detail above, its nodes with flags
 * and GeoIP/ASN, each observation's time, and its leads (rule, severity,
 * when, the nodes and evidence artifacts of each), first seen first.
 */
async function incidentPage(store: Store, scopes: GraphScopes, orgId: string, id: string) {
  const detail = await incidentDetail(store, orgId, id);
  if (!detail) return null;
  const ids = detail.nodes.map((n) => n.id).slice(0, MAX_PAGE_NODES);
  const [nodes, members, observations] = await Promise.all([
    ids.length ? listNodes(store, orgId, scopes, { ids, flags: {}, limit: ids.length, offset: 0 }) : { nodes: [] },
    incidentMembers(store, orgId, { incidentIds: [id] }),
    listObservations(store, orgId, { ids: detail.observations.map((o) => o.id), limit: 1000, offset: 0 }),
  ]);
  const full = new Map(nodes.nodes.map((n) => [n.id, presentNode(n)]));
  const createdAt = new Map(observations.observations.map((o) => [o.id, o.created_at]));
  return {
    ...detail,
    nodes: ids.map((nodeId) => full.get(nodeId)).filter((n) => n !== undefined),
    observations: detail.observations.map((o) => ({ ...o, created_at: createdAt.get(o.id)! })),
    leads: (members.get(id) ?? []).map((l) => ({
      id: l.lead_id,
      rule_name: l.rule_name,
      severity: l.severity,
      observation_id: l.observation_id,
      node_ids: l.node_ids,
      artifact_ids: l.artifact_ids,
      first_seen: l.first_seen,
      last_seen: l.last_seen,
    })),
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
      const { node_id: nodeId, ...filter } = query;
      const { incidents, total } = await listIncidents(deps.store, auth.orgId, { ...filter, nodeId });
      return { message: `${total} incident(s)`, data: { incidents: incidents.map(presentIncident), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/incidents/:id',
    summary: 'Get an incident with its nodes (flags, GeoIP/ASN), observations, leads (with their evidence artifacts) and status history',
    tag: 'Incidents',
    permission: 'incidents:read',
    params: IdParams,
    response: IncidentSchema.extend({
      nodes: z.array(NodeSchema).describe(`the incident's nodes (the first ${MAX_PAGE_NODES}), with flags and GeoIP/ASN as GET /v1/nodes answers them`),
      observations: z.array(z.object({ id: z.string(), type: z.string(), description: z.string(), severity: Severity, created_at: Timestamp })),
      leads: z
        .array(
          z.object({
            id: z.string(),
            rule_name: z.string(),
            severity: Severity,
            observation_id: z.string(),
            node_ids: z.array(z.string()),
            artifact_ids: z.array(z.string()).describe('the evidence: the artifacts the lead was raised on'),
            first_seen: Timestamp,
            last_seen: Timestamp,
          }),
        )
        .describe('the leads that joined the incident, first seen first'),
      status_history: z.array(StatusChangeSchema).describe('oldest first'),
    }),
    errors: [404],
    async handler({ params, auth, deps }) {
      const incident = await incidentPage(deps.store, deps.config.graph, auth.orgId, params.id);
      if (!incident) throw notFound('incident');
      return { message: 'Incident found', data: incident };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/incidents/:id/status',
    summary: 'Set the status (1 New, 2 Investigating, 3 Resolved, 4 Closed, 5 Disrupted), optionally with a note kept in the status history',
    tag: 'Incidents',
    permission: 'incidents:write',
    params: IdParams,
    body: StatusBody,
    response: z.object({ id: z.string(), status: z.number().int(), status_name: z.string(), classification: Classification, note: z.string() }),
    errors: [404],
    async handler({ params, body, auth, deps }) {
      const incident = await getIncident(deps.store, auth.orgId, params.id);
      if (!incident) throw notFound('incident');
      const note = body.note ?? '';
      if (incident.status !== body.status || note !== '') {
        await setIncidentStatus(deps.store, auth.orgId, incident.id, { from_status: incident.status, to_status: body.status, changed_by: auth.subject, changed_at: new Date().toISOString(), note });
      }
      const name = STATUS_NAMES[body.status]!;
      return {
        message: `Incident status updated to ${name}`,
        data: { id: incident.id, status: body.status, status_name: name, classification: classification(body.status), note },
        audit: { before: { id: incident.id, status: incident.status, status_name: STATUS_NAMES[incident.status] ?? null } },
      };
    },
  }),
];
