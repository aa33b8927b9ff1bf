// The audit log (docs/identity.md): read only, for admins. No route changes
// or deletes an entry.
import { z } from 'zod';
import { listAudit } from '../../clickhouse/tables/audit-log.js';
import { defineRoute } from '../route.js';
import { listData, Pagination, Timestamp } from '../schemas.js';

const EntrySchema = z.object({
  id: z.string(),
  at: Timestamp,
  actor_id: z.string().describe('user id, or the service name of an operator token; empty for a failed login'),
  actor_email: z.string(),
  actor_via: z.string().describe('session, token, api_key, service or anonymous'),
  action: z.string().describe('"<METHOD> <route>" for API changes; auth.login and auth.logout for sessions'),
  target_type: z.string(),
  target_id: z.string(),
  outcome: z.enum(['success', 'failure']),
  client_ip: z.string(),
  request_id: z.string(),
  before: z.unknown().describe('the resource before the change, secrets redacted; null when there was none'),
  after: z.unknown().describe('the resource after the change, secrets redacted; null after a delete'),
});

const parsed = (text: string): unknown => (text ? JSON.parse(text) : null);

export const auditLogRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/audit-log',
    summary: 'The audit log, newest first; filter by actor_id, action, target_type, target_id, outcome and a since/until range',
    tag: 'Audit',
    permission: 'admin',
    query: Pagination.extend({
      actor_id: z.string().max(200).optional(),
      action: z.string().max(200).optional(),
      target_type: z.string().max(200).optional(),
      target_id: z.string().max(200).optional(),
      outcome: z.enum(['success', 'failure']).optional(),
      since: Timestamp.optional(),
      until: Timestamp.optional(),
    }),
    response: listData('entries', EntrySchema),
    async handler({ query, auth, deps }) {
      const { entries, total } = await listAudit(deps.store, auth.orgId, {
        ...query,
        actorId: query.actor_id,
        targetType: query.target_type,
        targetId: query.target_id,
      });
      const shown = entries.map(({ org_id: _org, ...entry }) => ({ ...entry, before: parsed(entry.before), after: parsed(entry.after) }));
      return { message: `${total} entr${total === 1 ? 'y' : 'ies'}`, data: { entries: shown, total, limit: query.limit, offset: query.offset } };
    },
  }),
];
