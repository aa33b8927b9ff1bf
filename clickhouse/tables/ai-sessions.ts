// The ai_sessions and ai_messages tables: an assistant conversation, owned
// by one user, and what was said in it (questions, the model's tool calls,
// tool results, answers with their stop reason and token use).
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryPage, queryRows, SqlParams, type Page } from '../sql.js';
import { nextVersion } from '../version.js';

export interface AiSession {
  id: string;
  org_id: string;
  /** A user id, or the subject of an operator token. */
  owner: string;
  title: string;
  config_id: string;
  created_at: string;
  updated_at: string;
}

const MESSAGE_ROLES = ['user', 'assistant', 'tool'] as const;
type MessageRole = (typeof MESSAGE_ROLES)[number];

export interface StoredToolCall {
  id: string;
  name: string;
  arguments: unknown;
}

export interface AiMessage {
  id: string;
  org_id: string;
  session_id: string;
  /** Its place in the session, from 0. */
  seq: number;
  role: MessageRole;
  content: string;
  /** An assistant turn's tool calls. */
  tool_calls: StoredToolCall[];
  /** A tool message: the call it answers and the tool's name. */
  tool_call_id: string;
  tool_name: string;
  /** A tool that failed or was refused, or an assistant turn the provider failed. */
  is_error: boolean;
  /** The final assistant message of a request: why the loop stopped (docs/ai.md); empty otherwise. */
  stop_reason: string;
  prompt_tokens: number;
  completion_tokens: number;
  created_at: string;
}

const SessionRow = z.object({
  id: z.string(),
  org_id: z.string(),
  owner: z.string(),
  title: z.string(),
  config_id: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

const MessageRow = z.object({
  id: z.string(),
  org_id: z.string(),
  session_id: z.string(),
  seq: z.coerce.number(),
  role: z.enum(MESSAGE_ROLES),
  content: z.string(),
  tool_calls: z.string(),
  tool_call_id: z.string(),
  tool_name: z.string(),
  is_error: z.boolean(),
  stop_reason: z.string(),
  prompt_tokens: z.coerce.number(),
  completion_tokens: z.coerce.number(),
  created_at: z.string(),
});

// Written by cairn itself; read back loosely.
const ToolCalls = z.array(z.object({ id: z.string(), name: z.string(), arguments: z.unknown() }));

const SESSION_COLUMNS = 'id, org_id, owner, title, config_id, created_at, updated_at';
const MESSAGE_COLUMNS = Object.keys(MessageRow.shape).join(', ');

function sessionFromRow(row: unknown): AiSession {
  const r = SessionRow.parse(row);
  return { ...r, created_at: toIsoTimestamp(r.created_at), updated_at: toIsoTimestamp(r.updated_at) };
}

function messageFromRow(row: unknown): AiMessage {
  const r = MessageRow.parse(row);
  return { ...r, tool_calls: r.tool_calls ? ToolCalls.parse(JSON.parse(r.tool_calls)) : [], created_at: toIsoTimestamp(r.created_at) };
}

export async function saveAiSession(store: Store, session: AiSession, isDeleted = false): Promise<void> {
  await store.insert({
    table: 'ai_sessions',
    format: 'JSONEachRow',
    values: [{ ...session, created_at: toClickHouseTime(session.created_at), updated_at: toClickHouseTime(session.updated_at), version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }],
  });
}

export async function appendAiMessages(store: Store, messages: AiMessage[], isDeleted = false): Promise<void> {
  if (messages.length === 0) return;
  await store.insert({
    table: 'ai_messages',
    format: 'JSONEachRow',
    values: messages.map((m) => ({ ...m, tool_calls: m.tool_calls.length ? JSON.stringify(m.tool_calls) : '', created_at: toClickHouseTime(m.created_at), version: nextVersion(), is_deleted: isDeleted ? 1 : 0 })),
  });
}

/** A session of the organization, whoever owns it (the API decides who may see it). */
export async function getAiSession(store: Store, orgId: string, id: string): Promise<AiSession | null> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT ${SESSION_COLUMNS} FROM ai_sessions FINAL WHERE org_id = ${params.add(orgId, 'String')} AND id = ${params.add(id, 'UUID')}`, params);
  return rows[0] ? sessionFromRow(rows[0]) : null;
}

/** One owner's sessions, most recently active first, with how many messages each holds. */
export async function listAiSessions(store: Store, orgId: string, owner: string, page: Page): Promise<{ sessions: (AiSession & { message_count: number })[]; total: number }> {
  const params = new SqlParams();
  const query = `SELECT ${SESSION_COLUMNS} FROM ai_sessions FINAL WHERE org_id = ${params.add(orgId, 'String')} AND owner = ${params.add(owner, 'String')}`;
  const { rows, total } = await queryPage(store, { query, params, orderBy: 'updated_at DESC, id', page });
  const sessions = rows.map(sessionFromRow);
  // Messages are counted for the page's sessions only.
  const counts = new Map<string, number>();
  if (sessions.length > 0) {
    const countParams = new SqlParams();
    const counted = (await queryRows(
      store,
      `SELECT toString(session_id) AS session, count() AS n FROM ai_messages FINAL
       WHERE org_id = ${countParams.add(orgId, 'String')} AND session_id IN ${countParams.add(sessions.map((s) => s.id), 'Array(UUID)')} GROUP BY session_id`,
      countParams,
    )) as { session: string; n: string }[];
    for (const row of counted) counts.set(row.session, Number(row.n));
  }
  return { sessions: sessions.map((s) => ({ ...s, message_count: counts.get(s.id) ?? 0 })), total };
}

/** A session's messages in the order they were written. */
export async function sessionMessages(store: Store, orgId: string, sessionId: string): Promise<AiMessage[]> {
  const params = new SqlParams();
  const rows = await queryRows(store, `SELECT ${MESSAGE_COLUMNS} FROM ai_messages FINAL WHERE org_id = ${params.add(orgId, 'String')} AND session_id = ${params.add(sessionId, 'UUID')} ORDER BY seq, created_at`, params);
  return rows.map(messageFromRow);
}

/** Tombstones for the session and every message in it. */
export async function deleteAiSession(store: Store, session: AiSession): Promise<void> {
  await appendAiMessages(store, await sessionMessages(store, session.org_id, session.id), true);
  await saveAiSession(store, { ...session, updated_at: new Date().toISOString() }, true);
}
