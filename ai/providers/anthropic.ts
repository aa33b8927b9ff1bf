// Anthropic's Messages API through its SDK.
import Anthropic, { APIConnectionError, APIConnectionTimeoutError, APIError } from '@anthropic-ai/sdk';
import type { MessageParam, ContentBlockParam, MessageCreateParamsNonStreaming } from '@anthropic-ai/sdk/resources/messages';
import { toProviderError } from './errors.js';
import type { ProviderSettings } from './openai.js';
import type { ChatProvider, ModelReply, ModelRequest, Turn } from './types.js';

const ANTHROPIC_BASE_URL = 'https://api.anthropic.com';

/** Anthropic wants user and assistant turns to alternate, and tool results inside a user turn: consecutive blocks of one role are merged. */
function toMessages(turns: Turn[]): MessageParam[] {
  const messages: { role: 'user' | 'assistant'; content: ContentBlockParam[] }[] = [];
  const push = (role: 'user' | 'assistant', blocks: ContentBlockParam[]) => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    if (last?.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };
  for (const turn of turns) {
    if (turn.role === 'user') push('user', [{ type: 'text', text: turn.text }]);
    else if (turn.role === 'tool') push('user', [{ type: 'tool_result', tool_use_id: turn.callId, content: turn.content, is_error: turn.isError }]);
    else
      push('assistant', [
        ...(turn.text ? [{ type: 'text' as const, text: turn.text }] : []),
        ...turn.toolCalls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: c.arguments })),
      ]);
  }
  return messages;
}

export function anthropicProvider(settings: ProviderSettings): ChatProvider {
  const client = new Anthropic({
    // Given explicitly, and never empty: without a key the SDK would look for credentials in the process's
    // ANTHROPIC_* variables and configuration files, and send them to the user's endpoint.
    apiKey: settings.apiKey || 'no-key',
    baseURL: settings.baseUrl || ANTHROPIC_BASE_URL,
    fetch: settings.fetch,
    maxRetries: 0,
  });
  return {
    async complete(request: ModelRequest): Promise<ModelReply> {
      const body: MessageCreateParamsNonStreaming = {
        model: settings.model,
        system: request.system,
        messages: toMessages(request.turns),
        max_tokens: request.maxOutputTokens,
        ...(request.tools.length ? { tools: request.tools.map((t) => ({ name: t.name, description: t.description, input_schema: { ...t.parameters, type: 'object' as const } })) } : {}),
        ...(request.temperature === null ? {} : { temperature: Math.min(request.temperature, 1) }),
      };
      let message: Anthropic.Messages.Message;
      try {
        message = await client.messages.create(body, { timeout: request.timeoutMs });
      } catch (err) {
        throw toProviderError(err, { APIError, APIConnectionError, APIConnectionTimeoutError }, 'anthropic', request.timeoutMs);
      }
      const text = message.content.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
      const toolCalls = message.content.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, arguments: b.input }] : []));
      const finish = message.stop_reason ?? 'unknown';
      return { text, toolCalls, finish, truncated: finish === 'max_tokens', usage: { promptTokens: message.usage.input_tokens, completionTokens: message.usage.output_tokens } };
    },
  };
}
