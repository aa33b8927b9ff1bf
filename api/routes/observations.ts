// Observations (SPEC 2.3, 4.3): findings written by analysts here and by the
// lead-rule stage.
import { z } from 'zod';
import { newId } from '../../lib/ids.js';
import type { Store } from '../../clickhouse/client.js';
import { Severity } from '../../clickhouse/severity.js';
import { ListSort } from '../../clickhouse/list-order.js';
import { deleteObservation, getObservation, listObservations, saveObservations, type Observation } from '../../clickhouse/tables/observations.js';
import { notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';

/** Ids an observation may link to, per list. */
const MAX_LINKS = 1000;

const ObservationSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  type: z.string(),
  description: z.string(),
  severity: Severity,
  node_ids: z.array(z.string()),
  artifact_ids: z.array(z.string()),
  rule_id: z.string().nullable(),
  tags: z.array(z.string()).describe("the firing rule's tags (ATT&CK techniques such as attack.t1110), or the analyst's"),
  created_by: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Fields = {
  type: z.string().trim().min(1, 'type is required').max(64, 'type must be at most 64 characters'),
  description: z.string().trim().min(1, 'description is required').max(10_000),
  severity: Severity,
  node_ids: z.array(z.uuid({ message: 'node_ids must hold UUIDs' })).max(MAX_LINKS),
  artifact_ids: z.array(z.uuid({ message: 'artifact_ids must hold UUIDs' })).max(MAX_LINKS),
  tags: z.array(z.string().trim().min(1).max(100)).max(50),
};

const CreateBody = z.object({
  type: Fields.type,
  description: Fields.description,
  severity: Fields.severity.default('medium'),
  node_ids: Fields.node_ids.default([]),
  artifact_ids: Fields.artifact_ids.default([]),
  tags: Fields.tags.default([]),
});

const UpdateBody = z
  .object({
    type: Fields.type.optional(),
    description: Fields.description.optional(),
    severity: Fields.severity.optional(),
    node_ids: Fields.node_ids.optional(),
    artifact_ids: Fields.artifact_ids.optional(),
    tags: Fields.tags.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

const ListQuery = Pagination.extend({
  type: z.string().min(1).max(64).optional(),
  severity: Severity.optional(),
  start: Timestamp.optional(),
  end: Timestamp.optional(),
  node_id: z.uuid({ message: 'node_id must be a UUID' }).optional().describe('only observations naming this node'),
  sort: ListSort.default('newest').describe('newest or oldest (by created_at), or severity (highest first, newest first within one)'),
});

async function findObservation(store: Store, orgId: string, id: string): Promise<Observation> {
  const observation = await getObservation(store, orgId, id);
  if (!observation) throw notFound('observation');
  return observation;
}

export const observationRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/observations',
    summary: 'List observations, newest first; start/end filter created_at in [start, end)',
    tag: 'Observations',
    permission: 'observations:read',
    query: ListQuery,
    response: listData('observations', ObservationSchema),
    async handler({ query, auth, deps }) {
      const { node_id: nodeId, ...filter } = query;
      const { observations, total } = await listObservations(deps.store, auth.orgId, { ...filter, nodeId });
      return { message: `${total} observation(s)`, data: { observations, total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/observations/:id',
    summary: 'Get one observation',
    tag: 'Observations',
    permission: 'observations:read',
    params: IdParams,
    response: ObservationSchema,
    errors: [404],
    async handler({ params, auth, deps }) {
      return { message: 'Observation found', data: await findObservation(deps.store, auth.orgId, params.id) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/observations',
    summary: 'Record an observation (severity medium by default)',
    tag: 'Observations',
    permission: 'observations:write',
    body: CreateBody,
    response: ObservationSchema.pick({ id: true, type: true, description: true, severity: true, created_at: true }),
    successStatus: 201,
    async handler({ body, auth, deps }) {
      const now = new Date().toISOString();
      const observation: Observation = { id: newId(), org_id: auth.orgId, ...body, rule_id: null, created_by: auth.subject, created_at: now, updated_at: now };
      await saveObservations(deps.store, [observation]);
      const { id, type, description, severity, created_at } = observation;
      return { message: 'Observation created', data: { id, type, description, severity, created_at } };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/observations/:id',
    summary: 'Update an observation; only the fields given change',
    tag: 'Observations',
    permission: 'observations:write',
    params: IdParams,
    body: UpdateBody,
    response: ObservationSchema,
    errors: [404],
    async handler({ params, body, auth, deps }) {
      const current = await findObservation(deps.store, auth.orgId, params.id);
      const updated: Observation = {
        ...current,
        ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
        updated_at: new Date().toISOString(),
      };
      await saveObservations(deps.store, [updated]);
      return { message: 'Observation updated', data: updated, audit: { before: current } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/observations/:id',
    summary: 'Delete an observation',
    tag: 'Observations',
    permission: 'observations:write',
    params: IdParams,
    response: z.null(),
    errors: [404],
    async handler({ params, auth, deps }) {
      const observation = await findObservation(deps.store, auth.orgId, params.id);
      await deleteObservation(deps.store, observation);
      return { message: 'Observation deleted', data: null, audit: { before: observation, after: null } };
    },
  }),
];
