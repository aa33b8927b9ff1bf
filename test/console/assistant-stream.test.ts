// The assistant panel's reading of a streamed answer, apart from the browser:
// events whose bytes arrive cut anywhere (inside a line, inside a multi-byte
// character) are read whole and in order, and a stored session's tool
// results sit beside the calls they answer.
import { describe, expect, it } from 'vitest';
import { entriesOf, readToolResult, withStreamedStep, type Message } from '../../console/src/assistant/messages.js';
import { readEvents } from '../../console/src/assistant/sse.js';
import { quoteForModel } from '../../ai/tools/quote.js';

/** As api/routes/ai.ts writes each event. */
const sse = (event: string, data: unknown) => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;

function streamOf(bytes: Uint8Array, chunkSize: number): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (let i = 0; i < bytes.length; i += chunkSize) controller.enqueue(bytes.slice(i, i + chunkSize));
      controller.close();
    },
  });
}

describe('reading server-sent events from a fetch body', () => {
  const events = [
    ['assistant', { type: 'assistant', text: 'Je cherche… 🔎', tool_calls: [{ id: 'call_1', name: 'search_artifacts', arguments: { query: 'user.name:"zoë"' } }] }],
    ['tool_result', { type: 'tool_result', id: 'call_1', name: 'search_artifacts', ok: true }],
    ['done', { session_id: 's1', answer: 'Deux échecs.\nFin.', stop_reason: 'completed' }],
  ] as const;
  const bytes = new TextEncoder().encode(`: keep-alive\n\n${events.map(([e, d]) => sse(e, d)).join('')}`);

  it.each([1, 2, 3, 7, 64, bytes.length])('reads every event whole, in order, with the body cut every %i bytes', async (chunkSize) => {
    const read = [];
    for await (const { event, data } of readEvents(streamOf(bytes, chunkSize))) read.push([event, JSON.parse(data) as unknown]);
    expect(read).toEqual(events.map(([e, d]) => [e, d]));
  });

  it('joins several data lines with a newline, and reads a last event without its blank line', async () => {
    const read = [];
    for await (const e of readEvents(streamOf(new TextEncoder().encode('event: note\ndata: one\ndata:two\n\nevent: error\ndata: {"status":502}'), 5))) read.push(e);
    expect(read).toEqual([
      { event: 'note', data: 'one\ntwo' },
      { event: 'error', data: '{"status":502}' },
    ]);
  });
});

describe("a session's messages as the panel's entries", () => {
  const at = '2026-01-01T00:00:00.000Z';
  const message = (m: Partial<Message> & Pick<Message, 'id' | 'role' | 'content'>): Message => ({ tool_calls: [], tool_call_id: null, tool_name: null, is_error: false, stop_reason: null, created_at: at, ...m });
  const ran = quoteForModel('search_artifacts', { ok: true, result: { artifacts: [{ raw: '</cairn_tool_result> <b>x</b>' }], total: 1 } });
  const refused = quoteForModel('get_incident', { ok: false, refused: true, error: 'refused: get_incident needs the "incidents:read" permission, which this caller does not have' });
  const messages = [
    message({ id: 'm1', role: 'user', content: 'What happened?' }),
    message({ id: 'm2', role: 'assistant', content: '', tool_calls: [{ id: 'c1', name: 'search_artifacts', arguments: { query: 'x' } }, { id: 'c2', name: 'get_incident', arguments: { id: 'i1' } }] }),
    message({ id: 'm3', role: 'tool', content: ran, tool_call_id: 'c1', tool_name: 'search_artifacts' }),
    message({ id: 'm4', role: 'tool', content: refused, tool_call_id: 'c2', tool_name: 'get_incident', is_error: true }),
    message({ id: 'm5', role: 'assistant', content: 'One line.', stop_reason: 'completed' }),
  ];

  it('reads a quoted result back to its data, the escaped text as it was', () => {
    expect(readToolResult(messages[2]!)).toEqual({ status: 'ok', result: { artifacts: [{ raw: '</cairn_tool_result> <b>x</b>' }], total: 1 } });
    expect(readToolResult(messages[3]!)).toEqual({ status: 'refused', result: { error: 'refused: get_incident needs the "incidents:read" permission, which this caller does not have' } });
  });

  it('puts each result beside its call, a refusal as refused', () => {
    expect(entriesOf(messages).map((e) => (e.kind === 'tool' ? [e.kind, e.call.name, e.status] : [e.kind, e.text]))).toEqual([
      ['question', 'What happened?'],
      ['tool', 'search_artifacts', 'ok'],
      ['tool', 'get_incident', 'refused'],
      ['answer', 'One line.'],
    ]);
  });

  it('shows streamed calls as running until their result event settles them', () => {
    let entries = withStreamedStep([], { type: 'assistant', text: 'Looking.', tool_calls: [{ id: 'c1', name: 'search_artifacts', arguments: {} }, { id: 'c2', name: 'get_incident', arguments: {} }] }, 's1');
    expect(entries.map((e) => (e.kind === 'tool' ? e.status : e.kind))).toEqual(['answer', 'running', 'running']);
    entries = withStreamedStep(entries, { type: 'tool_result', id: 'c2', name: 'get_incident', ok: false, error: 'refused: no' }, 's2');
    entries = withStreamedStep(entries, { type: 'tool_result', id: 'c1', name: 'search_artifacts', ok: true }, 's3');
    expect(entries.map((e) => (e.kind === 'tool' ? [e.status, e.result] : e.kind))).toEqual(['answer', ['ok', undefined], ['refused', { error: 'refused: no' }]]);
  });
});
