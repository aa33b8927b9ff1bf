// The assistant loop for one question: the model answers or asks for tool
// calls; cairn runs each call with the caller's permissions and hands the
// result back as quoted data; until the model answers, or a bound stops it
// (tool calls, tokens, time), saying which. Every step is returned, to be
// stored in the session, also when the provider fails part way.
import type { Logger } from '../../lib/logger.js';
import { aiMetrics } from '../metrics.js';
import { ProviderError, type ChatProvider, type ModelToolCall, type Turn } from '../providers/types.js';
import { quoteForModel } from '../tools/quote.js';
import { callTool, toolSpecs, type OfferRules, type ToolCallRecord } from '../tools/run.js';
import type { Tool, ToolContext } from '../tools/types.js';
import { systemPrompt } from './prompt.js';

export const STOP_REASONS = ['completed', 'tool_call_limit', 'token_limit', 'time_limit', 'output_limit', 'provider_error', 'provider_timeout'] as const;
export type StopReason = (typeof STOP_REASONS)[number];

export interface LoopLimits {
  /** Tool calls run for one question; calls past it are answered "not run". */
  maxToolCalls: number;
  /** Prompt and completion tokens of all the model calls for one question. */
  maxTokens: number;
  /** Wall time for one question, model calls and tools together. */
  timeoutMs: number;
  /** Largest answer of one model call. */
  maxOutputTokens: number;
  temperature: number | null;
}

/** One step to store: the model's turn, or a tool's result. */
export type LoopStep =
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[]; promptTokens: number; completionTokens: number }
  | { role: 'tool'; callId: string; name: string; result: string; isError: boolean };

export type LoopEvent =
  | { type: 'assistant'; text: string; tool_calls: ModelToolCall[] }
  | { type: 'tool_result'; id: string; name: string; ok: boolean; error?: string };

export interface LoopResult {
  steps: LoopStep[];
  /** The model's last words (empty when it was stopped before it answered). */
  answer: string;
  stopReason: StopReason;
  /** What the caller is told when the loop stopped before the model answered. */
  stopNote: string | null;
  error: ProviderError | null;
  usage: { modelCalls: number; promptTokens: number; completionTokens: number; toolCalls: number };
}

export interface LoopInput {
  provider: ChatProvider;
  history: Turn[];
  question: string;
  tools: readonly Tool[];
  rules: OfferRules;
  ctx: ToolContext;
  limits: LoopLimits;
  logger: Logger;
  /** Labels for the accounting. */
  configId: string;
  onEvent?: (event: LoopEvent) => void;
  onToolCall?: (record: ToolCallRecord) => Promise<void>;
}

const STOP_NOTES: Record<Exclude<StopReason, 'completed' | 'provider_error' | 'provider_timeout'>, (limits: LoopLimits) => string> = {
  tool_call_limit: (l) => `Stopped early: the limit of ${l.maxToolCalls} tool calls per message was reached before the model answered.`,
  token_limit: (l) => `Stopped early: the budget of ${l.maxTokens} tokens per message was spent before the model answered.`,
  time_limit: (l) => `Stopped early: the ${Math.round(l.timeoutMs / 1000)} s allowed per message ran out before the model answered.`,
  output_limit: (l) => `The answer was cut at the limit of ${l.maxOutputTokens} output tokens per model call.`,
};

export async function runAssistantLoop(input: LoopInput): Promise<LoopResult> {
  const { provider, limits, ctx } = input;
  const labels = { config_id: input.configId, user: ctx.caller.subject };
  const deadline = Date.now() + limits.timeoutMs;
  const tools = toolSpecs(input.tools);
  const system = systemPrompt(new Date(), input.tools.map((t) => t.name));
  const turns: Turn[] = [...input.history, { role: 'user', text: input.question }];
  const steps: LoopStep[] = [];
  const usage = { modelCalls: 0, promptTokens: 0, completionTokens: 0, toolCalls: 0 };
  const finish = (stopReason: StopReason, answer: string, error: ProviderError | null = null): LoopResult => {
    aiMetrics.messages.inc({ ...labels, stop_reason: stopReason });
    const note = stopReason === 'completed' || error ? null : STOP_NOTES[stopReason as keyof typeof STOP_NOTES](limits);
    return { steps, answer, stopReason, stopNote: note, error, usage };
  };

  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return finish('time_limit', '');
    let reply;
    try {
      reply = await provider.complete({ system, turns, tools, maxOutputTokens: limits.maxOutputTokens, temperature: limits.temperature, timeoutMs: remaining });
    } catch (err) {
      if (!(err instanceof ProviderError)) throw err;
      aiMetrics.modelCalls.inc({ ...labels, outcome: err.kind === 'timeout' ? 'timeout' : 'error' });
      return finish(err.kind === 'timeout' ? 'provider_timeout' : 'provider_error', '', err);
    }
    usage.modelCalls++;
    usage.promptTokens += reply.usage.promptTokens;
    usage.completionTokens += reply.usage.completionTokens;
    aiMetrics.modelCalls.inc({ ...labels, outcome: 'ok' });
    aiMetrics.tokens.inc({ ...labels, kind: 'prompt' }, reply.usage.promptTokens);
    aiMetrics.tokens.inc({ ...labels, kind: 'completion' }, reply.usage.completionTokens);
    steps.push({ role: 'assistant', text: reply.text, toolCalls: reply.toolCalls, promptTokens: reply.usage.promptTokens, completionTokens: reply.usage.completionTokens });
    turns.push({ role: 'assistant', text: reply.text, toolCalls: reply.toolCalls });
    input.onEvent?.({ type: 'assistant', text: reply.text, tool_calls: reply.toolCalls });
    if (reply.toolCalls.length === 0) return finish(reply.truncated ? 'output_limit' : 'completed', reply.text);

    // Every call the model asked for gets a result, run or not: providers refuse a conversation with an unanswered call.
    let stop: StopReason | null = usage.promptTokens + usage.completionTokens >= limits.maxTokens ? 'token_limit' : null;
    for (const call of reply.toolCalls) {
      if (!stop && usage.toolCalls >= limits.maxToolCalls) stop = 'tool_call_limit';
      if (!stop && Date.now() >= deadline) stop = 'time_limit';
      let result: string;
      let isError: boolean;
      if (stop) {
        result = quoteForModel(call.name, { ok: false, refused: false, error: `not run: ${stop.replace(/_/g, ' ')} reached` });
        isError = true;
      } else {
        usage.toolCalls++;
        const outcome = await callTool(ctx, { name: call.name, arguments: call.arguments, surface: 'assistant', rules: input.rules, logger: input.logger, onCall: input.onToolCall });
        result = quoteForModel(call.name, outcome);
        isError = !outcome.ok;
        input.onEvent?.({ type: 'tool_result', id: call.id, name: call.name, ok: outcome.ok, ...(outcome.ok ? {} : { error: outcome.error }) });
      }
      steps.push({ role: 'tool', callId: call.id, name: call.name, result, isError });
      turns.push({ role: 'tool', callId: call.id, name: call.name, content: result, isError });
    }
    if (stop) return finish(stop, reply.text);
  }
}
