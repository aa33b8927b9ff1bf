// System events the API raises (SPEC 6): a configuration change names the
// setting, the fields (never their values), who made it and from where; a
// failed login names the account tried and the client address (never the
// password).
import type { Context } from 'koa';
import { newId } from '../lib/ids.js';
import { systemEvents } from '../topics/index.js';
import type { AuthContext } from './auth.js';
import type { ApiDeps } from './deps.js';
import { produce } from './produce.js';

export async function raiseConfigChanged(deps: ApiDeps, ctx: Context, auth: AuthContext, change: { setting: string; summary: string; details: Record<string, unknown> }): Promise<void> {
  const actor = auth.email ?? auth.subject;
  await produce(deps, ctx, systemEvents, [
    {
      id: newId(),
      type: 'system.config_changed',
      org_id: auth.orgId,
      occurred_at: new Date().toISOString(),
      severity: 'info',
      summary: `${change.summary} by ${actor}`,
      details: { setting: change.setting, ...change.details, actor, client_ip: ctx.ip },
    },
  ], { what: 'the system.config_changed event of this change', then: 'the change itself is saved: read it back, and make it again if needed,' });
}

/** Every failed login (local, LDAP, SAML, or refused by the login limit). */
export async function raiseAuthFailure(deps: ApiDeps, ctx: Context, login: string, method: string, reason: string): Promise<void> {
  deps.logger.warn({ user: login.slice(0, 320), clientIp: ctx.ip, method, reason }, 'login failed');
  await produce(deps, ctx, systemEvents, [
    {
      id: newId(),
      type: 'auth.failure',
      org_id: deps.config.orgId,
      occurred_at: new Date().toISOString(),
      severity: 'warning',
      summary: `failed ${method} login for "${login.slice(0, 200)}" from ${ctx.ip}`,
      details: { user: login.slice(0, 320), client_ip: ctx.ip, method, reason, user_agent: ctx.get('user-agent').slice(0, 300) },
    },
  ], { what: 'the auth.failure event of this failed login', then: 'log in again' });
}
