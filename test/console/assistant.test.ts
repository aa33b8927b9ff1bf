// The AI assistant panel in a real browser (issue 41, item 6): a question
// answered by a scripted model (an OpenAI-compatible server the test runs)
// that calls two tools, one the user's role allows and one it refuses; the
// steps arrive while the answer is still on its way; each call with its
// arguments and result as the API stored them in the session; past sessions
// opened again; a provider's 429 shown plainly; and no panel for a role
// without ai:read or where no AI configuration is usable.
import { randomUUID } from 'node:crypto';
import type { Browser, Locator } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { expectAccessible, launchBrowser, logIn, openConsole, screenshotBothSchemes, type ConsolePage } from '../helpers/browser.js';
import { startScriptedLlm, type ChatRequest, type ScriptedLlm } from '../helpers/scripted-llm.js';

const PASSWORD = 'correct horse battery staple';
const ATTACKER = '198.51.100.7';
const FAILURES = 3;

interface StoredMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string;
  tool_calls: { id: string; name: string; arguments: unknown }[];
  tool_call_id: string | null;
  tool_name: string | null;
  is_error: boolean;
  stop_reason: string | null;
}
interface StoredSession {
  id: string;
  title: string;
  messages: StoredMessage[];
}

/** A stored tool result's status and data, read apart from the console's own reading (docs/ai.md: a quoted block, the JSON on its last line). */
function storedResult(content: string): { status: string; data: unknown } {
  const lines = content.split('\n');
  return { status: /status="(\w+)"/.exec(lines[0]!)![1]!, data: JSON.parse(lines.at(-2)!) as unknown };
}

