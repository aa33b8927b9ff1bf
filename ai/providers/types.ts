// What the assistant loop needs of a model provider, in cairn's own terms,
// so the loop is written once and each provider adapts to it.

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments (an object schema). */
  parameters: Record<string, unknown>;
}

export interface ModelToolCall {
  id: string;
  name: string;
  /** Parsed JSON arguments; a string the model sent that is not JSON stays a string (the tool refuses it). */
  arguments: unknown;
}

/** One turn of the conversation as sent to a model. */
export type Turn =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ModelToolCall[] }
  | { role: 'tool'; callId: string; name: string; content: string; isError: boolean };

export interface ModelRequest {
  system: string;
  turns: Turn[];
  tools: ToolSpec[];
  /** Largest answer of this call. */
  maxOutputTokens: number;
  temperature: number | null;
  /** Time this call may take. */
  timeoutMs: number;
}

export interface ModelReply {
  text: string;
  toolCalls: ModelToolCall[];
  /** The provider's own word for why it stopped (stop, tool_calls, length, end_turn, max_tokens, ...). */
  finish: string;
  /** The answer was cut at maxOutputTokens. */
  truncated: boolean;
  usage: { promptTokens: number; completionTokens: number };
}

export interface ChatProvider {
  complete(request: ModelRequest): Promise<ModelReply>;
}

/** A provider that failed or did not answer in time: the API answers 502 or 504 with `message`. */
export class ProviderError extends Error {
  constructor(
    readonly kind: 'upstream' | 'timeout',
    message: string,
    /** The provider's HTTP status, when it answered. */
    readonly status: number | null = null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'ProviderError';
  }
}

/** Arguments as the model sent them: JSON text parsed, anything else kept as it came. */
export function parseArguments(text: string | undefined): unknown {
  if (!text) return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
