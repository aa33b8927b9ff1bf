// Notifications (issue 15) against real receivers: an SMTP server with
// STARTTLS and one with implicit TLS on a self-signed certificate, an HTTP
// receiver for webhooks and Slack; cooldown with a notifier restart in the
// middle; failing channels; redaction; both path families and their 21 rows.
import { createHmac, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStages } from '../../cli/runtime.js';
import { newId } from '../../lib/ids.js';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { PERMISSIONS } from '../../identity/permissions.js';
import { publish } from '../../pipeline/bus/consume.js';
import type { Subscription } from '../../pipeline/bus/types.js';
import { systemEvents, type SystemEvent } from '../../topics/index.js';
import { startTestApi, type ApiResponse, type TestApi } from '../helpers/api.js';
import { eventually } from '../helpers/buses.js';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from '../helpers/receivers.js';

const PASSWORD = 'notification tests passphrase';

describe('notifications', () => {
  let api: TestApi;
  let admin: string;
  let notifier: Subscription[];
  let starttls: SmtpReceiver;
  let implicitTls: SmtpReceiver;
  let http: HttpReceiver;
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const cookies: Record<string, { cookie: string; csrf: string }> = {};

  beforeAll(async () => {
    [starttls, implicitTls, http] = await Promise.all([startSmtpReceiver('starttls', 587), startSmtpReceiver('tls', 465), startHttpReceiver()]);
    api = await startTestApi({ env: { CAIRN_ORG_ID: orgId, CAIRN_OUTBOUND_ALLOW: '127.0.0.1' } });
    notifier = await startStages(api.runtime, ['notifier']);
    admin = api.token('all', orgId);
    for (const role of ['admin', 'analyst', 'viewer'] as const) {
      const email = `${role}-${randomUUID().slice(0, 6)}@example.com`;
      await api.request('POST', '/api/v1/users', { token: admin, body: { email, name: role, role_id: BUILTIN_ROLES[role].id, password: PASSWORD } });
      const login = await api.request('POST', '/api/v1/auth/login', { body: { email, password: PASSWORD } });
      cookies[role] = { cookie: login.headers.getSetCookie().find((c) => c.startsWith('cairn_session='))!.split(';')[0]!, csrf: (login.body.data as { csrf_token: string }).csrf_token };
    }
  });
  afterAll(async () => {
    await Promise.all(notifier.map((s) => s.stop()));
    await api?.close();
    await Promise.all([starttls?.close(), implicitTls?.close(), http?.close()]);
  });

  const raise = async (type: SystemEvent['type'], summary: string, details: Record<string, unknown> = {}) => {
    const event: SystemEvent = { id: newId(), type, org_id: orgId, occurred_at: new Date().toISOString(), severity: 'warning', summary, details };
    await publish(api.runtime.bus, systemEvents, [event]);
    return event;
  };
  const create = async (path: string, body: unknown) => {
    const res = await api.request('POST', path, { token: admin, body });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string };
  };
  const history = async (query: string) => (await api.request('GET', `/api/v1/notifications/history?${query}`, { headers: { cookie: cookies.admin!.cookie } })).body.data as { history: { status: string; message: string; event_id: string; attempts: number }[]; total: number };
  const emailSettings = (receiver: SmtpReceiver, mode: 'starttls' | 'tls') => ({
    smtp_host: '127.0.0.1',
    smtp_port: mode === 'tls' ? 465 : 587,
    from_address: 'cairn@example.com',
    from_name: 'cairn alerts',
    tls_mode: mode,
    ca_certificate: receiver.certificate,
    recipients: 'soc@example.com, oncall@example.com',
  });

  it('mails through STARTTLS and implicit TLS with the right from, recipients and subject', async () => {
    const channels = [];
    for (const [mode, receiver] of [['starttls', starttls], ['tls', implicitTls]] as const) {
      channels.push((await create('/api/v1/notification-channels', { name: `mail ${mode}`, type: 'email', settings: emailSettings(receiver, mode) })).id);
    }
    const rule = await create('/api/v1/notification-rules', { name: 'config changes by mail', event_types: ['system.config_changed'], channel_ids: channels, cooldown_minutes: 0 });
    const event = await raise('system.config_changed', 'auth settings changed by someone');
    for (const receiver of [starttls, implicitTls]) {
      await eventually(() => expect(receiver.mails.length).toBeGreaterThan(0), 20_000);
      const mail = receiver.mails.at(-1)!;
      expect(mail.from).toBe('cairn@example.com');
      expect(mail.to).toEqual(['soc@example.com', 'oncall@example.com']);
      expect(mail.subject).toContain('system.config_changed: auth settings changed by someone');
      expect(mail.raw).toMatch(/^From: cairn alerts <cairn@example.com>/m);
      expect(mail.secure).toBe(true);
    }
    await eventually(async () => expect((await history(`rule_id=${rule.id}`)).history.filter((h) => h.event_id === event.id && h.status === 'sent').length).toBe(2));
    await api.request('PUT', `/api/v1/notification-rules/${rule.id}`, { token: admin, body: { enabled: false } });
  });

  it('posts webhooks with the method, bearer token, custom headers and a signature the receiver verifies, and Slack-shaped JSON', async () => {
    const signingSecret = `whsec-${randomUUID()}`;
    const token = `tok-${randomUUID()}`;
    const hook = await create('/api/v1/notification-channels', {
      name: 'soar webhook',
      type: 'webhook',
      settings: { url: `${http.url}/hook`, method: 'PUT', auth_type: 'bearer', auth_token: token, headers: { 'X-Team': 'blue' }, signing_secret: signingSecret },
    });
    const slack = await create('/api/v1/notification-channels', { name: 'slack', type: 'slack', settings: { webhook_url: `${http.url}/slack/T000/B000/XXXX`, channel: '#alerts', username: 'cairn-bot' } });
    await create('/api/v1/notification-rules', { name: 'services down', event_types: ['system.service_down'], channel_ids: [hook.id, slack.id], cooldown_minutes: 0 });
    const event = await raise('system.service_down', 'correlator is down', { subject: 'correlator' });
    await eventually(() => expect(http.requests.filter((r) => r.path === '/hook' || r.path.startsWith('/slack')).length).toBe(2), 20_000);

    const received = http.requests.find((r) => r.path === '/hook')!;
    expect(received.method).toBe('PUT');
    expect(received.headers.authorization).toBe(`Bearer ${token}`);
    expect(received.headers['x-team']).toBe('blue');
    const [, t, v1] = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(received.headers['x-cairn-signature']))!;
    expect(createHmac('sha256', signingSecret).update(`${t}.${received.body}`).digest('hex')).toBe(v1);
    expect(Math.abs(Date.now() / 1000 - Number(t))).toBeLessThan(60);
    expect(JSON.parse(received.body)).toMatchObject({ version: 1, event: { id: event.id, type: 'system.service_down', summary: 'correlator is down' }, rule: { name: 'services down' }, suppressed: 0 });

    const posted = JSON.parse(http.requests.find((r) => r.path.startsWith('/slack'))!.body) as { channel: string; username: string; text: string; attachments: { fields: { title: string; value: string }[] }[] };
    expect(posted).toMatchObject({ channel: '#alerts', username: 'cairn-bot' });
    expect(posted.text).toContain('system.service_down');
    expect(posted.attachments[0]!.fields.map((f) => f.title)).toEqual(expect.arrayContaining(['Event', 'Severity', 'Link']));
  });

  it('sends the first of 5 events inside a cooldown and skips 4, across a notifier restart; the next message after it counts them', async () => {
    const hook = await create('/api/v1/notification-channels', { name: 'cooldown hook', type: 'webhook', settings: { url: `${http.url}/cooldown` } });
    const rule = await create('/api/v1/notification-rules', { name: 'capacity', event_types: ['system.capacity_warning'], channel_ids: [hook.id] });
    expect((await api.request('GET', `/api/v1/notifications/rules/${rule.id}`, { headers: { cookie: cookies.admin!.cookie } })).body.data).toMatchObject({ cooldown_minutes: 15 });
    const events = [];
    for (let i = 0; i < 2; i++) events.push(await raise('system.capacity_warning', `lag high ${i}`));
    await eventually(async () => expect((await history(`rule_id=${rule.id}`)).total).toBe(2));
    await Promise.all(notifier.map((s) => s.stop()));
    notifier = await startStages(api.runtime, ['notifier']);
    for (let i = 2; i < 5; i++) events.push(await raise('system.capacity_warning', `lag high ${i}`));
    await eventually(async () => expect((await history(`rule_id=${rule.id}`)).total).toBe(5), 20_000);
    const entries = (await history(`rule_id=${rule.id}&limit=10`)).history;
    expect(entries.filter((e) => e.status === 'sent').map((e) => e.event_id)).toEqual([events[0]!.id]);
    expect(entries.filter((e) => e.status === 'skipped')).toHaveLength(4);
    expect(http.requests.filter((r) => r.path === '/cooldown')).toHaveLength(1);

    // The cooldown ends as its hot-state key expires; removing it is that expiry, without waiting 15 minutes.
    await api.runtime.state.delete(`notify:cooldown:${rule.id}`);
    await raise('system.capacity_warning', 'lag high again');
    await eventually(() => expect(http.requests.filter((r) => r.path === '/cooldown')).toHaveLength(2), 20_000);
    expect(JSON.parse(http.requests.filter((r) => r.path === '/cooldown')[1]!.body)).toMatchObject({ suppressed: 4 });
  });

  it('applies a rule change to the very next event: the notifier caches rules until a change is announced', async () => {
    const hook = await create('/api/v1/notification-channels', { name: 'cache hook', type: 'webhook', settings: { url: `${http.url}/cache` } });
    const rule = await create('/api/v1/notification-rules', { name: 'cached', event_types: ['incident.severity_raised'], channel_ids: [hook.id], cooldown_minutes: 0 });
    const sent = await raise('incident.severity_raised', 'severity raised to high');
    await eventually(() => expect(http.requests.filter((r) => r.path === '/cache')).toHaveLength(1), 20_000);
    expect(JSON.parse(http.requests.find((r) => r.path === '/cache')!.body)).toMatchObject({ event: { id: sent.id } });

    expect((await api.request('PUT', `/api/v1/notification-rules/${rule.id}`, { token: admin, body: { enabled: false } })).status).toBe(200);
    const unsent = await raise('incident.severity_raised', 'severity raised to critical');
    // A later event of another rule shows the notifier has handled the one before it (it handles events in order).
    const other = await create('/api/v1/notification-rules', { name: 'after', event_types: ['incident.created'], channel_ids: [hook.id], cooldown_minutes: 0 });
    const marker = await raise('incident.created', 'marker');
    await eventually(async () => expect((await history(`rule_id=${other.id}`)).history.map((h) => h.event_id)).toEqual([marker.id]), 20_000);
    expect((await history(`rule_id=${rule.id}`)).history.map((h) => h.event_id)).toEqual([sent.id]);
    expect(http.requests.filter((r) => r.path === '/cache').map((r) => JSON.parse(r.body).event.id)).not.toContain(unsent.id);

    expect((await api.request('PUT', `/api/v1/notification-rules/${rule.id}`, { token: admin, body: { enabled: true } })).status).toBe(200);
    const again = await raise('incident.severity_raised', 'severity raised again');
    await eventually(async () => expect((await history(`rule_id=${rule.id}`)).history.map((h) => h.event_id)).toContain(again.id), 20_000);
    for (const { id } of [rule, other]) await api.request('DELETE', `/api/v1/notification-rules/${id}`, { token: admin });
  });

  it('records a failing channel as failed with the error text and goes on with the next event', async () => {
    const refusing = await create('/api/v1/notification-channels', { name: 'refused mail', type: 'email', settings: emailSettings(starttls, 'starttls') });
    const broken = await create('/api/v1/notification-channels', { name: 'broken hook', type: 'webhook', settings: { url: `${http.url}/broken` } });
    const good = await create('/api/v1/notification-channels', { name: 'good hook', type: 'webhook', settings: { url: `${http.url}/good` } });
    const failing = await create('/api/v1/notification-rules', { name: 'cert expiry', event_types: ['system.cert_expiring'], channel_ids: [refusing.id, broken.id], cooldown_minutes: 0 });
    await create('/api/v1/notification-rules', { name: 'exporters', event_types: ['exporter.failure'], channel_ids: [good.id], cooldown_minutes: 0 });
    starttls.refuse(550);
    http.answer(500);
    try {
      await raise('system.cert_expiring', 'cairn.example expires in 10 days');
      await eventually(async () => expect((await history(`rule_id=${failing.id}&status=failed`)).total).toBe(2), 30_000, 200);
    } finally {
      starttls.refuse(null);
      http.answer(200);
    }
    const failed = (await history(`rule_id=${failing.id}`)).history;
    expect(failed.map((f) => f.message).join('\n')).toMatch(/550/);
    expect(failed.find((f) => /HTTP 500/.test(f.message))).toMatchObject({ attempts: 3 });
    await raise('exporter.failure', 'syslog exporter cannot connect');
    await eventually(() => expect(http.requests.filter((r) => r.path === '/good')).toHaveLength(1), 20_000);
  });

  it('redacts secrets in every answer and keeps them sealed in the store; an update without them keeps them', async () => {
    const secret = `secret-${randomUUID()}`;
    const channel = await create('/api/v1/notification-channels', { name: 'sealed', type: 'webhook', settings: { url: `${http.url}/sealed`, auth_type: 'bearer', auth_token: secret, signing_secret: secret } });
    const shown = await api.request('GET', `/api/v1/notifications/channels/${channel.id}`, { headers: { cookie: cookies.admin!.cookie } });
    expect(shown.text).not.toContain(secret);
    expect((shown.body.data as { settings: Record<string, string> }).settings).toMatchObject({ auth_token: '[redacted]', signing_secret: '[redacted]' });
    const listed = await api.request('GET', '/api/v1/notification-channels', { token: admin });
    expect(listed.text).not.toContain(secret);
    const updated = await api.request('PUT', `/api/v1/notification-channels/${channel.id}`, { token: admin, body: { name: 'sealed, renamed', settings: { auth_token: '[redacted]', headers: { 'X-A': 'b' } } } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.text).not.toContain(secret);
    const row = await api.runtime.store.query({ query: 'SELECT settings FROM notification_channels FINAL WHERE id = {id:UUID}', query_params: { id: channel.id }, format: 'JSONEachRow' });
    expect(await row.text()).not.toContain(secret);
    // The kept secret still works: the test message carries it.
    const test = await api.request('POST', `/api/v1/notification-channels/${channel.id}/test`, { token: admin });
    expect(test.body.data).toMatchObject({ success: true });
    expect(http.requests.find((r) => r.path === '/sealed')!.headers.authorization).toBe(`Bearer ${secret}`);
    const audit = await api.request('GET', `/api/v1/audit-log?target_id=${channel.id}`, { token: admin });
    expect(audit.text).not.toContain(secret);
  });

  it('answers a failing test message with the error text, recorded in the history', async () => {
    const channel = await create('/api/v1/notification-channels', { name: 'nowhere', type: 'webhook', settings: { url: 'http://127.0.0.1:1/nothing-listens' } });
    const res = await api.request('POST', `/api/v1/notification-channels/${channel.id}/test`, { token: admin });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ success: false, message: expect.stringMatching(/ECONNREFUSED|refused/) });
    expect((await history(`channel_id=${channel.id}&event_type=notification.test`)).history[0]).toMatchObject({ status: 'failed' });
  });

  it('refuses invalid settings with a 400 naming the field, and a channel in use with a 409 naming the rules', async () => {
    const cases: [unknown, string][] = [
      [{ name: 'x', type: 'email', settings: { ...emailSettings(starttls, 'starttls'), smtp_port: 2525 } }, 'smtp_port'],
      [{ name: 'x', type: 'email', settings: { ...emailSettings(starttls, 'starttls'), recipients: 'soc@example.com, not-an-address' } }, 'recipients'],
      [{ name: 'x', type: 'webhook', settings: { url: `${http.url}/x`, method: 'GET' } }, 'method'],
      [{ name: 'x', type: 'slack', settings: { webhook_url: 'not a url' } }, 'webhook_url'],
      [{ name: 'x', type: 'webhook', settings: { url: `${http.url}/x`, auth_type: 'bearer' } }, 'auth_token'],
      [{ name: 'x', type: 'pager', settings: {} }, 'type'],
    ];
    for (const [body, field] of cases) {
      const res = await api.request('POST', '/api/v1/notification-channels', { token: admin, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message, JSON.stringify(body)).toContain(field);
    }
    const used = await create('/api/v1/notification-channels', { name: 'in use', type: 'webhook', settings: { url: `${http.url}/used` } });
    await create('/api/v1/notification-rules', { name: 'uses it', event_types: ['auth.failure'], channel_ids: [used.id] });
    const refused = await api.request('DELETE', `/api/v1/notifications/channels/${used.id}`, { headers: { cookie: cookies.admin!.cookie, origin: api.url } });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('"uses it"');
    expect((await api.request('POST', '/api/v1/notification-rules', { token: admin, body: { name: 'x', event_types: ['auth.failure'], channel_ids: [randomUUID()] } })).status).toBe(400);
  });

  it('walks the 21 rows of SPEC 4.12: family A takes a token with settings:manage, family B only the session', async () => {
    const channel = await create('/api/v1/notification-channels', { name: 'walk', type: 'webhook', settings: { url: `${http.url}/walk` } });
    const rule = await create('/api/v1/notification-rules', { name: 'walk', event_types: ['auth.failure'], channel_ids: [channel.id] });
    const spare = async () => (await create('/api/v1/notification-channels', { name: 'spare', type: 'webhook', settings: { url: `${http.url}/spare` } })).id;
    const spareRule = async () => (await create('/api/v1/notification-rules', { name: 'spare', event_types: ['auth.failure'], channel_ids: [channel.id] })).id;
    const newChannel = { name: 'row', type: 'webhook', settings: { url: `${http.url}/row` } };
    type Row = { method: string; path: string | (() => Promise<string>); body?: unknown; ok: number; family: 'A' | 'B'; write: boolean };
    const rows: Row[] = [
      { family: 'A', method: 'GET', path: '/api/v1/notification-channels', ok: 200, write: false },
      { family: 'A', method: 'POST', path: '/api/v1/notification-channels', body: newChannel, ok: 201, write: true },
      { family: 'A', method: 'PUT', path: `/api/v1/notification-channels/${channel.id}`, body: { name: 'walk 2' }, ok: 200, write: true },
      { family: 'A', method: 'DELETE', path: async () => `/api/v1/notification-channels/${await spare()}`, ok: 200, write: true },
      { family: 'A', method: 'POST', path: `/api/v1/notification-channels/${channel.id}/test`, ok: 200, write: true },
      { family: 'A', method: 'GET', path: '/api/v1/notification-rules', ok: 200, write: false },
      { family: 'A', method: 'POST', path: '/api/v1/notification-rules', body: { name: 'row', event_types: ['auth.failure'], channel_ids: [channel.id] }, ok: 201, write: true },
      { family: 'A', method: 'PUT', path: `/api/v1/notification-rules/${rule.id}`, body: { cooldown_minutes: 5 }, ok: 200, write: true },
      { family: 'A', method: 'DELETE', path: async () => `/api/v1/notification-rules/${await spareRule()}`, ok: 200, write: true },
      { family: 'B', method: 'GET', path: '/api/v1/notifications/channels', ok: 200, write: false },
      { family: 'B', method: 'POST', path: '/api/v1/notifications/channels', body: newChannel, ok: 201, write: true },
      { family: 'B', method: 'GET', path: `/api/v1/notifications/channels/${channel.id}`, ok: 200, write: false },
      { family: 'B', method: 'PUT', path: `/api/v1/notifications/channels/${channel.id}`, body: { name: 'walk 3' }, ok: 200, write: true },
      { family: 'B', method: 'DELETE', path: async () => `/api/v1/notifications/channels/${await spare()}`, ok: 200, write: true },
      { family: 'B', method: 'POST', path: `/api/v1/notifications/channels/${channel.id}/test`, ok: 200, write: true },
      { family: 'B', method: 'GET', path: '/api/v1/notifications/rules', ok: 200, write: false },
      { family: 'B', method: 'POST', path: '/api/v1/notifications/rules', body: { name: 'row', event_types: ['auth.failure'], channel_ids: [channel.id] }, ok: 201, write: true },
      { family: 'B', method: 'GET', path: `/api/v1/notifications/rules/${rule.id}`, ok: 200, write: false },
      { family: 'B', method: 'PUT', path: `/api/v1/notifications/rules/${rule.id}`, body: { enabled: false }, ok: 200, write: true },
      { family: 'B', method: 'DELETE', path: async () => `/api/v1/notifications/rules/${await spareRule()}`, ok: 200, write: true },
      { family: 'B', method: 'GET', path: '/api/v1/notifications/history', ok: 200, write: false },
    ];
    expect(rows).toHaveLength(21);
    const session = (role: 'admin' | 'analyst' | 'viewer') => ({ cookie: cookies[role]!.cookie, 'x-csrf-token': cookies[role]!.csrf });
    for (const row of rows) {
      const label = `${row.family} ${row.method}`;
      const path = typeof row.path === 'string' ? row.path : await row.path();
      const send = (options: { token?: string; headers?: Record<string, string> }) => api.request(row.method, path, { ...options, body: row.body });
      expect((await send({})).status, `${label} ${path} with nothing`).toBe(401);
      let answer: ApiResponse;
      if (row.family === 'A') {
        expect((await send({ token: api.token(PERMISSIONS.filter((p) => p !== 'settings:manage'), orgId) })).status, `${label} ${path} without settings:manage`).toBe(403);
        answer = await send({ token: api.token(['settings:manage'], orgId) });
      } else {
        expect((await send({ token: admin })).status, `${label} ${path} with a bearer token alone`).toBe(401);
        // Reads need settings:read (the viewer role lacks it); changes settings:manage (the analyst role lacks it).
        expect((await send({ headers: session(row.write ? 'analyst' : 'viewer') })).status, `${label} ${path} without the permission`).toBe(403);
        answer = await send({ headers: session('admin') });
      }
      expect(answer.status, `${label} ${path}: ${answer.text.slice(0, 200)}`).toBe(row.ok);
    }
    expect((await api.request('GET', '/api/v1/notifications/channels/not-a-uuid', { headers: session('admin') })).status).toBe(400);
    expect((await api.request('GET', `/api/v1/notifications/channels/${randomUUID()}`, { headers: session('admin') })).status).toBe(404);
  });
});
