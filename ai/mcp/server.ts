// cairn as a Model Context Protocol server (the official SDK): the tools of
// the catalogue the caller may use, and its incidents as resources. One
// server per HTTP request (stateless streamable HTTP), made for that caller,
// so what is listed and callable always follows the caller's permissions
// and the server's configuration, on any API process.
import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '../../lib/logger.js';
import { VERSION } from '../../lib/version.js';
import { boundStrings, quoteForModel } from '../tools/quote.js';
import { callTool, checkCall, type OfferRules, type ToolCallRecord } from '../tools/run.js';
import type { Tool, ToolContext } from '../tools/types.js';

export interface McpServerInput {
  ctx: ToolContext;
  /** The tools offered to this caller. */
  tools: readonly Tool[];
  rules: OfferRules;
  logger: Logger;
  onToolCall: (record: ToolCallRecord) => Promise<void>;
}

/** Incidents listed as resources: the newest this many. */
const LISTED_INCIDENTS = 100;
const INCIDENT_URI = 'cairn://incidents/{id}';

export function buildMcpServer(input: McpServerInput): McpServer {
  const { ctx } = input;
  const server = new McpServer({ name: 'cairn', version: VERSION }, { capabilities: { tools: {}, resources: {} } });
  for (const tool of input.tools) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: { title: tool.title, readOnlyHint: tool.effect === 'read', openWorldHint: false } },
      async (args: unknown): Promise<CallToolResult> => {
        const outcome = await callTool(ctx, { name: tool.name, arguments: args, surface: 'mcp', rules: input.rules, logger: input.logger, onCall: input.onToolCall });
        if (!outcome.ok) return { content: [{ type: 'text', text: outcome.error }], isError: true };
        // The text is what an agent's model reads (quoted as data, as the assistant's is); structuredContent is the same rows as JSON.
        return { content: [{ type: 'text', text: quoteForModel(tool.name, outcome) }], structuredContent: outcome.result };
      },
    );
  }
  if (ctx.caller.permissions.has('incidents:read')) {
    server.registerResource(
      'incident',
      new ResourceTemplate(INCIDENT_URI, {
        list: async () => {
          const { incidents } = await ctx.reads.listIncidents(ctx.caller.orgId, { limit: LISTED_INCIDENTS, offset: 0 });
          return { resources: incidents.map((i) => ({ uri: `cairn://incidents/${i.id}`, name: i.title, title: `${i.severity} · ${i.status_name} · ${i.title}`, mimeType: 'application/json' })) };
        },
      }),
      { title: 'Incident', description: 'An incident with its nodes, observations and status history (as GET /api/v1/incidents/{id})', mimeType: 'application/json' },
      async (uri, variables) => {
        const id = String(variables.id ?? '');
        const incident = /^[0-9a-f-]{36}$/i.test(id) ? await ctx.reads.incident(ctx.caller.orgId, id) : null;
        if (!incident) throw new Error(`no incident at ${uri.href}`);
        return { contents: [{ uri: uri.href, mimeType: 'application/json', text: JSON.stringify(boundStrings(incident)) }] };
      },
    );
  }
  return server;
}

/**
 * Tool calls in a JSON-RPC request body that never reach a tool's handler:
 * a tool this caller is not offered, or arguments the SDK refuses before the
 * handler runs. They are recorded too, so every call is in the audit log.
 */
export function callsRefusedBeforeHandler(body: unknown, input: Pick<McpServerInput, 'ctx' | 'rules'>): ToolCallRecord[] {
  const messages = Array.isArray(body) ? body : [body];
  const records: ToolCallRecord[] = [];
  for (const message of messages) {
    const m = message as { method?: unknown; params?: { name?: unknown; arguments?: unknown } } | null;
    if (m?.method !== 'tools/call' || typeof m.params?.name !== 'string') continue;
    const checked = checkCall(m.params.name, m.params.arguments, input.ctx.caller, input.rules);
    if ('outcome' in checked) records.push({ tool: m.params.name, arguments: m.params.arguments, outcome: checked.outcome });
  }
  return records;
}
