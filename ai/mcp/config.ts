// The MCP server's configuration per organization (GET/PUT
// /v1/ai/mcp/config), kept in the settings table. Off until an admin turns
// it on: an agent reading the organization's data is a choice to make.
import { z } from 'zod';
import type { Store } from '../../clickhouse/client.js';
import { readSetting, writeSetting } from '../../clickhouse/tables/settings.js';
import { TOOLS } from '../tools/catalogue.js';

const SETTING = 'ai.mcp';

export const TOOL_NAMES = TOOLS.map((t) => t.name);

/** An origin as browsers send it: scheme, host and port, nothing else. */
export const Origin = z
  .string()
  .max(300)
  .refine((v) => {
    try {
      const url = new URL(v);
      return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === v;
    } catch {
      return false;
    }
  }, 'each allowed origin must be scheme://host[:port], e.g. https://agent.example.com');

export const McpConfig = z.object({
  enabled: z.boolean(),
  /** null: every tool of the catalogue, including ones added by later versions. */
  exposed_tools: z.array(z.string()).nullable(),
  /** Requests per minute per API key (or per token subject). */
  rate_limit_per_minute: z.number().int().min(1).max(100_000),
  /** Browser origins allowed besides cairn's own; requests without an Origin header (agents, scripts) are not affected. */
  allowed_origins: z.array(Origin).max(50),
});
export type McpConfig = z.infer<typeof McpConfig>;

const DEFAULT_MCP_CONFIG: McpConfig = { enabled: false, exposed_tools: null, rate_limit_per_minute: 60, allowed_origins: [] };

export interface StoredMcpConfig extends McpConfig {
  updated_at: string | null;
  updated_by: string | null;
}

export async function loadMcpConfig(store: Store, orgId: string): Promise<StoredMcpConfig> {
  const stored = await readSetting(store, orgId, SETTING);
  // Read back loosely: a field a later version added keeps its default.
  const value = stored ? McpConfig.partial().safeParse(stored.value) : null;
  return { ...DEFAULT_MCP_CONFIG, ...(value?.success ? value.data : {}), updated_at: stored?.updated_at ?? null, updated_by: stored?.updated_by ?? null };
}

export async function saveMcpConfig(store: Store, orgId: string, config: McpConfig, by: string): Promise<void> {
  await writeSetting(store, orgId, SETTING, config, by);
}
