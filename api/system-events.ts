// System events the API raises (SPEC 6) on behalf of the caller: a
// configuration change names the setting, the fields (never their values),
// who made it and from where.
import type { Context } from 'koa';
import { newId } from '../lib/ids.js';
import { publish } from '../pipeline/bus/consume.js';
import { systemEvents } from '../topics/index.js';
import type { AuthContext } from './auth.js';
import type { ApiDeps } from './deps.js';

export async function raiseConfigChanged(deps: ApiDeps, ctx: Context, auth: AuthContext, change: { setting: string; summary: string; details: Record<string, unknown> }): Promise<void> {
  const actor = auth.email ?? auth.subject;
  await publish(deps.bus, systemEvents, [
    {
      id: newId(),
      type: 'system.config_changed',
      org_id: auth.orgId,
      occurred_at: new Date().toISOString(),
      severity: 'info',
      summary: `${change.summary} by ${actor}`,
      details: { setting: change.setting, ...change.details, actor, client_ip: ctx.ip },
    },
  ]);
}
