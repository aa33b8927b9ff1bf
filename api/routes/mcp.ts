// The MCP server (docs/ai.md): Model Context Protocol over streamable HTTP at
// /api/v1/mcp, for agents holding a cairn bearer token or API key. Stateless:
// each POST carries its JSON-RPC message(s) and gets the answer as JSON, so
// any API process answers any request. What is listed and callable follows
// the caller's permissions and the organization's MCP configuration; every
// tool call is in the audit log.
import { z } from 'zod';
import { loadMcpConfig } from '../../ai/mcp/config.js';
import { offeredTools, recordCall } from '../../ai/tools/run.js';
import { apiReads } from '../ai-reads.js';
import type { AuthContext } from '../auth.js';
import type { ApiDeps } from '../deps.js';
import { HttpError } from '../http-error.js';
import { defineRoute, type Route } from '../route.js';
import { auditToolCall } from './ai.js';

const MCP_PATH = '/v1/mcp';
const MINUTE_MS = 60_000;

/** A fixed window per minute and per API key (or token subject), in hot state so every API process counts together. */
async function enforceRateLimit(deps: ApiDeps, auth: AuthContext, perMinute: number): Promise<void> {
  const now = Date.now();
  const window = Math.floor(now / MINUTE_MS);
  const count = await deps.state.increment(`mcp-rate:${auth.orgId}:${auth.keyId ?? auth.subject}:${window}`, 1, 2 * MINUTE_MS);
  if (count > perMinute) {
    const retryAfter = Math.max(1, Math.ceil(((window + 1) * MINUTE_MS - now) / 1000));
    throw new HttpError(429, 'too_many_requests', `MCP rate limit of ${perMinute} requests per minute reached for this ${auth.keyId ? 'API key' : 'caller'}; retry in ${retryAfter} s`, { limit: perMinute, retry_after: retryAfter }, { 'Retry-After': String(retryAfter) });
  }
}

/** Describe the bytes that came in; the transport is handed the parsed body instead. */
const BODY_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection']);

function requestHeaders(raw: NodeJS.Dict<string | string[]>): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw)) {
    if (BODY_HEADERS.has(name)) continue;
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, v);
  }
  return headers;
}

export const mcpRoutes: Route[] = [
  defineRoute({
    method: 'post',
    path: MCP_PATH,
    summary: 'Model Context Protocol (streamable HTTP, stateless, JSON answers): the AI tools and incident resources, within the caller\'s permissions',
    description:
      'The body is a JSON-RPC 2.0 message or batch as the MCP specification says; send Accept: application/json, text/event-stream. Tools are listed and callable only with their permission and when the MCP configuration exposes them. 404 while the server is disabled (PUT /api/v1/ai/mcp/config), 429 past the per-key rate limit, 403 for a browser Origin not allowed. GET (an event stream for server-initiated messages) is 405: the server keeps no sessions.',
    tag: 'AI',
    permission: 'ai:read',
    // Each tool call is recorded (ai.tool_call); the protocol's own traffic (initialize, lists) changes nothing.
    audit: false,
    body: z.unknown().describe('JSON-RPC 2.0 message(s)'),
    response: z.unknown().describe('the JSON-RPC answer, or nothing (202) for notifications'),
    envelope: false,
    errors: [404, 406, 415, 429],
    async handler({ body, auth, deps, ctx }) {
      const config = await loadMcpConfig(deps.store, auth.orgId);
      if (!config.enabled) throw new HttpError(404, 'not_found', 'the MCP server is disabled for this organization; an admin enables it with PUT /api/v1/ai/mcp/config');
      // The MCP SDK loads on the first request of an enabled server, not in every API process at start (the server is off by default).
      const [{ WebStandardStreamableHTTPServerTransport }, { buildMcpServer, callsRefusedBeforeHandler }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js'),
        import('../../ai/mcp/server.js'),
      ]);
      await enforceRateLimit(deps, auth, config.rate_limit_per_minute);
      const rules = { allowWrites: false, ...(config.exposed_tools ? { exposed: config.exposed_tools } : {}) };
      const input = { ctx: { caller: auth, store: deps.store, scopes: deps.config.graph, reads: apiReads(deps) }, tools: offeredTools(auth, rules), rules, logger: deps.logger };
      const audit = (record: Parameters<typeof auditToolCall>[3]) => auditToolCall(deps, ctx, 'mcp', record, auth.keyId ? { key_id: auth.keyId } : {});
      for (const record of callsRefusedBeforeHandler(body, input)) await recordCall('mcp', auth, record, audit);
      const server = buildMcpServer({ ...input, onToolCall: audit });
      const transport = new WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        // cairn's own origin and the configured ones; requests without an Origin header (agents, scripts) pass.
        enableDnsRebindingProtection: true,
        allowedOrigins: [`${ctx.protocol}://${ctx.host}`, new URL(deps.config.identity.publicUrl).origin, ...config.allowed_origins],
      });
      await server.connect(transport);
      try {
        const request = new Request(new URL(ctx.originalUrl, `${ctx.protocol}://${ctx.host}`), { method: 'POST', headers: requestHeaders(ctx.headers), body: JSON.stringify(body ?? null) });
        const response = await transport.handleRequest(request, { parsedBody: body });
        const text = await response.text();
        return { message: 'MCP', data: null, raw: { status: response.status, headers: Object.fromEntries(response.headers), body: text || null } };
      } finally {
        await server.close();
      }
    },
  }),
];
