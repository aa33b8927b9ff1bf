// Notifications (SPEC 2.12, 4.12; docs/notifications.md): channels, rules
// and the delivery history. SPEC gives two path families for the same
// resources; each operation below is declared once and mounted in both:
// family A (/v1/notification-channels, /v1/notification-rules; bearer
// token, settings:manage on every row) and family B (/v1/notifications/...;
// the session cookie only, reads settings:read, changes settings:manage).
import { z } from 'zod';
import { CHANNEL_TYPES, DELIVERY_STATUSES, deleteChannel, deleteRule, getChannels, getRules, listChannels, listHistory, listRules, saveChannel, saveRule, type NotificationRule, type StoredChannel } from '../../clickhouse/tables/notifications.js';
import { newId } from '../../lib/ids.js';
import type { Permission } from '../../identity/permissions.js';
import { CHANNEL_SETTINGS, mergeSettings, openSettings, redactSettings, sealSettings } from '../../pipeline/notifier/channels.js';
import { Notifier } from '../../pipeline/notifier/notifier.js';
import { announceChange } from '../../pipeline/state/index.js';
import { SYSTEM_EVENT_TYPES } from '../../topics/index.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import { defineRoute, type Route } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';

const ChannelSchema = z.object({
  id: z.string(),
  name: z.string(),
  type: z.enum(CHANNEL_TYPES),
  enabled: z.boolean(),
  settings: z.record(z.string(), z.unknown()).describe('by type (docs/notifications.md); secrets (password, webhook_url, auth_token, signing_secret) as "[redacted]"'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const RuleSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  event_types: z.array(z.string()),
  channel_ids: z.array(z.string()),
  cooldown_minutes: z.number().int().describe('a rule firing again this soon after a notification is recorded as skipped, not sent'),
  enabled: z.boolean(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const HistorySchema = z.object({
  id: z.string().describe('derived from (event, rule, channel)'),
  at: Timestamp,
  event_id: z.string(),
  event_type: z.string(),
  rule_id: z.string().describe('empty for a channel test'),
  rule_name: z.string(),
  channel_id: z.string(),
  channel_name: z.string(),
  channel_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  message: z.string().describe('the event when sent or skipped, the error text when failed'),
  attempts: z.number().int(),
});

const Name = z.string().trim().min(1, 'name is required').max(200);
const EventTypes = z
  .array(z.enum(SYSTEM_EVENT_TYPES, { message: `each event type must be one of: ${SYSTEM_EVENT_TYPES.join(', ')}` }))
  .min(1, 'give at least one event type')
  .transform((t) => [...new Set(t)]);
const ChannelIds = z
  .array(z.uuid('each channel id must be a UUID'))
  .min(1, 'give at least one channel')
  .max(20)
  .transform((ids) => [...new Set(ids)]);
const Cooldown = z.int('cooldown_minutes must be an integer').min(0).max(10_080, 'cooldown_minutes is at most a week (10080)');

const channelOf = <T extends StoredChannel['type']>(type: T) =>
  z.strictObject({ name: Name, type: z.literal(type), enabled: z.boolean().default(true), settings: CHANNEL_SETTINGS[type] });
const CreateChannel = z.discriminatedUnion('type', [channelOf('email'), channelOf('slack'), channelOf('webhook')], { message: `type must be one of: ${CHANNEL_TYPES.join(', ')}` });
const UpdateChannel = z
  .strictObject({ name: Name.optional(), enabled: z.boolean().optional(), type: z.enum(CHANNEL_TYPES).optional(), settings: z.record(z.string(), z.unknown()).optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

const CreateRule = z.strictObject({
  name: Name,
  description: z.string().max(2000).default(''),
  event_types: EventTypes,
  channel_ids: ChannelIds,
  cooldown_minutes: Cooldown.default(15),
  enabled: z.boolean().default(true),
});
const UpdateRule = z
  .strictObject({ name: Name.optional(), description: z.string().max(2000).optional(), event_types: EventTypes.optional(), channel_ids: ChannelIds.optional(), cooldown_minutes: Cooldown.optional(), enabled: z.boolean().optional() })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

const HistoryQuery = Pagination.extend({
  event_type: z.string().max(100).optional(),
  channel_id: z.uuid('channel_id must be a UUID').optional(),
  rule_id: z.uuid('rule_id must be a UUID').optional(),
  status: z.enum(DELIVERY_STATUSES).optional(),
  since: Timestamp.optional(),
  until: Timestamp.optional(),
});

function presentChannel(channel: StoredChannel): z.input<typeof ChannelSchema> {
  const { org_id: _org, ...rest } = channel;
  return { ...rest, settings: redactSettings(channel.type, channel.settings) };
}

function presentRule(rule: NotificationRule): z.input<typeof RuleSchema> {
  const { org_id: _org, ...rest } = rule;
  return rest;
}

/** Validates settings for a type, naming the field: "settings.smtp_port: smtp_port must be 25, 465 or 587". */
function checkedSettings(type: StoredChannel['type'], settings: Record<string, unknown>): Record<string, unknown> {
  const result = CHANNEL_SETTINGS[type].safeParse(settings);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  throw badRequest(`invalid body: settings.${issue.path.join('.')}: ${issue.message}`, result.error.issues.map((i) => ({ in: 'body', path: `settings.${i.path.join('.')}`, message: i.message })));
}

async function findChannel(deps: ApiDeps, orgId: string, id: string): Promise<StoredChannel> {
  const channel = (await getChannels(deps.store, orgId, [id]))[0];
  if (!channel) throw notFound('notification channel');
  return channel;
}

/** Writes a rule change and announces it, so notifiers (which cache the rules) apply it to the next event. */
async function changeRules(deps: ApiDeps, write: () => Promise<void>): Promise<void> {
  await write();
  await announceChange(deps.state, 'notification-rules');
}

async function findRule(deps: ApiDeps, orgId: string, id: string): Promise<NotificationRule> {
  const rule = (await getRules(deps.store, orgId, { ids: [id] }))[0];
  if (!rule) throw notFound('notification rule');
  return rule;
}

async function assertChannelsExist(deps: ApiDeps, orgId: string, ids: string[]): Promise<void> {
  const found = new Set((await getChannels(deps.store, orgId, ids)).map((c) => c.id));
  const missing = ids.filter((id) => !found.has(id));
  if (missing.length) throw badRequest(`channel_ids: no such channel: ${missing.join(', ')}`);
}

interface Family {
  /** Where its paths start: /v1/notification- (A) or /v1/notifications/ (B). */
  channels: string;
  rules: string;
  read: Permission;
  write: Permission;
  session?: true;
  tag: string;
}

const FAMILY_A: Family = { channels: '/v1/notification-channels', rules: '/v1/notification-rules', read: 'settings:manage', write: 'settings:manage', tag: 'Notifications' };
const FAMILY_B: Family = { channels: '/v1/notifications/channels', rules: '/v1/notifications/rules', read: 'settings:read', write: 'settings:manage', session: true, tag: 'Notifications (session)' };

/** The operations, declared once; `families` says where each is mounted (SPEC 4.12 lists some in family B only). */
function operations(f: Family, family: 'A' | 'B'): Route[] {
  const common = { tag: f.tag, ...(f.session ? { session: true as const } : {}) };
  const routes: Route[] = [
    defineRoute({
      ...common,
      method: 'get',
      path: f.channels,
      summary: 'List notification channels by name',
      permission: f.read,
      query: Pagination,
      response: listData('channels', ChannelSchema),
      async handler({ query, auth, deps }) {
        const { channels, total } = await listChannels(deps.store, auth.orgId, query);
        return { message: `${total} channel(s)`, data: { channels: channels.map(presentChannel), total, limit: query.limit, offset: query.offset } };
      },
    }),
    defineRoute({
      ...common,
      method: 'post',
      path: f.channels,
      summary: 'Create a channel: email (SMTP), slack (incoming webhook) or webhook',
      permission: f.write,
      body: CreateChannel,
      response: ChannelSchema,
      successStatus: 201,
      async handler({ body, auth, deps }) {
        const now = new Date().toISOString();
        const channel: StoredChannel = { id: newId(), org_id: auth.orgId, name: body.name, type: body.type, enabled: body.enabled, settings: sealSettings(deps.identity.box, body.type, body.settings), created_at: now, updated_at: now };
        await saveChannel(deps.store, channel);
        return { message: 'Channel created', data: presentChannel(channel) };
      },
    }),
    defineRoute({
      ...common,
      method: 'put',
      path: `${f.channels}/:id`,
      summary: 'Change a channel; settings merge key by key, and a secret left out or sent as "[redacted]" keeps its stored value',
      permission: f.write,
      params: IdParams,
      body: UpdateChannel,
      response: ChannelSchema,
      errors: [404],
      async handler({ params, body, auth, deps }) {
        const before = await findChannel(deps, auth.orgId, params.id);
        if (body.type && body.type !== before.type) throw badRequest(`type cannot change (${before.type}); make a new channel`);
        const plain = openSettings(deps.identity.box, before.type, before.settings);
        const settings = body.settings ? checkedSettings(before.type, mergeSettings(before.type, plain, body.settings)) : plain;
        const after: StoredChannel = { ...before, name: body.name ?? before.name, enabled: body.enabled ?? before.enabled, settings: sealSettings(deps.identity.box, before.type, settings), updated_at: new Date().toISOString() };
        await saveChannel(deps.store, after);
        return { message: 'Channel updated', data: presentChannel(after), audit: { before: presentChannel(before) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'delete',
      path: `${f.channels}/:id`,
      summary: 'Delete a channel no rule uses (409 names the rules that do)',
      permission: f.write,
      params: IdParams,
      response: z.null(),
      errors: [404, 409],
      async handler({ params, auth, deps }) {
        const channel = await findChannel(deps, auth.orgId, params.id);
        const users = await getRules(deps.store, auth.orgId, { channelId: channel.id });
        if (users.length) throw new HttpError(409, 'conflict', `channel "${channel.name}" is used by rule(s): ${users.map((r) => `"${r.name}"`).join(', ')}; change them first`, { rules: users.map((r) => r.id) });
        await deleteChannel(deps.store, channel);
        return { message: `Channel "${channel.name}" deleted`, data: null, audit: { before: presentChannel(channel), after: null } };
      },
    }),
    defineRoute({
      ...common,
      method: 'post',
      path: `${f.channels}/:id/test`,
      summary: 'Send a test message through the channel now; answers the outcome (the SMTP or HTTP error text on failure) and records it in the history',
      permission: f.write,
      params: IdParams,
      audit: false,
      response: z.object({ success: z.boolean(), message: z.string(), attempts: z.number().int() }),
      errors: [404],
      async handler({ params, auth, deps }) {
        const channel = await findChannel(deps, auth.orgId, params.id);
        const event = {
          id: newId(),
          type: 'notification.test' as const,
          org_id: auth.orgId,
          occurred_at: new Date().toISOString(),
          severity: 'info' as const,
          summary: `test message from cairn for channel "${channel.name}", sent by ${auth.email ?? auth.subject}`,
          details: { channel_id: channel.id },
        };
        const outcome = await new Notifier(deps).test(channel, event);
        return { message: outcome.ok ? 'Test message sent' : `Test message failed: ${outcome.message}`, data: { success: outcome.ok, message: outcome.message, attempts: outcome.attempts } };
      },
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: f.rules,
      summary: 'List notification rules by name',
      permission: f.read,
      query: Pagination,
      response: listData('rules', RuleSchema),
      async handler({ query, auth, deps }) {
        const { rules, total } = await listRules(deps.store, auth.orgId, query);
        return { message: `${total} rule(s)`, data: { rules: rules.map(presentRule), total, limit: query.limit, offset: query.offset } };
      },
    }),
    defineRoute({
      ...common,
      method: 'post',
      path: f.rules,
      summary: `Create a rule: event types (${SYSTEM_EVENT_TYPES.join(', ')}), channels, cooldown in minutes (default 15)`,
      permission: f.write,
      body: CreateRule,
      response: RuleSchema,
      successStatus: 201,
      async handler({ body, auth, deps }) {
        await assertChannelsExist(deps, auth.orgId, body.channel_ids);
        const now = new Date().toISOString();
        const rule: NotificationRule = { id: newId(), org_id: auth.orgId, ...body, created_at: now, updated_at: now };
        await changeRules(deps, () => saveRule(deps.store, rule));
        return { message: 'Rule created', data: presentRule(rule) };
      },
    }),
    defineRoute({
      ...common,
      method: 'put',
      path: `${f.rules}/:id`,
      summary: 'Change a rule; only the fields given change',
      permission: f.write,
      params: IdParams,
      body: UpdateRule,
      response: RuleSchema,
      errors: [404],
      async handler({ params, body, auth, deps }) {
        const before = await findRule(deps, auth.orgId, params.id);
        if (body.channel_ids) await assertChannelsExist(deps, auth.orgId, body.channel_ids);
        const after: NotificationRule = { ...before, ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)), updated_at: new Date().toISOString() };
        await changeRules(deps, () => saveRule(deps.store, after));
        return { message: 'Rule updated', data: presentRule(after), audit: { before: presentRule(before) } };
      },
    }),
    defineRoute({
      ...common,
      method: 'delete',
      path: `${f.rules}/:id`,
      summary: 'Delete a rule',
      permission: f.write,
      params: IdParams,
      response: z.null(),
      errors: [404],
      async handler({ params, auth, deps }) {
        const rule = await findRule(deps, auth.orgId, params.id);
        await changeRules(deps, () => deleteRule(deps.store, rule));
        return { message: `Rule "${rule.name}" deleted`, data: null, audit: { before: presentRule(rule), after: null } };
      },
    }),
  ];
  if (family === 'A') return routes;
  return [
    ...routes,
    defineRoute({
      ...common,
      method: 'get',
      path: `${f.channels}/:id`,
      summary: 'Get one channel (secrets redacted)',
      permission: f.read,
      params: IdParams,
      response: ChannelSchema,
      errors: [404],
      async handler({ params, auth, deps }) {
        return { message: 'Channel found', data: presentChannel(await findChannel(deps, auth.orgId, params.id)) };
      },
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: `${f.rules}/:id`,
      summary: 'Get one rule',
      permission: f.read,
      params: IdParams,
      response: RuleSchema,
      errors: [404],
      async handler({ params, auth, deps }) {
        return { message: 'Rule found', data: presentRule(await findRule(deps, auth.orgId, params.id)) };
      },
    }),
    defineRoute({
      ...common,
      method: 'get',
      path: '/v1/notifications/history',
      summary: 'Delivery history, newest first: filter by event_type, channel_id, rule_id, status (sent, failed, skipped) and since/until',
      permission: f.read,
      query: HistoryQuery,
      response: listData('history', HistorySchema),
      async handler({ query, auth, deps }) {
        const { entries, total } = await listHistory(deps.store, auth.orgId, { ...query, eventType: query.event_type, channelId: query.channel_id, ruleId: query.rule_id });
        const history = entries.map(({ org_id: _org, ...entry }) => entry);
        return { message: `${total} deliver${total === 1 ? 'y' : 'ies'}`, data: { history, total, limit: query.limit, offset: query.offset } };
      },
    }),
  ];
}

export const notificationRoutes: Route[] = [...operations(FAMILY_A, 'A'), ...operations(FAMILY_B, 'B')];
