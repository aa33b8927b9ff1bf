// The audit log: every change made through the API, with who, what, when,
// from where, and the resource before and after (secrets redacted). Routes
// are recorded by mountRoutes; logins and logouts, which change sessions
// rather than resources, are recorded by their routes through recordAudit.
import type { Context } from 'koa';
import { appendAudit, type AuditEntry } from '../clickhouse/tables/audit-log.js';
import { newId } from '../lib/ids.js';
import { redactSecrets } from '../lib/redact.js';
import type { AuthContext } from './auth.js';
import type { ApiDeps } from './deps.js';

export interface AuditNote {
  /** Overrides the action, e.g. auth.login (default: "<METHOD> <path pattern>"). */
  action?: string;
  targetId?: string;
  before?: unknown;
  after?: unknown;
  /** The actor when the route is public (login): who it was for. */
  actor?: { id: string; email: string; orgId: string };
  outcome?: 'success' | 'failure';
}

interface AuditedRoute {
  method: string;
  path: string;
}

function text(value: unknown): string {
  return value === undefined || value === null ? '' : JSON.stringify(redactSecrets(value));
}

/** The resource a path names: /v1/users/:id → users, /v1/settings/auth → settings/auth. */
function targetType(path: string): string {
  return path
    .replace(/^\/v1\//, '')
    .split('/')
    .filter((part) => !part.startsWith(':'))
    .join('/');
}

export async function recordAudit(deps: ApiDeps, ctx: Context, entry: { action: string; targetType: string; note: AuditNote }): Promise<void> {
  const auth = ctx.state.auth as AuthContext | undefined;
  const { note } = entry;
  const row: AuditEntry = {
    id: newId(),
    org_id: note.actor?.orgId ?? auth?.orgId ?? deps.config.orgId,
    at: new Date().toISOString(),
    actor_id: note.actor?.id ?? auth?.subject ?? '',
    actor_email: note.actor?.email ?? auth?.email ?? '',
    actor_via: auth?.via ?? 'anonymous',
    action: entry.action,
    target_type: entry.targetType,
    target_id: note.targetId ?? '',
    outcome: note.outcome ?? 'success',
    client_ip: ctx.ip,
    request_id: String(ctx.state.requestId ?? ''),
    before: text(note.before),
    after: text(note.after),
  };
  try {
    await appendAudit(deps.store, [row]);
  } catch (err) {
    // The change itself is done; losing its record is an operational error to see, not a reason to answer 500.
    deps.logger.error({ err, action: row.action, target: row.target_id }, 'audit log write failed');
  }
}

/** Records a successful change made by a route. */
export async function recordChange(deps: ApiDeps, ctx: Context, route: AuditedRoute, params: unknown, result: { data: unknown; audit?: AuditNote }): Promise<void> {
  const note = result.audit ?? {};
  const paramId = (params as { id?: unknown } | undefined)?.id;
  const dataId = (result.data as { id?: unknown } | null | undefined)?.id;
  const targetId = note.targetId ?? (typeof paramId === 'string' ? paramId : typeof dataId === 'string' ? dataId : '');
  await recordAudit(deps, ctx, {
    action: note.action ?? `${route.method.toUpperCase()} ${route.path}`,
    targetType: targetType(route.path),
    note: { ...note, targetId, after: 'after' in note ? note.after : result.data },
  });
}
