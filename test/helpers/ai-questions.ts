// Two questions sent at once to one AI session (issue 38): cairn answers
// them one after the other, so each question is stored right before its
// answer, and the second was put to the model with the first exchange as
// history.
import { expect } from 'vitest';
import type { TestApi } from './api.js';
import type { ChatRequest, ScriptedLlm, ScriptedReply } from './scripted-llm.js';

/** The model answers each question by name, slowly, so two overlap unless cairn answers them one at a time. */
function answerByName(request: ChatRequest): ScriptedReply {
  const question = request.body.messages.filter((m) => m.role === 'user').at(-1)?.content ?? '';
  return { delayMs: 400, then: { text: `answer to ${question}` } };
}

/** Sends "question A" through `urls[0]` and "question B" through `urls[1]` at once; reads the session back through `api`. */
export async function askTwiceAtOnce(llm: ScriptedLlm, api: TestApi, urls: [string, string], token: string, sessionId: string): Promise<void> {
  llm.script([answerByName, answerByName]);
  const post = (url: string, content: string) =>
    fetch(`${url}/api/v1/ai/sessions/${sessionId}/messages`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ content }) });
  const answers = await Promise.all([post(urls[0], 'question A'), post(urls[1], 'question B')]);
  expect(answers.map((r) => r.status)).toEqual([201, 201]);
  const session = (await api.request('GET', `/api/v1/ai/sessions/${sessionId}`, { token })).body.data as { messages: { role: string; content: string }[] };
  const pairs = session.messages.map((m) => [m.role, m.content]);
  const first = pairs[0]?.[1] === 'question B' ? 'B' : 'A';
  const second = first === 'A' ? 'B' : 'A';
  expect(pairs).toEqual([
    ['user', `question ${first}`],
    ['assistant', `answer to question ${first}`],
    ['user', `question ${second}`],
    ['assistant', `answer to question ${second}`],
  ]);
  // The second was put to the model after the first was answered, with that exchange as history.
  const secondRequest = llm.requests.at(-1)!.body.messages.filter((m) => m.role !== 'system').map((m) => m.content);
  expect(secondRequest).toEqual([`question ${first}`, `answer to question ${first}`, `question ${second}`]);
}