describe('the assistant panel in a browser', () => {
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  // Reads events and asks the assistant, but not incidents: the model's call to list_incidents is refused.
  const hunter = { email: `hunter-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  // Reads incidents and events, no ai:read.
  const triager = { email: `triager-${randomUUID().slice(0, 6)}@example.com`, password: PASSWORD };
  let api: TestApi;
  let llm: ScriptedLlm;
  let admin: string;
  let configId: string;
  let browser: Browser;
  const opened: ConsolePage[] = [];

  async function open(): Promise<ConsolePage> {
    const consolePage = await openConsole(browser, api.url);
    opened.push(consolePage);
    return consolePage;
  }

  const toolEntry = (panel: Locator, name: string) => panel.getByRole('log', { name: 'Conversation' }).locator('details').filter({ has: panel.page().locator('summary code', { hasText: new RegExp(`^${name}$`) }) });

  beforeAll(async () => {
    [llm, api] = await Promise.all([
      startScriptedLlm(),
      startTestApi({ stages: ['store'], env: { CAIRN_ORG_ID: orgId, CAIRN_OUTBOUND_ALLOW: '127.0.0.1', CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: '100000' } }),
    ]);
    admin = api.token('all', orgId);
    const config = await api.request('POST', '/api/v1/ai/configs', { token: admin, body: { name: 'scripted', provider: 'openai', base_url: llm.url, model: 'test-model', api_key: 'sk-test' } });
    expect(config.status, config.text).toBe(201);
    configId = (config.body.data as { id: string }).id;
    for (const [who, name, permissions] of [
      [hunter, 'AI hunter', ['ai:read', 'signals:read']],
      [triager, 'Triage only', ['incidents:read', 'signals:read', 'observations:read']],
    ] as const) {
      const role = await api.request('POST', '/api/v1/roles', { token: admin, body: { name, permissions } });
      expect(role.status, role.text).toBe(201);
      const user = await api.request('POST', '/api/v1/users', { token: admin, body: { email: who.email, name, role_id: (role.body.data as { id: string }).id, password: who.password } });
      expect(user.status, user.text).toBe(201);
    }
    const now = Date.now();
    const artifacts = Array.from({ length: FAILURES }, (_, i) => ({
      source: 'auth',
      timestamp: new Date(now - (i + 1) * 60_000).toISOString(),
      raw: `Nov 27 10:0${i}:00 bastion sshd[${2000 + i}]: Failed password for root from ${ATTACKER} port ${50000 + i} ssh2`,
    }));
    const ingested = await api.request('POST', '/api/v1/artifacts', { token: admin, body: { artifacts } });
    expect(ingested.status, ingested.text).toBe(202);
    await eventually(async () => {
      const found = await api.request('GET', `/api/v1/artifacts?q=${encodeURIComponent('"Failed password"')}`, { token: admin });
      expect((found.body.data as { total: number }).total).toBe(FAILURES);
    }, 30_000);
    browser = await launchBrowser();
  });

  afterAll(async () => {
    for (const { context } of opened) await context.close().catch(() => undefined);
    await browser?.close();
    await Promise.all([api?.close(), llm?.close()]);
  });

  it('answers a question with a tool call then text, streaming each step, showing each call and result as the API stored them', async () => {
    const { page, problems } = await open();
    await logIn(page, hunter);
    const toggle = page.getByRole('banner').getByRole('button', { name: 'Assistant', exact: true });
    await toggle.click();
    const panel = page.getByRole('complementary', { name: 'Assistant' });
    await panel.getByRole('heading', { name: 'Assistant', level: 2 }).waitFor();
    expect(await toggle.getAttribute('aria-expanded')).toBe('true');
    // Keyboard: the question box has the focus once the panel opens, and Enter asks.
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('assistant-question');

    const start = new Date(Date.now() - 3_600_000).toISOString();
    const question = `Who failed to log in over SSH in the last hour?`;
    let answer = '';
    llm.script([
      { text: 'Let me search the events.', toolCalls: [{ name: 'search_artifacts', arguments: { query: '"Failed password"', start } }, { name: 'list_incidents', arguments: { limit: 5 } }] },
      (request: ChatRequest) => {
        const found = request.body.messages.find((m) => m.role === 'tool' && m.content?.includes('tool="search_artifacts"'))?.content ?? '';
        const count = found.split(`from ${ATTACKER} port`).length - 1;
        answer = `${count} failed SSH logins for root, all from ${ATTACKER}. I may not read incidents with your permissions.`;
        // Slow, so the page is seen with the tool steps and no answer yet.
        return { delayMs: 1500, then: { text: answer } };
      },
    ]);
    const box = panel.getByLabel('Question');
    await box.fill(question);
    await box.press('Enter');
    const log = panel.getByRole('log', { name: 'Conversation' });
    // Streamed: the calls and their outcome are on the page while the model is still writing its answer.
    await toolEntry(panel, 'search_artifacts').locator('summary', { hasText: 'ran' }).waitFor();
    await toolEntry(panel, 'list_incidents').locator('summary', { hasText: 'refused' }).waitFor();
    expect(await panel.getByRole('status').textContent()).toBe('Answering…');
    expect(await log.getByText(/failed SSH logins for root/).count()).toBe(0);
    await log.getByText(/failed SSH logins for root/).waitFor();
    await expect.poll(() => panel.getByRole('status').textContent()).toBe('');
    expect(answer).toBe(`${FAILURES} failed SSH logins for root, all from ${ATTACKER}. I may not read incidents with your permissions.`);

    // The session as the API recorded it, read with the hunter's own token (sessions belong to their user).
    const login = await api.request('POST', '/api/v1/auth/login', { body: hunter });
    const token = (login.body.data as { token: string }).token;
    const listed = (await api.request('GET', '/api/v1/ai/sessions', { token })).body.data as { sessions: { id: string; title: string }[] };
    expect(listed.sessions).toHaveLength(1);
    const session = (await api.request('GET', `/api/v1/ai/sessions/${listed.sessions[0]!.id}`, { token })).body.data as StoredSession;
    expect(session.title).toBe(question);
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'tool', 'assistant']);
    const [asked, calls, , , final] = session.messages;
    expect(asked!.content).toBe(question);
    expect(final).toMatchObject({ role: 'assistant', content: answer, stop_reason: 'completed' });
    expect(calls!.tool_calls.map((c) => c.name)).toEqual(['search_artifacts', 'list_incidents']);

    // Each call shows its arguments and its result exactly as stored: the first ran, the second was refused.
    const shownText = async (entry: Locator, heading: string) => entry.locator(`h4:text-is("${heading}") + *`).textContent();
    for (const call of calls!.tool_calls) {
      const result = session.messages.find((m) => m.role === 'tool' && m.tool_call_id === call.id)!;
      const stored = storedResult(result.content);
      const entry = toolEntry(panel, call.name);
      await entry.locator('summary').click();
      expect(await entry.getAttribute('open')).toBe('');
      expect(await shownText(entry, 'Arguments')).toBe(JSON.stringify(call.arguments, null, 2));
      if (call.name === 'search_artifacts') {
        expect(stored.status).toBe('ok');
        expect(result.is_error).toBe(false);
        expect((stored.data as { total: number }).total).toBe(FAILURES);
        expect(await entry.locator('summary').textContent()).toBe('Tool search_artifacts: ran');
        expect(await shownText(entry, 'Result')).toBe(JSON.stringify(stored.data, null, 2));
      } else {
        expect(stored.status).toBe('refused');
        expect(result.is_error).toBe(true);
        expect(await entry.locator('summary').textContent()).toBe('Tool list_incidents: refused');
        expect(await shownText(entry, 'Result')).toBe((stored.data as { error: string }).error);
        expect((stored.data as { error: string }).error).toContain('needs the "incidents:read" permission');
      }
    }
    expect(await log.locator('.assistant-question').allTextContents()).toEqual([`You${question}`]);
    expect(await log.locator('.assistant-answer .text').allTextContents()).toEqual(['Let me search the events.', answer]);
    // Pictured with the refusal open and the answer in view.
    await toolEntry(panel, 'search_artifacts').locator('summary').click();
    await log.evaluate((element) => (element.scrollTop = element.scrollHeight));
    await expectAccessible(page);
    await screenshotBothSchemes(page, 'assistant');

    // A new session is empty; the past one opens again with the same conversation.
    await panel.getByRole('button', { name: 'New session' }).click();
    await panel.getByRole('heading', { name: 'New session', level: 3 }).waitFor();
    expect(await log.locator('li').count()).toBe(0);
    await panel.getByRole('button', { name: 'Past sessions' }).click();
    const pastList = panel.getByRole('list', { name: 'Past sessions' });
    expect(await pastList.getByRole('button').allTextContents()).toEqual([session.title]);
    await pastList.getByRole('button', { name: session.title }).click();
    await panel.getByRole('heading', { name: session.title, level: 3 }).waitFor();
    await log.getByText(answer).waitFor();
    expect(await log.locator('details').count()).toBe(2);

    // Esc closes the panel and gives the focus back to its button.
    await box.focus();
    await page.keyboard.press('Escape');
    await panel.waitFor({ state: 'hidden' });
    await expect.poll(() => page.evaluate(() => document.activeElement?.id)).toBe('assistant-toggle');
    expect(await toggle.getAttribute('aria-expanded')).toBe('false');
    expect(problems).toEqual([]);
  }, 90_000);

  it("shows a provider's rate limit in plain words and keeps the question in the session", async () => {
    const { page, problems } = await open();
    await logIn(page, hunter);
    await page.getByRole('button', { name: 'Assistant', exact: true }).click();
    const panel = page.getByRole('complementary', { name: 'Assistant' });
    llm.script([{ status: 429, error: 'Rate limit reached for test-model: 3 requests per minute' }]);
    await panel.getByLabel('Question').fill('And yesterday?');
    await panel.getByRole('button', { name: 'Ask' }).click();
    const alert = panel.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^The model's provider is limiting requests \(HTTP 429\): .*Rate limit reached for test-model: 3 requests per minute.*The question is kept in this session/);
    const log = panel.getByRole('log', { name: 'Conversation' });
    await log.getByText('And yesterday?').waitFor();
    // The failure as the API stored it: an assistant entry with the provider's message.
    const failure = log.locator('.assistant-answer .text.error');
    expect(await failure.textContent()).toContain('Rate limit reached for test-model');
    const login = await api.request('POST', '/api/v1/auth/login', { body: hunter });
    const token = (login.body.data as { token: string }).token;
    const listed = (await api.request('GET', '/api/v1/ai/sessions', { token })).body.data as { sessions: { id: string; title: string }[] };
    const session = (await api.request('GET', `/api/v1/ai/sessions/${listed.sessions.find((s) => s.title === 'And yesterday?')!.id}`, { token })).body.data as StoredSession;
    expect(session.messages.map((m) => [m.role, m.is_error, m.stop_reason])).toEqual([
      ['user', false, null],
      ['assistant', true, 'provider_error'],
    ]);
    expect(await failure.textContent()).toBe(session.messages[1]!.content);
    expect(problems).toEqual([]);
  });

  it('offers no assistant to a role without ai:read, nor where no AI configuration is usable', async () => {
    const { page: withoutPermission } = await open();
    const statusAsked: string[] = [];
    withoutPermission.on('request', (request) => {
      if (request.url().includes('/api/v1/ai/')) statusAsked.push(request.url());
    });
    await logIn(withoutPermission, triager);
    // The navigation has loaded for this role (Incidents), and no Assistant button beside Log out.
    await withoutPermission.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Incidents' }).waitFor();
    expect(await withoutPermission.getByRole('button', { name: 'Assistant', exact: true }).count()).toBe(0);
    expect(await withoutPermission.getByRole('complementary', { name: 'Assistant' }).count()).toBe(0);
    expect(statusAsked).toEqual([]);
    const triagerToken = ((await api.request('POST', '/api/v1/auth/login', { body: triager })).body.data as { token: string }).token;
    expect((await api.request('GET', '/api/v1/ai/status', { token: triagerToken })).status).toBe(403);

    // The configuration disabled: the hunter has ai:read, and the status says no assistant.
    expect((await api.request('PUT', `/api/v1/ai/configs/${configId}`, { token: admin, body: { enabled: false } })).status).toBe(200);
    try {
      const hunterToken = ((await api.request('POST', '/api/v1/auth/login', { body: hunter })).body.data as { token: string }).token;
      const status = await api.request('GET', '/api/v1/ai/status', { token: hunterToken });
      expect(status.body.data).toEqual({ available: false });
      const { page: noConfig } = await open();
      const asked = noConfig.waitForResponse((response) => response.url().endsWith('/api/v1/ai/status'));
      await logIn(noConfig, hunter);
      expect(((await (await asked).json()) as { data: unknown }).data).toEqual({ available: false });
      expect(await noConfig.getByRole('button', { name: 'Assistant', exact: true }).count()).toBe(0);
      await expectAccessible(noConfig);
    } finally {
      await api.request('PUT', `/api/v1/ai/configs/${configId}`, { token: admin, body: { enabled: true } });
    }
  });
});

