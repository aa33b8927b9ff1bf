// OpenAI's chat completions API through its SDK: api.openai.com, or any
// server that speaks it (vLLM, Ollama, LM Studio, llama.cpp) at base_url.
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError } from 'openai';
import type { ChatCompletionCreateParamsNonStreaming, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { toProviderError } from './errors.js';
import { parseArguments, type ChatProvider, type ModelReply, type ModelRequest, type Turn } from './types.js';

const OPENAI_BASE_URL = 'https://api.openai.com/v1';

export interface ProviderSettings {
  baseUrl: string;
  model: string;
  /** Opened; empty when the endpoint needs none. */
  apiKey: string;
  fetch: typeof fetch;
}

function toMessages(system: string, turns: Turn[]): ChatCompletionMessageParam[] {
  const messages: ChatCompletionMessageParam[] = [{ role: 'system', content: system }];
  for (const turn of turns) {
    if (turn.role === 'user') messages.push({ role: 'user', content: turn.text });
    else if (turn.role === 'tool') messages.push({ role: 'tool', tool_call_id: turn.callId, content: turn.content });
    else
      messages.push({
        role: 'assistant',
        content: turn.text || null,
        ...(turn.toolCalls.length
          ? { tool_calls: turn.toolCalls.map((c) => ({ id: c.id, type: 'function' as const, function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments) } })) }
          : {}),
      });
  }
  return messages;
}

export function openAiProvider(settings: ProviderSettings): ChatProvider {
  const baseURL = settings.baseUrl || OPENAI_BASE_URL;
  const client = new OpenAI({
    // Given explicitly so that OPENAI_* variables of the process never reach a user's endpoint. A keyless local server gets a placeholder.
    apiKey: settings.apiKey || 'no-key',
    baseURL,
    adminAPIKey: null,
    organization: null,
    project: null,
    webhookSecret: null,
    fetch: settings.fetch,
    // The loop bounds time per message; a retry would spend it without the caller knowing.
    maxRetries: 0,
  });
  // OpenAI's own API refuses max_tokens for its newer models; the servers that mimic it know max_tokens best.
  const officialApi = new URL(baseURL).hostname === 'api.openai.com';
  return {
    async complete(request: ModelRequest): Promise<ModelReply> {
      const body: ChatCompletionCreateParamsNonStreaming = {
        model: settings.model,
        messages: toMessages(request.system, request.turns),
        ...(request.tools.length ? { tools: request.tools.map((t) => ({ type: 'function' as const, function: { name: t.name, description: t.description, parameters: t.parameters } })) } : {}),
        ...(request.temperature === null ? {} : { temperature: request.temperature }),
        ...(officialApi ? { max_completion_tokens: request.maxOutputTokens } : { max_tokens: request.maxOutputTokens }),
      };
      let completion: OpenAI.Chat.Completions.ChatCompletion;
      try {
        completion = await client.chat.completions.create(body, { timeout: request.timeoutMs });
      } catch (err) {
        throw toProviderError(err, { APIError, APIConnectionError, APIConnectionTimeoutError }, 'openai', request.timeoutMs);
      }
      const choice = completion.choices[0];
      const message = choice?.message;
      const toolCalls = (message?.tool_calls ?? []).flatMap((call) => (call.type === 'function' ? [{ id: call.id, name: call.function.name, arguments: parseArguments(call.function.arguments) }] : []));
      const finish = choice?.finish_reason ?? 'unknown';
      return {
        text: message?.content ?? '',
        toolCalls,
        finish,
        truncated: finish === 'length',
        usage: { promptTokens: completion.usage?.prompt_tokens ?? 0, completionTokens: completion.usage?.completion_tokens ?? 0 },
      };
    },
  };
}
