// Notification channels, rules and the delivery history. Channel settings
// arrive here already sealed (pipeline/notifier/channels.ts).
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export const CHANNEL_TYPES = ['email', 'slack', 'webhook'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];
export const DELIVERY_STATUSES = ['sent', 'failed', 'skipped'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export interface StoredChannel {
  id: string;
  org_id: string;
  name: string;
  type: ChannelType;
  /** Type-specific settings; secrets sealed. */
  settings: Record<string, unknown>;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface NotificationRule {
  id: string;
  org_id: string;
  name: string;
  description: string;
  event_types: string[];
  channel_ids: string[];
  cooldown_minutes: number;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

export interface HistoryEntry {
  id: string;
  org_id: string;
  at: string;
  event_id: string;
  event_type: string;
  rule_id: string;
  rule_name: string;
  channel_id: string;
  channel_name: string;
  channel_type: string;
  status: DeliveryStatus;
  message: string;
  attempts: number;
}

const ChannelRow = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  type: z.enum(CHANNEL_TYPES),
  settings: z.string(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

const RuleRow = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string(),
  event_types: z.array(z.string()),
  channel_ids: z.array(z.string()),
  cooldown_minutes: z.coerce.number(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

const HistoryRow = z.object({
  id: z.string(),
  org_id: z.string(),
  at: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  rule_id: z.string(),
  rule_name: z.string(),
  channel_id: z.string(),
  channel_name: z.string(),
  channel_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  message: z.string(),
  attempts: z.coerce.number(),
});

const stamps = <T extends { created_at: string; updated_at: string }>(r: T): T => ({ ...r, created_at: toIsoTimestamp(r.created_at), updated_at: toIsoTimestamp(r.updated_at) });

function channelFromRow(row: unknown): StoredChannel {
  const r = ChannelRow.parse(row);
  return stamps({ ...r, settings: JSON.parse(r.settings) as Record<string, unknown> });
}

async function insertChannel(store: Store, channel: StoredChannel, isDeleted: boolean): Promise<void> {
  await store.insert({ table: 'notification_channels', format: 'JSONEachRow', values: [{ ...channel, settings: JSON.stringify(channel.settings), version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }] });
}

export const saveChannel = (store: Store, channel: StoredChannel) => insertChannel(store, channel, false);
export const deleteChannel = (store: Store, channel: StoredChannel) => insertChannel(store, { ...channel, updated_at: new Date().toISOString() }, true);

const CHANNEL_COLUMNS = 'id, org_id, name, type, settings, enabled, created_at, updated_at';

export async function getChannels(store: Store, orgId: string, ids?: string[]): Promise<StoredChannel[]> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (ids) where.push(`id IN ${params.add(ids, 'Array(UUID)')}`);
  return (await queryRows(store, `SELECT ${CHANNEL_COLUMNS} FROM notification_channels FINAL ${whereClause(where)} ORDER BY name, id`, params)).map(channelFromRow);
}

export async function listChannels(store: Store, orgId: string, page: Page): Promise<{ channels: StoredChannel[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, { query: `SELECT ${CHANNEL_COLUMNS} FROM notification_channels FINAL WHERE org_id = ${params.add(orgId, 'String')}`, params, orderBy: 'name, id', page });
  return { channels: rows.map(channelFromRow), total };
}

async function insertRule(store: Store, rule: NotificationRule, isDeleted: boolean): Promise<void> {
  await store.insert({ table: 'notification_rules', format: 'JSONEachRow', values: [{ ...rule, version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }] });
}

export const saveRule = (store: Store, rule: NotificationRule) => insertRule(store, rule, false);
export const deleteRule = (store: Store, rule: NotificationRule) => insertRule(store, { ...rule, updated_at: new Date().toISOString() }, true);

const RULE_COLUMNS = 'id, org_id, name, description, event_types, channel_ids, cooldown_minutes, enabled, created_at, updated_at';
const ruleFromRow = (row: unknown) => stamps(RuleRow.parse(row));

export async function getRules(store: Store, orgId: string, filter: { ids?: string[]; channelId?: string } = {}): Promise<NotificationRule[]> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.ids) where.push(`id IN ${params.add(filter.ids, 'Array(UUID)')}`);
  if (filter.channelId) where.push(`has(channel_ids, ${params.add(filter.channelId, 'UUID')})`);
  return (await queryRows(store, `SELECT ${RULE_COLUMNS} FROM notification_rules FINAL ${whereClause(where)} ORDER BY name, id`, params)).map(ruleFromRow);
}

export async function listRules(store: Store, orgId: string, page: Page): Promise<{ rules: NotificationRule[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, { query: `SELECT ${RULE_COLUMNS} FROM notification_rules FINAL WHERE org_id = ${params.add(orgId, 'String')}`, params, orderBy: 'name, id', page });
  return { rules: rows.map(ruleFromRow), total };
}

export async function recordDelivery(store: Store, entry: HistoryEntry): Promise<void> {
  await store.insert({ table: 'notification_history', format: 'JSONEachRow', values: [{ ...entry, version: nextVersion() }] });
}

export async function getDelivery(store: Store, orgId: string, id: string): Promise<HistoryEntry | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT * EXCEPT version FROM notification_history FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')}`, params);
  if (!rows[0]) return null;
  const r = HistoryRow.parse(rows[0]);
  return { ...r, at: toIsoTimestamp(r.at) };
}

export interface HistoryFilter extends Page {
  eventType?: string;
  channelId?: string;
  ruleId?: string;
  status?: DeliveryStatus;
  since?: string;
  until?: string;
}

export async function listHistory(store: Store, orgId: string, filter: HistoryFilter): Promise<{ entries: HistoryEntry[]; total: number }> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.eventType) where.push(`event_type = ${params.add(filter.eventType, 'String')}`);
  if (filter.channelId) where.push(`channel_id = ${params.add(filter.channelId, 'UUID')}`);
  if (filter.ruleId) where.push(`rule_id = ${params.add(filter.ruleId, 'String')}`);
  if (filter.status) where.push(`status = ${params.add(filter.status, 'String')}`);
  if (filter.since) where.push(`at >= ${params.add(toClickHouseTime(filter.since), 'DateTime64(3)')}`);
  if (filter.until) where.push(`at < ${params.add(toClickHouseTime(filter.until), 'DateTime64(3)')}`);
  const { rows, total } = await queryPage(store, { query: `SELECT * EXCEPT version FROM notification_history FINAL ${whereClause(where)}`, params, orderBy: 'at DESC, id', page: filter });
  return {
    entries: rows.map((row) => {
      const r = HistoryRow.parse(row);
      return { ...r, at: toIsoTimestamp(r.at) };
    }),
    total,
  };
}
