// What the assistant panel shows of a session: the API's messages (GET
// /v1/ai/sessions/:id, docs/ai.md) and the streamed steps of a question in
// progress, both as one list of entries: questions, answers, and each tool
// call with its arguments beside its result.

export interface ToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

export interface Message {
  id: string;
  role: 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls: ToolCall[];
  tool_call_id: string | null;
  tool_name: string | null;
  is_error: boolean;
  stop_reason: string | null;
  created_at: string;
}

export interface SessionSummary {
  id: string;
  title: string;
  message_count: number;
  created_at: string;
  updated_at: string;
}

export interface SessionDetail extends SessionSummary {
  messages: Message[];
}

/** A streamed step (`event: assistant` / `event: tool_result`). */
export type StreamedStep =
  | { type: 'assistant'; text: string; tool_calls: ToolCall[] }
  | { type: 'tool_result'; id: string; name: string; ok: boolean; error?: string };

/** How a tool call went: refused is a call the caller's permissions (or the request) did not allow, so it never ran. */
export type ToolStatus = 'running' | 'ok' | 'refused' | 'error';

export type Entry =
  | { kind: 'question'; key: string; text: string }
  | { kind: 'answer'; key: string; text: string; failed: boolean; stopReason: string | null }
  /** `result` is the data the tool answered (or `{error}`); undefined until known. */
  | { kind: 'tool'; key: string; call: ToolCall; status: ToolStatus; result: unknown };

/** The block the model read for a tool call (ai/tools/quote.ts): its status, and the JSON on its last line. */
const TOOL_BLOCK = /^<cairn_tool_result tool="[^"]*" status="(ok|refused|error)">\n([\s\S]*)\n<\/cairn_tool_result>$/;

/** A stored tool result as status and data; text that is not such a block is shown as it is. */
export function readToolResult(message: Message): { status: ToolStatus; result: unknown } {
  const block = TOOL_BLOCK.exec(message.content);
  const fallback: ToolStatus = message.is_error ? 'error' : 'ok';
  if (!block) return { status: fallback, result: message.content };
  const body = block[2]!;
  try {
    // The data is one line of JSON (after the notice that it is untrusted evidence, for a result that ran).
    return { status: block[1] as ToolStatus, result: JSON.parse(body.slice(body.lastIndexOf('\n') + 1)) as unknown };
  } catch {
    return { status: block[1] as ToolStatus, result: body };
  }
}

/** A session's messages as entries, each tool call beside its result. */
export function entriesOf(messages: readonly Message[]): Entry[] {
  const results = new Map(messages.filter((m) => m.role === 'tool' && m.tool_call_id).map((m) => [m.tool_call_id!, m]));
  const shown = new Set<string>();
  const entries: Entry[] = [];
  for (const m of messages) {
    if (m.role === 'user') entries.push({ kind: 'question', key: m.id, text: m.content });
    else if (m.role === 'assistant') {
      if (m.content || m.is_error || m.tool_calls.length === 0) entries.push({ kind: 'answer', key: m.id, text: m.content, failed: m.is_error, stopReason: m.stop_reason });
      for (const call of m.tool_calls) {
        const result = results.get(call.id);
        if (result) shown.add(result.id);
        entries.push({ kind: 'tool', key: `${m.id}/${call.id}`, call, ...(result ? readToolResult(result) : { status: 'error', result: { error: 'no result was stored for this call' } }) });
      }
    } else if (!shown.has(m.id)) {
      // A result whose call is not in the session (should not happen): shown on its own rather than lost.
      entries.push({ kind: 'tool', key: m.id, call: { id: m.tool_call_id ?? m.id, name: m.tool_name ?? 'tool', arguments: null }, ...readToolResult(m) });
    }
  }
  return entries;
}

/** The entries after one streamed step: the model's turn adds its text and its calls (running), a result settles its call. */
export function withStreamedStep(entries: readonly Entry[], step: StreamedStep, key: string): Entry[] {
  if (step.type === 'assistant') {
    const added: Entry[] = step.text ? [{ kind: 'answer', key, text: step.text, failed: false, stopReason: null }] : [];
    return [...entries, ...added, ...step.tool_calls.map((call): Entry => ({ kind: 'tool', key: `${key}/${call.id}`, call, status: 'running', result: undefined }))];
  }
  const status: ToolStatus = step.ok ? 'ok' : step.error?.startsWith('refused:') ? 'refused' : 'error';
  return entries.map((e) => (e.kind === 'tool' && e.call.id === step.id && e.status === 'running' ? { ...e, status, result: step.ok ? undefined : { error: step.error } } : e));
}

export interface Failure {
  status: number;
  code: string;
  message: string;
  details: unknown;
}

/** A refusal or failure in plain words, the API's own message kept. */
export function explain(failure: Failure): string {
  const details = (failure.details ?? {}) as { provider_status?: number | null };
  if (failure.status === 429) return `Too many requests: ${failure.message}. Ask again in a moment.`;
  if (failure.code === 'provider_error' && details.provider_status === 429)
    return `The model's provider is limiting requests (HTTP 429): ${failure.message}. The question is kept in this session; ask again in a while.`;
  if (failure.code === 'provider_error') return `The model's provider failed: ${failure.message}. The question is kept in this session; ask again.`;
  if (failure.code === 'provider_timeout') return `The model did not answer in time: ${failure.message}. The question is kept in this session; ask again.`;
  if (failure.status === 409) return `${failure.message}.`;
  if (failure.status === 400 && /AI configuration/.test(failure.message)) return `The assistant is not available: ${failure.message}.`;
  return failure.message;
}

/** What a stop reason other than "completed" means, for the answer it ends. */
export const STOP_LABELS: Record<string, string> = {
  tool_call_limit: 'stopped at the limit of tool calls',
  token_limit: 'stopped at the token budget',
  time_limit: 'stopped at the time limit',
  output_limit: 'cut at the answer size limit',
  provider_error: 'the model provider failed',
  provider_timeout: 'the model provider did not answer in time',
};
