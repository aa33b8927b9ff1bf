// Which tools a caller is offered, and running one call: the same rules for
// the assistant loop and the MCP server. A tool is offered only to a caller
// holding its permission; a tool that changes data only when the request
// also allows changes explicitly. A call to anything not offered is refused
// with the reason, never run.
import { z } from 'zod';
import type { Logger } from '../../lib/logger.js';
import { aiMetrics } from '../metrics.js';
import type { ToolSpec } from '../providers/types.js';
import { TOOLS } from './catalogue.js';
import { boundStrings, type ToolOutcome } from './quote.js';
import { ToolError, type Caller, type Tool, type ToolContext, type ToolResult } from './types.js';

export interface OfferRules {
  /** The request asked, explicitly, that tools which change data may be used. */
  allowWrites: boolean;
  /** Only these (the MCP server's configuration); absent: all of them. */
  exposed?: readonly string[];
}

export function offeredTools(caller: Caller, rules: OfferRules, catalogue: readonly Tool[] = TOOLS): Tool[] {
  return catalogue.filter((tool) => refusal(tool, caller, rules) === null);
}

/** Why `name` may not be called by this caller under these rules ("refused: ..."), or null when it may. */
export function whyRefused(name: string, caller: Caller, rules: OfferRules, catalogue: readonly Tool[] = TOOLS): string | null {
  const tool = catalogue.find((t) => t.name === name);
  if (!tool) return `refused: there is no tool named "${name.slice(0, 100)}"`;
  const reason = refusal(tool, caller, rules);
  return reason ? `refused: ${reason}` : null;
}

function refusal(tool: Tool, caller: Caller, rules: OfferRules): string | null {
  if (rules.exposed && !rules.exposed.includes(tool.name)) return `${tool.name} is not exposed by this server's configuration`;
  if (!caller.permissions.has(tool.permission)) return `${tool.name} needs the "${tool.permission}" permission, which this caller does not have`;
  if (tool.effect === 'write' && !rules.allowWrites) return `${tool.name} changes data, and this request did not allow changes`;
  return null;
}

/** What a model is told of the tools: name, description and the JSON Schema of the arguments. */
export function toolSpecs(tools: readonly Tool[]): ToolSpec[] {
  return tools.map((tool) => {
    const { $schema: _schema, ...parameters } = z.toJSONSchema(tool.input, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    return { name: tool.name, description: tool.description, parameters };
  });
}

export interface ToolCallRecord {
  tool: string;
  arguments: unknown;
  outcome: ToolOutcome;
}

/** Runs one call if the caller may make it; every outcome is counted and handed to `onCall` (the audit log). */
export async function callTool(
  ctx: ToolContext,
  request: { name: string; arguments: unknown; surface: 'assistant' | 'mcp'; rules: OfferRules; logger: Logger; onCall?: (record: ToolCallRecord) => Promise<void> },
  catalogue: readonly Tool[] = TOOLS,
): Promise<ToolOutcome> {
  const outcome = await outcomeOf(ctx, request, catalogue);
  countToolCall(request.surface, request.name, ctx.caller, outcome, catalogue);
  await request.onCall?.({ tool: request.name, arguments: request.arguments, outcome });
  return outcome;
}

/** Counts a call for the accounting; a name outside the catalogue counts as "unknown" (the model or client chose it: no label per invented name). */
export function countToolCall(surface: 'assistant' | 'mcp', name: string, caller: Caller, outcome: ToolOutcome, catalogue: readonly Tool[] = TOOLS): void {
  const tool = catalogue.some((t) => t.name === name) ? name : 'unknown';
  aiMetrics.toolCalls.inc({ surface, tool, user: caller.subject, outcome: outcome.ok ? 'ok' : outcome.refused ? 'refused' : 'error' });
}

async function outcomeOf(ctx: ToolContext, request: { name: string; arguments: unknown; rules: OfferRules; logger: Logger }, catalogue: readonly Tool[]): Promise<ToolOutcome> {
  const refused = whyRefused(request.name, ctx.caller, request.rules, catalogue);
  const tool = catalogue.find((t) => t.name === request.name);
  if (refused || !tool) return { ok: false, refused: true, error: refused ?? 'refused' };
  const input = tool.input.safeParse(request.arguments ?? {});
  if (!input.success) {
    const issue = input.error.issues[0]!;
    return { ok: false, refused: false, error: `invalid arguments: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}` };
  }
  try {
    return { ok: true, result: boundStrings(await tool.run(ctx, input.data)) as ToolResult };
  } catch (err) {
    if (err instanceof ToolError) return { ok: false, refused: false, error: err.message };
    // The store failing is cairn's problem, not something for the model to reason about: log it, tell it briefly.
    request.logger.error({ err, tool: tool.name }, 'AI tool failed');
    return { ok: false, refused: false, error: 'the tool failed inside cairn; the error is in cairn\'s log' };
  }
}
