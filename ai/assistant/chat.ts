// One question in a chat session: the history as the model sees it, the
// provider the session's configuration names, the loop, and every step
// stored in the session (the question first, so a crash part way loses
// nothing the user typed).
//
// Questions to one session are answered one at a time, under a lock in hot
// state, so across API processes too: a second question waits for the
// first's answer, reads it as history, and numbers its messages after it.
// Two at once would both have read the same history and given their
// messages the same positions.
import type { Store } from '../../clickhouse/client.js';
import type { AiConfig } from '../../clickhouse/tables/ai-configs.js';
import { appendAiMessages, getAiSession, saveAiSession, sessionMessages, type AiMessage, type AiSession } from '../../clickhouse/tables/ai-sessions.js';
import type { GraphScopes } from '../../config/env.js';
import { newId } from '../../lib/ids.js';
import type { Logger } from '../../lib/logger.js';
import type { OutboundClient } from '../../lib/outbound/client.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { LockBusy, withLock } from '../../pipeline/state/lock.js';
import type { HotState } from '../../pipeline/state/types.js';
import { createProvider } from '../providers/index.js';
import type { ProviderError, Turn } from '../providers/types.js';
import { offeredTools, type ToolCallRecord } from '../tools/run.js';
import type { ApiReads, Caller } from '../tools/types.js';
import { runAssistantLoop, type LoopEvent, type StopReason } from './loop.js';

/** Stored messages sent back to the model with a new question, at most: the context of a model is finite. */
const HISTORY_MESSAGES = 60;
const TITLE_CHARS = 80;
/** Past the configuration's time per question: writing the steps, and a tool call that ran on past the deadline. */
const LOCK_MARGIN_MS = 120_000;

/** Another question of the session was being answered for longer than one may take. */
export class SessionBusy extends Error {
  constructor(readonly sessionId: string) {
    super('another question in this session is still being answered; ask again once it is');
    this.name = 'SessionBusy';
  }
}

export interface QuestionInput {
  store: Store;
  /** Where the session's lock is held: shared by every API process. */
  state: HotState;
  outbound: OutboundClient;
  box: SecretBox;
  logger: Logger;
  scopes: GraphScopes;
  reads: ApiReads;
  caller: Caller;
  session: AiSession;
  config: AiConfig;
  question: string;
  allowWrites: boolean;
  onEvent?: (event: LoopEvent) => void;
  onToolCall?: (record: ToolCallRecord) => Promise<void>;
}

export interface QuestionResult {
  /** The messages this question added, in order. */
  messages: AiMessage[];
  answer: string;
  stopReason: StopReason;
  stoppedEarly: boolean;
  usage: { model_calls: number; prompt_tokens: number; completion_tokens: number; tool_calls: number };
  error: ProviderError | null;
}

/** Stored messages as turns for the model: the most recent, starting at a question; failed attempts left out (they are not the model's words). */
function historyTurns(messages: AiMessage[]): Turn[] {
  let recent = messages.slice(-HISTORY_MESSAGES);
  const firstQuestion = recent.findIndex((m) => m.role === 'user');
  recent = firstQuestion === -1 ? [] : recent.slice(firstQuestion);
  return recent.flatMap((m): Turn[] => {
    if (m.role === 'user') return [{ role: 'user', text: m.content }];
    if (m.role === 'tool') return [{ role: 'tool', callId: m.tool_call_id, name: m.tool_name, content: m.content, isError: m.is_error }];
    if (m.is_error) return [];
    return [{ role: 'assistant', text: m.content, toolCalls: m.tool_calls }];
  });
}

export async function answerQuestion(input: QuestionInput): Promise<QuestionResult> {
  const timeoutMs = input.config.timeout_seconds * 1000;
  const lease = { leaseMs: timeoutMs + LOCK_MARGIN_MS, waitMs: timeoutMs + LOCK_MARGIN_MS };
  try {
    return await withLock(input.state, `lock:ai-session:${input.session.id}`, lease, () => answerAlone(input));
  } catch (err) {
    if (err instanceof LockBusy) throw new SessionBusy(input.session.id);
    throw err;
  }
}

async function answerAlone(input: QuestionInput): Promise<QuestionResult> {
  const { store, config, caller } = input;
  // Read again under the lock: a question answered meanwhile may have titled it.
  const session = (await getAiSession(store, caller.orgId, input.session.id)) ?? input.session;
  const previous = await sessionMessages(store, caller.orgId, session.id);
  let seq = previous.length;
  const message = (fields: Partial<AiMessage> & Pick<AiMessage, 'role' | 'content'>): AiMessage => ({
    id: newId(),
    org_id: caller.orgId,
    session_id: session.id,
    seq: seq++,
    tool_calls: [],
    tool_call_id: '',
    tool_name: '',
    is_error: false,
    stop_reason: '',
    prompt_tokens: 0,
    completion_tokens: 0,
    created_at: new Date().toISOString(),
    ...fields,
  });
  const question = message({ role: 'user', content: input.question });
  await appendAiMessages(store, [question]);
  // A session made without a title is named by its first question.
  const titled = { ...session, title: session.title || input.question.replace(/\s+/g, ' ').trim().slice(0, TITLE_CHARS) };
  await saveAiSession(store, { ...titled, updated_at: question.created_at });

  const timeoutMs = config.timeout_seconds * 1000;
  const provider = await createProvider({ provider: config.provider, baseUrl: config.base_url, model: config.model, apiKey: config.api_key ? input.box.open(config.api_key) : '', timeoutMs }, input.outbound);
  const rules = { allowWrites: input.allowWrites };
  const result = await runAssistantLoop({
    provider,
    history: historyTurns(previous),
    question: input.question,
    tools: offeredTools(caller, rules),
    rules,
    ctx: { caller, store, scopes: input.scopes, reads: input.reads },
    limits: { maxToolCalls: config.max_tool_calls, maxTokens: config.max_tokens_per_message, timeoutMs, maxOutputTokens: config.max_output_tokens, temperature: config.temperature },
    logger: input.logger,
    configId: config.id,
    onEvent: input.onEvent,
    onToolCall: input.onToolCall,
  });

  const added = result.steps.map((step) =>
    step.role === 'assistant'
      ? message({ role: 'assistant', content: step.text, tool_calls: step.toolCalls, prompt_tokens: step.promptTokens, completion_tokens: step.completionTokens })
      : message({ role: 'tool', content: step.result, tool_call_id: step.callId, tool_name: step.name, is_error: step.isError }),
  );
  // The last message says why the loop stopped: the model's answer, or cairn's note when it was stopped or the provider failed.
  const last = added[added.length - 1];
  if (result.error) added.push(message({ role: 'assistant', content: result.error.message, is_error: true, stop_reason: result.stopReason }));
  else if (result.stopNote || !last || last.role !== 'assistant') added.push(message({ role: 'assistant', content: result.stopNote ?? '', stop_reason: result.stopReason }));
  else last.stop_reason = result.stopReason;
  await appendAiMessages(store, added);
  await saveAiSession(store, { ...titled, updated_at: new Date().toISOString() });

  return {
    messages: [question, ...added],
    answer: result.error ? '' : [result.answer, result.stopNote].filter(Boolean).join('\n\n'),
    stopReason: result.stopReason,
    stoppedEarly: result.stopReason !== 'completed',
    usage: { model_calls: result.usage.modelCalls, prompt_tokens: result.usage.promptTokens, completion_tokens: result.usage.completionTokens, tool_calls: result.usage.toolCalls },
    error: result.error,
  };
}
