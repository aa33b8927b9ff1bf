// The AI assistant as a side panel (issue 41 item 6; docs/ai.md): ask a
// question, watch its steps arrive (the model's turns, each tool call with
// its arguments, each result) as server-sent events, the answer at the end;
// the user's past sessions to open again, or a new one. The panel is offered
// only to a user with ai:read in an organization with a usable AI
// configuration (GET /v1/ai/status). The tools run with the user's own
// permissions on the server; a call their role does not allow shows as
// refused.
import { signal, useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { api, ApiError, postForEvents } from '../api.ts';
import { can } from '../session.ts';
import { Time } from '../time.tsx';
import { entriesOf, explain, STOP_LABELS, withStreamedStep, type Entry, type Failure, type SessionDetail, type SessionSummary, type StreamedStep, type ToolStatus } from './messages.ts';
import { readEvents } from './sse.ts';
import './assistant.css';

/** Learned once per login (the shell mounts at login and unmounts at logout, taking this back to false). */
const available = signal(false);
const open = signal(false);

const TOGGLE_ID = 'assistant-toggle';
const QUESTION_ID = 'assistant-question';

function close(): void {
  open.value = false;
  document.getElementById(TOGGLE_ID)?.focus();
}

/** The header's button; shown only where the assistant can answer this user. */
export function AssistantToggle() {
  useEffect(() => {
    let mounted = true;
    if (can('ai:read')) {
      api<{ available: boolean }>('GET', '/v1/ai/status')
        .then(({ data }) => {
          if (mounted) available.value = data.available;
        })
        .catch(() => undefined);
    }
    return () => {
      mounted = false;
      available.value = false;
      open.value = false;
    };
  }, []);
  if (!available.value) return null;
  return (
    <button type="button" id={TOGGLE_ID} class="assistant-toggle" aria-expanded={open.value} aria-controls="assistant" onClick={() => (open.value = !open.value)}>
      Assistant
    </button>
  );
}

/** The panel itself, kept (hidden) while closed so a conversation survives closing it and moving between pages. */
export function AssistantPanel() {
  return available.value ? <Panel /> : null;
}

const STATUS_WORDS: Record<ToolStatus, string> = { running: 'running…', ok: 'ran', refused: 'refused', error: 'failed' };

const pretty = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

function ToolEntry({ entry }: { entry: Extract<Entry, { kind: 'tool' }> }) {
  const { call, status, result } = entry;
  const reason = status === 'refused' || status === 'error' ? (result as { error?: unknown } | undefined)?.error : undefined;
  return (
    <details class={`assistant-tool tool-${status}`}>
      <summary>
        Tool <code>{call.name}</code>: <span class="tool-status">{STATUS_WORDS[status]}</span>
      </summary>
      <h4>Arguments</h4>
      <pre tabIndex={0}>{pretty(call.arguments ?? {})}</pre>
      <h4>Result</h4>
      {status === 'running' ? (
        <p class="status">Waiting for the tool…</p>
      ) : typeof reason === 'string' ? (
        <p class={status === 'refused' ? 'refused' : 'error'}>{reason}</p>
      ) : result === undefined ? (
        <p class="status">Ran; the data it answered shows once the answer is complete.</p>
      ) : (
        <pre tabIndex={0}>{pretty(result)}</pre>
      )}
    </details>
  );
}

function EntryView({ entry }: { entry: Entry }) {
  if (entry.kind === 'question') {
    return (
      <li class="assistant-question">
        <p class="speaker">You</p>
        <p class="text">{entry.text}</p>
      </li>
    );
  }
  if (entry.kind === 'answer') {
    const stop = entry.stopReason && entry.stopReason !== 'completed' ? STOP_LABELS[entry.stopReason] : undefined;
    return (
      <li class="assistant-answer">
        <p class="speaker">Assistant{stop ? <span class="tag">{stop}</span> : null}</p>
        <p class={entry.failed ? 'text error' : 'text'}>{entry.text}</p>
      </li>
    );
  }
  return (
    <li class="assistant-step">
      <ToolEntry entry={entry} />
    </li>
  );
}

function Panel() {
  const sessions = useSignal<SessionSummary[] | null>(null);
  const showSessions = useSignal(false);
  const current = useSignal<{ id: string; title: string } | null>(null);
  const entries = useSignal<Entry[]>([]);
  const question = useSignal('');
  const busy = useSignal(false);
  const error = useSignal<string | null>(null);
  const log = useRef<HTMLDivElement>(null);

  async function loadSessions(): Promise<void> {
    try {
      sessions.value = (await api<{ sessions: SessionSummary[] }>('GET', '/v1/ai/sessions', { query: { limit: 50 } })).data.sessions;
    } catch (err) {
      error.value = err instanceof ApiError ? explain(err) : String(err);
    }
  }

  async function openSession(id: string): Promise<void> {
    try {
      const { data } = await api<SessionDetail>('GET', `/v1/ai/sessions/${encodeURIComponent(id)}`);
      current.value = { id: data.id, title: data.title };
      entries.value = entriesOf(data.messages);
    } catch (err) {
      error.value = err instanceof ApiError ? explain(err) : String(err);
    }
  }

  function startNew(): void {
    current.value = null;
    entries.value = [];
    error.value = null;
    showSessions.value = false;
    document.getElementById(QUESTION_ID)?.focus();
  }

  async function ask(text: string): Promise<void> {
    busy.value = true;
    error.value = null;
    let sessionId = current.value?.id;
    let finished = false;
    try {
      if (!sessionId) {
        // A session starts with its first question (named after it), so "New session" leaves no empty ones behind.
        const { data } = await api<SessionSummary>('POST', '/v1/ai/sessions', { body: {} });
        sessionId = data.id;
        current.value = { id: data.id, title: text.slice(0, 80) };
      }
      entries.value = [...entries.value, { kind: 'question', key: `asked-${Date.now()}`, text }];
      const stream = await postForEvents(`/v1/ai/sessions/${encodeURIComponent(sessionId)}/messages`, { content: text, stream: true });
      let step = 0;
      for await (const { event, data } of readEvents(stream)) {
        if (event === 'assistant' || event === 'tool_result') entries.value = withStreamedStep(entries.value, JSON.parse(data) as StreamedStep, `step-${Date.now()}-${step++}`);
        else if (event === 'done') finished = true;
        else if (event === 'error') {
          finished = true;
          error.value = explain(JSON.parse(data) as Failure);
        }
      }
      if (!finished) error.value = 'The answer stopped arriving before it was complete; the steps taken so far are kept in the session.';
    } catch (err) {
      error.value = err instanceof ApiError ? explain(err) : `The answer could not be read (${String(err)}); the steps taken so far are kept in the session.`;
    } finally {
      // The session as stored is what the panel shows: every step, each tool's result in full.
      if (sessionId) await openSession(sessionId);
      await loadSessions();
      busy.value = false;
    }
  }

  function submit(event: Event): void {
    event.preventDefault();
    const text = question.value.trim();
    if (!text || busy.value) return;
    question.value = '';
    void ask(text);
  }

  useEffect(() => {
    if (!open.value) return;
    if (sessions.value === null) void loadSessions();
    document.getElementById(QUESTION_ID)?.focus();
  }, [open.value]);

  useEffect(() => {
    const element = log.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [entries.value]);

  return (
    <aside
      id="assistant"
      class="assistant"
      aria-labelledby="assistant-title"
      hidden={!open.value}
      onKeyDown={(event) => {
        if (event.key !== 'Escape') return;
        // The page's own Esc (closing an artifact) is not for here.
        event.stopPropagation();
        close();
      }}
    >
      <div class="assistant-head">
        <h2 id="assistant-title">Assistant</h2>
        <button type="button" class="secondary" onClick={close}>
          Close assistant
        </button>
      </div>
      <p class="assistant-note">It reads cairn's data with your permissions: a tool your role may not use is refused.</p>
      <div class="row">
        <button type="button" class="secondary" disabled={busy.value} onClick={startNew}>
          New session
        </button>
        <button type="button" class="secondary" aria-expanded={showSessions.value} aria-controls="assistant-sessions" onClick={() => (showSessions.value = !showSessions.value)}>
          Past sessions
        </button>
      </div>
      <div id="assistant-sessions" hidden={!showSessions.value}>
        {sessions.value === null ? (
          <p class="status">Loading sessions…</p>
        ) : sessions.value.length === 0 ? (
          <p class="empty">No sessions yet.</p>
        ) : (
          <ul class="assistant-sessions" aria-label="Past sessions">
            {sessions.value.map((s) => (
              <li key={s.id}>
                <button
                  type="button"
                  class="link-button"
                  disabled={busy.value}
                  aria-current={current.value?.id === s.id ? 'true' : undefined}
                  onClick={() => {
                    showSessions.value = false;
                    error.value = null;
                    void openSession(s.id).then(() => document.getElementById(QUESTION_ID)?.focus());
                  }}
                >
                  {s.title || 'Untitled session'}
                </button>
                <span class="status">
                  {' '}
                  {s.message_count} messages, <Time iso={s.updated_at} />
                </span>
              </li>
            ))}
          </ul>
        )}
      </div>
      <h3 class="assistant-title">{current.value ? current.value.title || 'Untitled session' : 'New session'}</h3>
      <div class="assistant-log" role="log" aria-live="polite" aria-label="Conversation" tabIndex={0} ref={log}>
        {entries.value.length === 0 ? (
          <p class="empty">Ask about incidents, events, nodes, reports or indicators, e.g. "What happened in the newest high incident?"</p>
        ) : (
          <ol class="plain-list">
            {entries.value.map((entry) => (
              <EntryView key={entry.key} entry={entry} />
            ))}
          </ol>
        )}
      </div>
      <p class="status" role="status">
        {busy.value ? 'Answering…' : ''}
      </p>
      {error.value ? (
        <p class="error" role="alert">
          {error.value}
        </p>
      ) : null}
      <form class="assistant-form" onSubmit={submit}>
        <label for={QUESTION_ID}>Question</label>
        <textarea
          id={QUESTION_ID}
          rows={3}
          maxLength={20_000}
          value={question.value}
          onInput={(event) => (question.value = (event.target as HTMLTextAreaElement).value)}
          onKeyDown={(event) => {
            // Enter asks, Shift+Enter starts a new line.
            if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) submit(event);
          }}
        />
        <button type="submit" disabled={busy.value}>
          Ask
        </button>
      </form>
    </aside>
  );
}
