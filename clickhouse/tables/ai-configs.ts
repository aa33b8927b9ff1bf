// The ai_configs table: which model provider the assistant calls and its
// limits. The API key arrives here already sealed (api/routes/ai.ts).
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, whereClause, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export const AI_PROVIDERS = ['openai', 'anthropic'] as const;
export type AiProvider = (typeof AI_PROVIDERS)[number];

export interface AiConfig {
  id: string;
  org_id: string;
  name: string;
  provider: AiProvider;
  /** Empty: the provider's public endpoint. */
  base_url: string;
  model: string;
  /** Sealed; empty when the endpoint needs no key. */
  api_key: string;
  /** null: the provider's default (some models take no temperature). */
  temperature: number | null;
  max_output_tokens: number;
  max_tokens_per_message: number;
  max_tool_calls: number;
  timeout_seconds: number;
  is_default: boolean;
  enabled: boolean;
  created_by: string;
  created_at: string;
  updated_at: string;
}

const Row = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  provider: z.enum(AI_PROVIDERS),
  base_url: z.string(),
  model: z.string(),
  api_key: z.string(),
  temperature: z.number().nullable(),
  max_output_tokens: z.coerce.number(),
  max_tokens_per_message: z.coerce.number(),
  max_tool_calls: z.coerce.number(),
  timeout_seconds: z.coerce.number(),
  is_default: z.boolean(),
  enabled: z.boolean(),
  created_by: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

const COLUMNS = Object.keys(Row.shape).join(', ');

function fromRow(row: unknown): AiConfig {
  const r = Row.parse(row);
  return { ...r, created_at: toIsoTimestamp(r.created_at), updated_at: toIsoTimestamp(r.updated_at) };
}

async function insertVersions(store: Store, configs: AiConfig[], isDeleted: boolean): Promise<void> {
  if (configs.length === 0) return;
  await store.insert({
    table: 'ai_configs',
    format: 'JSONEachRow',
    values: configs.map((c) => ({ ...c, created_at: toClickHouseTime(c.created_at), updated_at: toClickHouseTime(c.updated_at), version: nextVersion(), is_deleted: isDeleted ? 1 : 0 })),
  });
}

export const saveAiConfigs = (store: Store, configs: AiConfig[]) => insertVersions(store, configs, false);
export const deleteAiConfig = (store: Store, config: AiConfig) => insertVersions(store, [{ ...config, updated_at: new Date().toISOString() }], true);

export interface AiConfigFilter {
  ids?: string[];
  isDefault?: boolean;
}

function select(orgId: string, filter: AiConfigFilter, params: SqlParams): string {
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.ids) where.push(`id IN ${params.add(filter.ids, 'Array(UUID)')}`);
  if (filter.isDefault !== undefined) where.push(`is_default = ${params.add(filter.isDefault, 'Bool')}`);
  return `SELECT ${COLUMNS} FROM ai_configs FINAL ${whereClause(where)}`;
}

/** Newest change first, so when two writers raced to set the default the latest wins (getDefaultAiConfig). */
export async function getAiConfigs(store: Store, orgId: string, filter: AiConfigFilter): Promise<AiConfig[]> {
  const params = new SqlParams();
  return (await queryRows(store, `${select(orgId, filter, params)} ORDER BY updated_at DESC, id`, params)).map(fromRow);
}

export async function getAiConfig(store: Store, orgId: string, id: string): Promise<AiConfig | null> {
  return (await getAiConfigs(store, orgId, { ids: [id] }))[0] ?? null;
}

export async function getDefaultAiConfig(store: Store, orgId: string): Promise<AiConfig | null> {
  return (await getAiConfigs(store, orgId, { isDefault: true }))[0] ?? null;
}

/** By name, then id, so pages are stable. */
export async function listAiConfigs(store: Store, orgId: string, page: Page): Promise<{ configs: AiConfig[]; total: number }> {
  const params = new SqlParams();
  const { rows, total } = await queryPage(store, { query: select(orgId, {}, params), params, orderBy: 'name, id', page });
  return { configs: rows.map(fromRow), total };
}
