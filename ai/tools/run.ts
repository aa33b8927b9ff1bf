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

export function offeredTools(caller: Caller, rules: OfferRules): Tool[] {
  return TOOLS.filter((tool) => refusal(tool, caller, rules) === null);
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

/**
 * A call checked before it runs: the tool and its parsed arguments, or the
 * outcome of a call that may not run (refused, or arguments that do not
 * parse). The assistant loop and the MCP server check alike.
 */
export function checkCall(name: string, args: unknown, caller: Caller, rules: OfferRules): { tool: Tool; input: Parameters<Tool['run']>[1] } | { outcome: ToolOutcome } {
  const tool = TOOLS.find((t) => t.name === name);
  const refused = tool ? refusal(tool, caller, rules) : `there is no tool named "${name.slice(0, 100)}"`;
  if (!tool || refused) return { outcome: { ok: false, refused: true, error: `refused: ${refused}` } };
  const input = tool.input.safeParse(args ?? {});
  if (input.success) return { tool, input: input.data };
  const issue = input.error.issues[0]!;
  return { outcome: { ok: false, refused: false, error: `invalid arguments: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}` } };
}

/** Runs one call if the caller may make it; every outcome is recorded (recordCall). */
export async function callTool(
  ctx: ToolContext,
  request: { name: string; arguments: unknown; surface: 'assistant' | 'mcp'; rules: OfferRules; logger: Logger; onCall?: (record: ToolCallRecord) => Promise<void> },
): Promise<ToolOutcome> {
  const outcome = await outcomeOf(ctx, request);
  await recordCall(request.surface, ctx.caller, { tool: request.name, arguments: request.arguments, outcome }, request.onCall);
  return outcome;
}

/** Counts a call for the accounting, then hands it to `onCall` (the audit log). */
export async function recordCall(surface: 'assistant' | 'mcp', caller: Caller, record: ToolCallRecord, onCall?: (record: ToolCallRecord) => Promise<void>): Promise<void> {
  // A name outside the catalogue counts as "unknown" (the model or client chose it: no label per invented name).
  const tool = TOOLS.some((t) => t.name === record.tool) ? record.tool : 'unknown';
  const { outcome } = record;
  aiMetrics.toolCalls.inc({ surface, tool, user: caller.subject, outcome: outcome.ok ? 'ok' : outcome.refused ? 'refused' : 'error' });
  await onCall?.(record);
}

async function outcomeOf(ctx: ToolContext, request: { name: string; arguments: unknown; rules: OfferRules; logger: Logger }): Promise<ToolOutcome> {
  const checked = checkCall(request.name, request.arguments, ctx.caller, request.rules);
  if ('outcome' in checked) return checked.outcome;
  const { tool, input } = checked;
  try {
    return { ok: true, result: boundStrings(await tool.run(ctx, input)) as ToolResult };
  } catch (err) {
    if (err instanceof ToolError) return { ok: false, refused: false, error: err.message };
    // The store failing is cairn's problem, not something for the model to reason about: log it, tell it briefly.
    request.logger.error({ err, tool: tool.name }, 'AI tool failed');
    return { ok: false, refused: false, error: 'the tool failed inside cairn; the error is in cairn\'s log' };
  }
}
