// The audit_log table: who changed what, when and from where. Append only.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, SqlParams, whereClause, type Page } from '../sql.js';

export interface AuditEntry {
  id: string;
  org_id: string;
  at: string;
  actor_id: string;
  actor_email: string;
  actor_via: string;
  action: string;
  target_type: string;
  target_id: string;
  outcome: 'success' | 'failure';
  client_ip: string;
  request_id: string;
  /** Redacted JSON text of the resource before and after; empty when there is none. */
  before: string;
  after: string;
}

const AuditRow = z.object({
  id: z.string(),
  org_id: z.string(),
  at: z.string(),
  actor_id: z.string(),
  actor_email: z.string(),
  actor_via: z.string(),
  action: z.string(),
  target_type: z.string(),
  target_id: z.string(),
  outcome: z.enum(['success', 'failure']),
  client_ip: z.string(),
  request_id: z.string(),
  before: z.string(),
  after: z.string(),
});

const COLUMNS = 'id, org_id, at, actor_id, actor_email, actor_via, action, target_type, target_id, outcome, client_ip, request_id, before, after';

export async function appendAudit(store: Store, entries: AuditEntry[]): Promise<void> {
  if (entries.length === 0) return;
  await store.insert({ table: 'audit_log', format: 'JSONEachRow', values: entries });
}

export interface AuditFilter extends Page {
  actorId?: string;
  action?: string;
  targetType?: string;
  targetId?: string;
  outcome?: 'success' | 'failure';
  since?: string;
  until?: string;
}

export async function listAudit(store: Store, orgId: string, filter: AuditFilter): Promise<{ entries: AuditEntry[]; total: number }> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.actorId) where.push(`actor_id = ${params.add(filter.actorId, 'String')}`);
  if (filter.action) where.push(`action = ${params.add(filter.action, 'String')}`);
  if (filter.targetType) where.push(`target_type = ${params.add(filter.targetType, 'String')}`);
  if (filter.targetId) where.push(`target_id = ${params.add(filter.targetId, 'String')}`);
  if (filter.outcome) where.push(`outcome = ${params.add(filter.outcome, 'String')}`);
  if (filter.since) where.push(`at >= ${params.add(toClickHouseTime(filter.since), 'DateTime64(3)')}`);
  if (filter.until) where.push(`at < ${params.add(toClickHouseTime(filter.until), 'DateTime64(3)')}`);
  const { rows, total } = await queryPage(store, { query: `SELECT ${COLUMNS} FROM audit_log ${whereClause(where)}`, params, orderBy: 'at DESC, id', page: filter });
  return { entries: rows.map((row) => { const r = AuditRow.parse(row); return { ...r, at: toIsoTimestamp(r.at) }; }), total };
}
