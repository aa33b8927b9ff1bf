// Two API processes sharing the hot state (Redis) and the store take two
// questions to one AI session at once: the session's lock lives in the
// shared state, so they are answered one after the other (issue 38). The
// second process is a second app with its own Redis connection, as a
// separate process would have: nothing in memory is shared between them.
// (A file of its own: the embedded store allows one data directory per process.)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.js';
import { createHotState } from '../../pipeline/state/index.js';
import type { HotState } from '../../pipeline/state/types.js';
import { askTwiceAtOnce } from '../helpers/ai-questions.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { startScriptedLlm, type ScriptedLlm } from '../helpers/scripted-llm.js';

describe('questions sent at once to one session through two API processes', () => {
  let api: TestApi;
  let llm: ScriptedLlm;
  let secondState: HotState;
  let second: http.Server;

  beforeAll(async () => {
    [llm, api] = await Promise.all([startScriptedLlm(), startTestApi({ distributed: true, env: { CAIRN_OUTBOUND_ALLOW: '127.0.0.1' } })]);
    secondState = await createHotState(api.runtime.config);
    second = http.createServer(createApp({ ...api.runtime, state: secondState }).callback());
    await new Promise<void>((resolve) => second.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    second?.closeAllConnections();
    await new Promise((resolve) => second?.close(resolve));
    await secondState?.close();
    await Promise.all([api?.close(), llm?.close()]);
  });

  it('answers them one after the other, each question followed by its answer', async () => {
    const token = api.token('all', `org-${randomUUID().slice(0, 8)}`);
    const config = await api.request('POST', '/api/v1/ai/configs', { token, body: { name: 'scripted', provider: 'openai', base_url: llm.url, model: 'test-model' } });
    expect(config.status, config.text).toBe(201);
    const session = await api.request('POST', '/api/v1/ai/sessions', { token, body: {} });
    expect(session.status, session.text).toBe(201);
    const secondUrl = `http://127.0.0.1:${(second.address() as AddressInfo).port}`;
    await askTwiceAtOnce(llm, api, [api.url, secondUrl], token, (session.body.data as { id: string }).id);
  });
});
