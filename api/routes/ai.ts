// The AI assistant (SPEC 4.11 AI rows; docs/ai.md): model configurations
// (ai:manage), chat sessions owned by their user (ai:read; delete ai:write)
// whose messages run the assistant loop with the caller's permissions, and
// the MCP server's configuration (ai:manage; the server is api/routes/mcp.ts).
import { PassThrough } from 'node:stream';
import type { Context } from 'koa';
import { z } from 'zod';
import { answerQuestion, SessionBusy, type QuestionResult } from '../../ai/assistant/chat.js';
import { STOP_REASONS } from '../../ai/assistant/loop.js';
import { loadMcpConfig, McpConfig, Origin, saveMcpConfig, TOOL_NAMES, type StoredMcpConfig } from '../../ai/mcp/config.js';
import { ProviderError } from '../../ai/providers/types.js';
import type { ToolCallRecord } from '../../ai/tools/run.js';
import { AI_PROVIDERS, deleteAiConfig, getAiConfig, getAiConfigs, getDefaultAiConfig, listAiConfigs, saveAiConfigs, type AiConfig } from '../../clickhouse/tables/ai-configs.js';
import { deleteAiSession, getAiSession, listAiSessions, saveAiSession, sessionMessages, type AiMessage, type AiSession } from '../../clickhouse/tables/ai-sessions.js';
import { newId } from '../../lib/ids.js';
import { isPlainHttpUrl } from '../../lib/outbound/client.js';
import { keepSecrets, mapSecrets, REDACTED } from '../../lib/secret-box.js';
import { apiReads } from '../ai-reads.js';
import { recordAudit } from '../audit.js';
import type { AuthContext } from '../auth.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import { defineRoute, type Route } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';
import { raiseConfigChanged } from '../system-events.js';

const SECRET_FIELDS = ['api_key'] as const;
type ConfigRecord = AiConfig & Record<string, unknown>;

/** Bounds of a configuration's limits: wide enough for any real use, narrow enough that a typo cannot run up a bill. */
const LIMITS = {
  max_output_tokens: { min: 16, max: 200_000, default: 2048 },
  max_tokens_per_message: { min: 1000, max: 5_000_000, default: 100_000 },
  max_tool_calls: { min: 0, max: 50, default: 10 },
  timeout_seconds: { min: 5, max: 600, default: 120 },
} as const;

const MAX_QUESTION_CHARS = 20_000;

const ConfigSchema = z.object({
  id: z.string(),
  name: z.string(),
  provider: z.enum(AI_PROVIDERS),
  base_url: z.string().nullable().describe("null: the provider's public API (https://api.openai.com/v1, https://api.anthropic.com)"),
  model: z.string(),
  api_key: z.literal(REDACTED).nullable().describe('"[redacted]" when set, null when the endpoint needs none; never answered in clear'),
  temperature: z.number().nullable().describe("null: the model's default"),
  max_output_tokens: z.number().int().describe('largest answer of one model call'),
  max_tokens_per_message: z.number().int().describe('prompt and completion tokens of all model calls for one question'),
  max_tool_calls: z.number().int().describe('tool calls for one question'),
  timeout_seconds: z.number().int().describe('time for one question, model calls and tools together'),
  is_default: z.boolean().describe('the configuration new sessions use; one per organization'),
  enabled: z.boolean(),
  created_by: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const BaseUrl = z
  .string()
  .max(2000)
  .refine(isPlainHttpUrl, 'base_url must be an http or https URL without credentials (give the key as api_key)')
  .transform((v) => v.replace(/\/+$/, ''));

const limit = (name: keyof typeof LIMITS) => z.number({ message: `${name} must be an integer` }).int(`${name} must be an integer`).min(LIMITS[name].min, `${name} must be at least ${LIMITS[name].min}`).max(LIMITS[name].max, `${name} must be at most ${LIMITS[name].max}`);

const ConfigFields = {
  name: z.string().trim().min(1, 'name is required').max(200),
  provider: z.enum(AI_PROVIDERS, { message: `provider must be one of: ${AI_PROVIDERS.join(', ')} (an OpenAI-compatible server such as vLLM or Ollama is openai with its base_url)` }),
  base_url: BaseUrl.nullable(),
  model: z.string().trim().min(1, 'model is required').max(200),
  api_key: z.string().max(10_000).nullable(),
  temperature: z.number().min(0, 'temperature must be 0 to 2').max(2, 'temperature must be 0 to 2').nullable(),
  max_output_tokens: limit('max_output_tokens'),
  max_tokens_per_message: limit('max_tokens_per_message'),
  max_tool_calls: limit('max_tool_calls'),
  timeout_seconds: limit('timeout_seconds'),
  is_default: z.boolean(),
  enabled: z.boolean(),
};

const CreateConfig = z.strictObject({
  name: ConfigFields.name,
  provider: ConfigFields.provider,
  base_url: ConfigFields.base_url.default(null),
  model: ConfigFields.model,
  api_key: ConfigFields.api_key.default(null),
  temperature: ConfigFields.temperature.default(null),
  max_output_tokens: ConfigFields.max_output_tokens.default(LIMITS.max_output_tokens.default),
  max_tokens_per_message: ConfigFields.max_tokens_per_message.default(LIMITS.max_tokens_per_message.default),
  max_tool_calls: ConfigFields.max_tool_calls.default(LIMITS.max_tool_calls.default),
  timeout_seconds: ConfigFields.timeout_seconds.default(LIMITS.timeout_seconds.default),
  is_default: ConfigFields.is_default.optional().describe('default: true for the first configuration of the organization'),
  enabled: ConfigFields.enabled.default(true),
});

const UpdateConfig = z
  .strictObject(Object.fromEntries(Object.entries(ConfigFields).map(([k, v]) => [k, v.optional()])) as { [K in keyof typeof ConfigFields]: z.ZodOptional<(typeof ConfigFields)[K]> })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

function presentConfig(config: AiConfig): z.input<typeof ConfigSchema> {
  const { org_id: _org, api_key, base_url, ...rest } = config;
  return { ...rest, base_url: base_url || null, api_key: api_key ? REDACTED : null };
}

async function findConfig(deps: ApiDeps, orgId: string, id: string): Promise<AiConfig> {
  const config = await getAiConfig(deps.store, orgId, id);
  if (!config) throw notFound('AI configuration');
  return config;
}

/** Saves a configuration; when it is the default, the others stop being one (one default per organization). */
async function saveConfig(deps: ApiDeps, config: AiConfig): Promise<void> {
  const others = config.is_default ? (await getAiConfigs(deps.store, config.org_id, { isDefault: true })).filter((c) => c.id !== config.id) : [];
  await saveAiConfigs(deps.store, [config, ...others.map((c) => ({ ...c, is_default: false, updated_at: config.updated_at }))]);
}

const changedFields = (body: Record<string, unknown>) => Object.keys(body).filter((k) => body[k] !== undefined);

const SessionSchema = z.object({
  id: z.string(),
  title: z.string().describe('given at creation, else the start of the first question'),
  config_id: z.string(),
  message_count: z.number().int(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const ToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.unknown() });

const MessageSchema = z.object({
  id: z.string(),
  role: z.enum(['user', 'assistant', 'tool']),
  content: z.string().describe('the question; the answer; or the tool result exactly as the model read it (quoted data, docs/ai.md)'),
  tool_calls: z.array(ToolCallSchema).describe('assistant: the tools the model called'),
  tool_call_id: z.string().nullable().describe('tool: the call it answers'),
  tool_name: z.string().nullable(),
  is_error: z.boolean().describe('tool: failed or refused; assistant: the provider failed (content has its message)'),
  stop_reason: z.enum(STOP_REASONS).nullable().describe('on the last message of each question: why the loop stopped'),
  usage: z.object({ prompt_tokens: z.number().int(), completion_tokens: z.number().int() }),
  created_at: Timestamp,
});

const AnswerSchema = z.object({
  session_id: z.string(),
  answer: z.string().describe('the final answer, with a note when the loop stopped early'),
  stop_reason: z.enum(STOP_REASONS),
  stopped_early: z.boolean(),
  usage: z.object({ model_calls: z.number().int(), prompt_tokens: z.number().int(), completion_tokens: z.number().int(), tool_calls: z.number().int() }),
  messages: z.array(MessageSchema).describe('what this question added to the session, the question first'),
});

function presentSession(session: AiSession, messageCount: number): z.input<typeof SessionSchema> {
  return { id: session.id, title: session.title, config_id: session.config_id, message_count: messageCount, created_at: session.created_at, updated_at: session.updated_at };
}

function presentMessage(m: AiMessage): z.input<typeof MessageSchema> {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    tool_calls: m.tool_calls,
    tool_call_id: m.tool_call_id || null,
    tool_name: m.tool_name || null,
    is_error: m.is_error,
    stop_reason: (STOP_REASONS as readonly string[]).includes(m.stop_reason) ? (m.stop_reason as (typeof STOP_REASONS)[number]) : null,
    usage: { prompt_tokens: m.prompt_tokens, completion_tokens: m.completion_tokens },
    created_at: m.created_at,
  };
}

function presentAnswer(sessionId: string, result: QuestionResult): z.input<typeof AnswerSchema> {
  return { session_id: sessionId, answer: result.answer, stop_reason: result.stopReason, stopped_early: result.stoppedEarly, usage: result.usage, messages: result.messages.map(presentMessage) };
}

/** Sessions belong to their user: another user's is answered as missing, not as forbidden, so ids leak nothing. */
async function ownSession(deps: ApiDeps, auth: AuthContext, id: string): Promise<AiSession> {
  const session = await getAiSession(deps.store, auth.orgId, id);
  if (!session || session.owner !== auth.subject) throw notFound('AI session');
  return session;
}

/** Questions to one session are answered one at a time; a second waits, and gives up only if the first outlasts its time. */
function sessionBusy(err: SessionBusy): HttpError {
  return new HttpError(409, 'conflict', err.message, { session_id: err.sessionId });
}

async function usableConfig(deps: ApiDeps, orgId: string, id: string): Promise<AiConfig> {
  const config = await getAiConfig(deps.store, orgId, id);
  if (!config) throw new HttpError(409, 'conflict', 'the AI configuration of this session was deleted; start a new session');
  if (!config.enabled) throw new HttpError(409, 'conflict', `the AI configuration "${config.name}" of this session is disabled`);
  return config;
}

/** Every tool call, by the assistant or an MCP client, is in the audit log with its outcome. */
export async function auditToolCall(deps: ApiDeps, ctx: Context, surface: 'assistant' | 'mcp', record: ToolCallRecord, extra: Record<string, unknown> = {}): Promise<void> {
  const { outcome } = record;
  await recordAudit(deps, ctx, {
    action: 'ai.tool_call',
    targetType: 'ai/tools',
    note: {
      targetId: record.tool.slice(0, 100),
      outcome: outcome.ok ? 'success' : 'failure',
      after: { surface, tool: record.tool, arguments: record.arguments, result: outcome.ok ? 'ok' : outcome.refused ? 'refused' : 'error', ...(outcome.ok ? {} : { error: outcome.error }), ...extra },
    },
  });
}

function providerHttpError(err: ProviderError, sessionId: string): HttpError {
  return err.kind === 'timeout'
    ? new HttpError(504, 'provider_timeout', err.message, { session_id: sessionId })
    : new HttpError(502, 'provider_error', err.message, { session_id: sessionId, provider_status: err.status });
}

const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
/** A streamed answer's envelope data, never sent: the events are the answer, and the `done` event carries this shape. */
const STREAMED: z.input<typeof AnswerSchema> = { session_id: '', answer: '', stop_reason: 'completed', stopped_early: false, usage: { model_calls: 0, prompt_tokens: 0, completion_tokens: 0, tool_calls: 0 }, messages: [] };

const McpConfigSchema = McpConfig.extend({
  available_tools: z.array(z.string()).describe('every tool of the catalogue'),
  updated_at: Timestamp.nullable(),
  updated_by: z.string().nullable(),
});

const presentMcpConfig = (config: StoredMcpConfig): z.input<typeof McpConfigSchema> => ({ ...config, available_tools: TOOL_NAMES });

const UpdateMcpConfig = z
  .strictObject({
    enabled: z.boolean().optional(),
    exposed_tools: z
      .array(z.enum(TOOL_NAMES as [string, ...string[]], { message: `each exposed tool must be one of: ${TOOL_NAMES.join(', ')}` }))
      .max(TOOL_NAMES.length)
      .transform((t) => [...new Set(t)])
      .nullable()
      .optional()
      .describe('null: every tool, including ones later versions add'),
    rate_limit_per_minute: z.number().int('rate_limit_per_minute must be an integer').min(1).max(100_000).optional(),
    allowed_origins: z.array(Origin).max(50).optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

export const aiRoutes: Route[] = [
  defineRoute({
    method: 'get',
    path: '/v1/ai/configs',
    summary: 'List AI configurations by name (API keys redacted)',
    tag: 'AI',
    permission: 'ai:manage',
    query: Pagination,
    response: listData('configs', ConfigSchema),
    async handler({ query, auth, deps }) {
      const { configs, total } = await listAiConfigs(deps.store, auth.orgId, query);
      return { message: `${total} AI configuration(s)`, data: { configs: configs.map(presentConfig), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/ai/configs',
    summary: 'Create an AI configuration: provider (openai, or any OpenAI-compatible server at base_url; anthropic), model, API key (sealed), temperature and limits',
    description: 'Provider calls go through the guarded outbound client: a private or loopback base_url (a local vLLM or Ollama) must be allowed with CAIRN_OUTBOUND_ALLOW. The first configuration of an organization becomes its default.',
    tag: 'AI',
    permission: 'ai:manage',
    body: CreateConfig,
    response: ConfigSchema,
    successStatus: 201,
    errors: [503],
    async handler({ body, auth, deps, ctx }) {
      const now = new Date().toISOString();
      const isDefault = body.is_default ?? (await getDefaultAiConfig(deps.store, auth.orgId)) === null;
      const config: AiConfig = {
        id: newId(),
        org_id: auth.orgId,
        ...body,
        base_url: body.base_url ?? '',
        api_key: mapSecrets({ api_key: body.api_key ?? '' }, SECRET_FIELDS, (v) => deps.identity.box.seal(v)).api_key,
        is_default: isDefault,
        created_by: auth.email ?? auth.subject,
        created_at: now,
        updated_at: now,
      };
      await saveConfig(deps, config);
      await raiseConfigChanged(deps, ctx, auth, { setting: 'ai.configs', summary: `AI configuration "${config.name}" created`, details: { id: config.id, fields: changedFields(body) } });
      return { message: 'AI configuration created', data: presentConfig(config) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/ai/configs/:id',
    summary: 'Change an AI configuration; only the fields given change, and an api_key left out or sent as "[redacted]" keeps its value (null removes it)',
    tag: 'AI',
    permission: 'ai:manage',
    params: IdParams,
    body: UpdateConfig,
    response: ConfigSchema,
    errors: [404, 503],
    async handler({ params, body, auth, deps, ctx }) {
      const before = await findConfig(deps, auth.orgId, params.id);
      const { base_url, api_key, ...rest } = Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) as Partial<z.output<typeof UpdateConfig>>;
      // null clears a value; the key is compared and kept in clear, then sealed again.
      const change = { ...rest, ...(base_url !== undefined ? { base_url: base_url ?? '' } : {}), ...(api_key !== undefined ? { api_key: api_key ?? '' } : {}) };
      const plain = mapSecrets(before as ConfigRecord, SECRET_FIELDS, (v) => deps.identity.box.open(v));
      const merged = keepSecrets(plain, change, SECRET_FIELDS);
      const after: AiConfig = { ...mapSecrets(merged, SECRET_FIELDS, (v) => deps.identity.box.seal(v)), updated_at: new Date().toISOString() };
      await saveConfig(deps, after);
      const fields = changedFields(body);
      await raiseConfigChanged(deps, ctx, auth, { setting: 'ai.configs', summary: `AI configuration "${after.name}" changed (${fields.join(', ')})`, details: { id: after.id, fields } });
      return { message: 'AI configuration updated', data: presentConfig(after), audit: { before: presentConfig(before) } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/ai/configs/:id',
    summary: 'Delete an AI configuration; sessions that used it keep their messages and answer 409 to new questions',
    tag: 'AI',
    permission: 'ai:manage',
    params: IdParams,
    response: z.null(),
    errors: [404, 503],
    async handler({ params, auth, deps, ctx }) {
      const config = await findConfig(deps, auth.orgId, params.id);
      await deleteAiConfig(deps.store, config);
      await raiseConfigChanged(deps, ctx, auth, { setting: 'ai.configs', summary: `AI configuration "${config.name}" deleted`, details: { id: config.id, fields: [] } });
      return { message: `AI configuration "${config.name}" deleted`, data: null, audit: { before: presentConfig(config), after: null } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/ai/status',
    summary: 'Whether the caller can ask the assistant: the organization has a default AI configuration, enabled (the configurations themselves need ai:manage)',
    description: 'The console shows its assistant panel only when this answers available: true. It names no configuration, model or endpoint.',
    tag: 'AI',
    permission: 'ai:read',
    response: z.object({ available: z.boolean().describe('a new session would start: a default configuration exists and is enabled') }),
    async handler({ auth, deps }) {
      const config = await getDefaultAiConfig(deps.store, auth.orgId);
      const available = config !== null && config.enabled;
      const message = available ? 'The assistant is available' : config ? 'The default AI configuration is disabled' : 'No AI configuration: an admin creates one with POST /api/v1/ai/configs';
      return { message, data: { available } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/ai/sessions',
    summary: "The caller's own chat sessions, most recently active first",
    tag: 'AI',
    permission: 'ai:read',
    query: Pagination,
    response: listData('sessions', SessionSchema),
    async handler({ query, auth, deps }) {
      const { sessions, total } = await listAiSessions(deps.store, auth.orgId, auth.subject, query);
      return { message: `${total} session(s)`, data: { sessions: sessions.map((s) => presentSession(s, s.message_count)), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/ai/sessions',
    summary: 'Start a chat session with an AI configuration (default: the organization\'s default one)',
    tag: 'AI',
    permission: 'ai:read',
    body: z.strictObject({ title: z.string().trim().max(200).optional(), config_id: z.uuid('config_id must be a UUID').optional() }),
    response: SessionSchema,
    successStatus: 201,
    async handler({ body, auth, deps }) {
      const config = body.config_id ? await getAiConfig(deps.store, auth.orgId, body.config_id) : await getDefaultAiConfig(deps.store, auth.orgId);
      if (!config) throw badRequest(body.config_id ? `config_id: no AI configuration ${body.config_id}` : 'no default AI configuration: an admin creates one with POST /api/v1/ai/configs, or give config_id');
      if (!config.enabled) throw badRequest(`the AI configuration "${config.name}" is disabled`);
      const now = new Date().toISOString();
      const session: AiSession = { id: newId(), org_id: auth.orgId, owner: auth.subject, title: body.title ?? '', config_id: config.id, created_at: now, updated_at: now };
      await saveAiSession(deps.store, session);
      return { message: 'Session started', data: presentSession(session, 0) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/ai/sessions/:id',
    summary: 'One of the caller\'s sessions with its messages: questions, the model\'s tool calls, each tool\'s result, answers with their stop reason and token use',
    tag: 'AI',
    permission: 'ai:read',
    params: IdParams,
    response: SessionSchema.extend({ messages: z.array(MessageSchema) }),
    errors: [404],
    async handler({ params, auth, deps }) {
      const session = await ownSession(deps, auth, params.id);
      const messages = await sessionMessages(deps.store, auth.orgId, session.id);
      return { message: 'Session found', data: { ...presentSession(session, messages.length), messages: messages.map(presentMessage) } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/ai/sessions/:id/messages',
    summary: 'Ask a question in a session: the assistant reads cairn\'s data through tools, with the caller\'s permissions, and answers',
    description:
      'Bounded per question by the configuration (tool calls, tokens, time); stop_reason says why it stopped. With "stream": true (or Accept: text/event-stream) the answer is server-sent events: assistant, tool_result, then done (this answer) or error. A provider error is 502 and a provider timeout 504, with the provider\'s message; the question and any tool results stay in the session. Tools that change data are offered only with "allow_writes": true and the permission (docs/ai.md). Questions to one session are answered one at a time, across API processes: a second waits for the first\'s answer (and sees it as history); 409 if the first outlasts the configuration\'s time.',
    tag: 'AI',
    permission: 'ai:read',
    // Tool calls are each in the audit log (ai.tool_call); the question itself is the user's data, kept in the session.
    audit: false,
    params: IdParams,
    body: z.strictObject({
      content: z.string({ message: 'content is required: the question' }).trim().min(1, 'content must not be empty').max(MAX_QUESTION_CHARS, `content must be at most ${MAX_QUESTION_CHARS} characters`),
      stream: z.boolean().default(false).describe('answer as server-sent events'),
      allow_writes: z.boolean().default(false).describe('offer tools that change data (if the caller has their permission); none exist yet'),
    }),
    response: AnswerSchema,
    successStatus: 201,
    errors: [404, 409, 502, 504],
    fileTypes: ['text/event-stream'],
    async handler({ params, body, auth, deps, ctx }) {
      const session = await ownSession(deps, auth, params.id);
      const config = await usableConfig(deps, auth.orgId, session.config_id);
      const ask = (onEvent?: Parameters<typeof answerQuestion>[0]['onEvent']) =>
        answerQuestion({
          store: deps.store,
          state: deps.state,
          outbound: deps.outbound,
          box: deps.identity.box,
          logger: deps.logger,
          scopes: deps.config.graph,
          reads: apiReads(deps),
          caller: auth,
          session,
          config,
          question: body.content,
          allowWrites: body.allow_writes,
          onEvent,
          onToolCall: (record) => auditToolCall(deps, ctx, 'assistant', record, { session_id: session.id }),
        });
      if (body.stream || ctx.accepts('application/json', 'text/event-stream') === 'text/event-stream') {
        const stream = new PassThrough();
        const send = (event: string, data: unknown) => {
          if (!stream.destroyed && !stream.writableEnded) stream.write(sse(event, data));
        };
        // Runs on after the answer starts; the client leaving does not stop it, so the session still gets every step.
        void ask((event) => send(event.type, event))
          .then((result) => {
            if (result.error) {
              const err = providerHttpError(result.error, session.id);
              send('error', { status: err.status, code: err.code, message: err.message, details: err.details });
            } else send('done', presentAnswer(session.id, result));
          })
          .catch((err: unknown) => {
            if (err instanceof SessionBusy) {
              const busy = sessionBusy(err);
              send('error', { status: busy.status, code: busy.code, message: busy.message, details: busy.details });
              return;
            }
            deps.logger.error({ err, session: session.id }, 'AI question failed');
            send('error', { status: 500, code: 'internal_error', message: 'Internal server error', details: { session_id: session.id } });
          })
          .finally(() => stream.end());
        return { message: 'streaming', data: STREAMED, raw: { status: 200, headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' }, body: stream } };
      }
      const result = await ask().catch((err: unknown) => {
        throw err instanceof SessionBusy ? sessionBusy(err) : err;
      });
      if (result.error) throw providerHttpError(result.error, session.id);
      const note = result.stoppedEarly ? ` (stopped early: ${result.stopReason})` : '';
      return { message: `Answered${note}`, data: presentAnswer(session.id, result) };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/ai/sessions/:id',
    summary: 'Delete one of the caller\'s sessions and its messages',
    tag: 'AI',
    permission: 'ai:write',
    params: IdParams,
    response: z.null(),
    errors: [404],
    async handler({ params, auth, deps }) {
      const session = await ownSession(deps, auth, params.id);
      await deleteAiSession(deps.store, session);
      return { message: `Session "${session.title || session.id}" deleted`, data: null, audit: { before: presentSession(session, 0), after: null } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/ai/mcp/config',
    summary: 'The MCP server\'s configuration: enabled, exposed tools, per-key rate limit, allowed browser origins',
    tag: 'AI',
    permission: 'ai:manage',
    response: McpConfigSchema,
    async handler({ auth, deps }) {
      return { message: 'MCP server configuration', data: presentMcpConfig(await loadMcpConfig(deps.store, auth.orgId)) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/ai/mcp/config',
    summary: 'Change the MCP server\'s configuration; only the fields given change. While disabled, /api/v1/mcp answers 404',
    tag: 'AI',
    permission: 'ai:manage',
    body: UpdateMcpConfig,
    response: McpConfigSchema,
    errors: [503],
    async handler({ body, auth, deps, ctx }) {
      const before = await loadMcpConfig(deps.store, auth.orgId);
      const { updated_at: _at, updated_by: _by, ...current } = before;
      const after: McpConfig = { ...current, ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)) };
      await saveMcpConfig(deps.store, auth.orgId, after, auth.email ?? auth.subject);
      const fields = changedFields(body);
      await raiseConfigChanged(deps, ctx, auth, { setting: 'ai.mcp', summary: `MCP server configuration changed (${fields.join(', ')})`, details: { fields } });
      return { message: `MCP server configuration changed: ${fields.join(', ')}`, data: presentMcpConfig(await loadMcpConfig(deps.store, auth.orgId)), audit: { before: presentMcpConfig(before) } };
    },
  }),
];
