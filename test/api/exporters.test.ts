// Artifact exporters (issue 15, point 7) against real receivers this test
// starts: a syslog TCP receiver that parses octet-counted RFC 5424 frames,
// and an HTTP receiver. Matching artifacts arrive, others do not; with the
// receiver down the exporter raises exporter.failure once and waits, and when
// it is back every matching artifact arrives, none twice. Secrets are
// redacted and sealed at rest; settings errors are 400s naming the field;
// permissions are 401/403.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PERMISSIONS } from '../../identity/permissions.js';
import type { LocalBus } from '../../pipeline/bus/local/local-bus.js';
import type { DeliveredMessage, Subscription } from '../../pipeline/bus/types.js';
import { failureMarkKey } from '../../pipeline/exporters/runner.js';
import { systemEvents } from '../../topics/index.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { eventually, uniqueName } from '../helpers/buses.js';

interface SyslogMessage {
  priority: number;
  version: string;
  timestamp: string;
  appName: string;
  msgId: string;
  artifactId: string;
  source: string;
  msg: string;
}

/** RFC 5424 with cairn's structured data: <PRI>1 TIMESTAMP HOST APP PROCID MSGID [cairn@32473 artifact_id="..." source="..."] MSG */
function parseSyslog(text: string): SyslogMessage {
  const m = /^<(\d{1,3})>(1) (\S+) (\S+) (\S+) (\S+) (\S+) \[cairn@32473 artifact_id="([^"]+)" source="((?:[^"\\]|\\.)*)"\] (.*)$/s.exec(text);
  if (!m) throw new Error(`not an RFC 5424 message from cairn: ${text.slice(0, 200)}`);
  return { priority: Number(m[1]), version: m[2]!, timestamp: m[3]!, appName: m[5]!, msgId: m[7]!, artifactId: m[8]!, source: m[9]!.replace(/\\(.)/g, '$1'), msg: m[10]! };
}

/** A syslog receiver over TCP reading octet-counted frames (RFC 6587 3.4.1); it can stop and start again on the same port. */
class SyslogReceiver {
  readonly messages: SyslogMessage[] = [];
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  port = 0;

  async start(): Promise<void> {
    const server = net.createServer((socket) => {
      this.sockets.add(socket);
      let pending = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        for (;;) {
          const space = pending.indexOf(0x20);
          if (space < 0) break;
          const length = Number(pending.subarray(0, space).toString('ascii'));
          if (!Number.isInteger(length) || length <= 0) throw new Error(`bad frame length: ${pending.subarray(0, space).toString()}`);
          if (pending.length < space + 1 + length) break;
          this.messages.push(parseSyslog(pending.subarray(space + 1, space + 1 + length).toString('utf8')));
          pending = pending.subarray(space + 1 + length);
        }
      });
      socket.on('close', () => this.sockets.delete(socket));
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  /** Refuses connections from now on and drops the open ones, as a receiver that went away. */
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => server?.close(() => resolve()) ?? resolve());
  }

  ids(): string[] {
    return this.messages.map((m) => m.artifactId);
  }
}

interface ReceivedRequest {
  headers: http.IncomingHttpHeaders;
  body: string;
}

async function startHttpReceiver(): Promise<{ url: string; requests: ReceivedRequest[]; close(): Promise<void> }> {
  const requests: ReceivedRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/ingest`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const failed = (i: number) => `sshd[${4000 + i}]: Failed password for root from 203.0.113.${i % 250} port 22 ssh2`;
const accepted = (i: number) => `sshd[${5000 + i}]: Accepted password for alice from 198.51.100.${i % 250} port 22 ssh2`;

describe('exporters', () => {
  let api: TestApi;
  let token: string;
  const orgId = `org-${randomUUID().slice(0, 8)}`;
  const receiver = new SyslogReceiver();
  const events: DeliveredMessage[] = [];
  let eventsSub: Subscription;

  beforeAll(async () => {
    await receiver.start();
    api = await startTestApi({ stages: ['store', 'exporters'], env: { CAIRN_ORG_ID: orgId, CAIRN_OUTBOUND_ALLOW: '127.0.0.1' } });
    token = api.token('all', orgId);
    eventsSub = await api.runtime.bus.subscribe({ group: uniqueName('exporter-events'), topic: systemEvents.name, maxBatchSize: 100, maxWaitMs: 10, handler: async (b) => void events.push(...b) });
  });
  afterAll(async () => {
    await eventsSub?.stop();
    await api?.close();
    await receiver.stop();
  });

  const ingest = async (lines: string[], source = 'auth'): Promise<string[]> => {
    const res = await api.request('POST', '/api/v1/artifacts', { token, body: { artifacts: lines.map((raw) => ({ source, raw })) } });
    expect(res.status, res.text).toBe(202);
    return (res.body.data as { ids: string[] }).ids;
  };
  const create = async (body: Record<string, unknown>) => {
    const res = await api.request('POST', '/api/v1/exporters', { token, body });
    expect(res.status, res.text).toBe(201);
    return res.body.data as { id: string; settings: Record<string, unknown>; active_since: string };
  };
  const failuresOf = (exporterId: string) =>
    events.map((m) => JSON.parse(m.value.toString()) as { type: string; details: Record<string, unknown> }).filter((e) => e.type === 'exporter.failure' && e.details.exporter_id === exporterId);
  const scrape = async () => (await fetch(`${api.url}/api/v1/metrics`, { headers: { authorization: `Bearer ${token}` } })).text();
  /** The stage runs an exporter while its lag gauge is exposed (it is removed when the exporter stops). */
  const runs = async (id: string) => (await scrape()).includes(`svc_exporter_lag_messages{exporter="${id}"`);
  const caughtUp = (id: string) => eventually(async () => expect(await api.runtime.bus.lag(`exporter-${id}`, 'artifacts.raw')).toBe(0), 20_000, 100);

  let syslogId = '';
  const matching: string[] = [];

  it('forwards exactly the matching artifacts to a syslog receiver as RFC 5424 over TCP', async () => {
    // Lines that arrived before the exporter existed are not its business.
    await ingest([failed(0)]);
    const exporter = await create({ name: 'to the SIEM', query: '"Failed password"', type: 'syslog', settings: { host: '127.0.0.1', port: receiver.port } });
    syslogId = exporter.id;
    expect(exporter.settings).toEqual({ host: '127.0.0.1', port: receiver.port, tls: false, ca: '' });
    const ids = await ingest([failed(1), accepted(1), failed(2), accepted(2), failed(3), accepted(3)]);
    matching.push(ids[0]!, ids[2]!, ids[4]!);
    await eventually(() => expect(receiver.ids().sort()).toEqual([...matching].sort()), 20_000, 100);
    await caughtUp(syslogId);
    expect(receiver.messages).toHaveLength(3);
    const first = receiver.messages.find((m) => m.artifactId === ids[0])!;
    expect(first).toMatchObject({ priority: 134, version: '1', appName: 'cairn', msgId: 'artifact', source: 'auth', msg: failed(1) });
    expect(first.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(await scrape()).toMatch(new RegExp(`svc_exporter_artifacts_total\\{exporter="${syslogId}",outcome="sent",instance="[^"]+"\\} 3`));
    // The lag gauge follows at the next periodic reload (every 5 s).
    await eventually(async () => expect(await scrape()).toMatch(new RegExp(`svc_exporter_lag_messages\\{exporter="${syslogId}",instance="[^"]+"\\} 0\n`)), 15_000, 200);
  });

  it('with the receiver down raises exporter.failure once and waits; back up, every matching artifact arrives once', async () => {
    await receiver.stop();
    const ids = await ingest(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? failed(100 + i) : accepted(100 + i))));
    matching.push(...ids.filter((_, i) => i % 2 === 0));
    await eventually(() => expect(failuresOf(syslogId)).toHaveLength(1), 20_000, 100);
    const [failure] = failuresOf(syslogId);
    expect(failure!.details).toMatchObject({ exporter_name: 'to the SIEM', destination_type: 'syslog', destination: `syslog://127.0.0.1:${receiver.port}`, waiting_artifacts: expect.any(Number) });
    expect(String(failure!.details.error)).toMatch(/ECONNREFUSED/);
    // Several retries later: still one event (the cooldown), and nothing was sent.
    await new Promise((r) => setTimeout(r, 3000));
    expect(failuresOf(syslogId)).toHaveLength(1);
    expect(await api.runtime.bus.lag(`exporter-${syslogId}`, 'artifacts.raw')).toBeGreaterThan(0);
    expect(await scrape()).toMatch(new RegExp(`svc_exporter_artifacts_total\\{exporter="${syslogId}",outcome="failed",instance="[^"]+"\\} \\d+`));

    await receiver.start();
    await eventually(() => expect(new Set(receiver.ids())).toEqual(new Set(matching)), 30_000, 200);
    await caughtUp(syslogId);
    const counts = new Map<string, number>();
    for (const id of receiver.ids()) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect([...counts.values()].every((n) => n === 1)).toBe(true);
    expect(receiver.messages).toHaveLength(13);
  });

  it('stops forwarding when disabled and, enabled again, forwards only what arrives after', async () => {
    const off = await api.request('PUT', `/api/v1/exporters/${syslogId}`, { token, body: { enabled: false } });
    expect(off.status, off.text).toBe(200);
    await eventually(async () => expect(await runs(syslogId)).toBe(false), 15_000, 100);
    await ingest([failed(300)]);
    const on = await api.request('PUT', `/api/v1/exporters/${syslogId}`, { token, body: { enabled: true } });
    expect((on.body.data as { active_since: string }).active_since > (off.body.data as { active_since: string }).active_since).toBe(true);
    await eventually(async () => expect(await runs(syslogId)).toBe(true), 15_000, 100);
    const [later] = await ingest([failed(301)]);
    await eventually(() => expect(receiver.ids()).toContain(later), 20_000, 100);
    await caughtUp(syslogId);
    expect(receiver.messages).toHaveLength(14);

    expect((await api.request('DELETE', `/api/v1/exporters/${syslogId}`, { token })).status).toBe(200);
    await eventually(async () => expect(await runs(syslogId)).toBe(false), 15_000, 100);
    await ingest([failed(302)]);
    await new Promise((r) => setTimeout(r, 1000));
    expect(receiver.messages).toHaveLength(14);
    expect((await api.request('GET', `/api/v1/exporters/${syslogId}`, { token })).status).toBe(404);
  });

  it('forgets a deleted exporter\'s consumer group (offsets, retention hold, failure mark); one created again with the same name starts fresh', async () => {
    const bus = api.runtime.bus as LocalBus;
    const body = { name: 'forget me', query: '"forget-marker"', type: 'syslog', settings: { host: '127.0.0.1', port: receiver.port } };
    const first = await create(body);
    const group = `exporter-${first.id}`;
    await eventually(async () => expect(await runs(first.id)).toBe(true), 15_000, 100);
    const [one] = await ingest([`${failed(400)} forget-marker`]);
    await eventually(() => expect(receiver.ids()).toContain(one), 20_000, 100);
    await caughtUp(first.id);
    expect(bus.committed(group, 'artifacts.raw', 0)).toBeGreaterThan(0);
    expect(bus.topic('artifacts.raw').consumers.has(group)).toBe(true);
    await api.runtime.state.set(failureMarkKey(first.id), 'raised earlier', 60_000);

    expect((await api.request('DELETE', `/api/v1/exporters/${first.id}`, { token })).status).toBe(200);
    await eventually(() => expect(bus.committed(group, 'artifacts.raw', 0)).toBeUndefined(), 15_000, 100);
    expect(bus.topic('artifacts.raw').consumers.has(group)).toBe(false);
    expect(await api.runtime.state.get(failureMarkKey(first.id))).toBeNull();

    // The same name again: a new exporter (a new id and group) that forwards only what arrives from now on.
    const again = await create(body);
    expect(again.id).not.toBe(first.id);
    await eventually(async () => expect(await runs(again.id)).toBe(true), 15_000, 100);
    const [two] = await ingest([`${failed(401)} forget-marker`]);
    await eventually(() => expect(receiver.ids()).toContain(two), 20_000, 100);
    await caughtUp(again.id);
    expect(receiver.ids().filter((id) => id === one || id === two)).toEqual([one, two]);
    expect((await api.request('DELETE', `/api/v1/exporters/${again.id}`, { token })).status).toBe(200);
    await eventually(() => expect(bus.committed(`exporter-${again.id}`, 'artifacts.raw', 0)).toBeUndefined(), 15_000, 100);
  });

  it('posts JSON lines with the bearer token to an HTTP endpoint; the token is redacted, sealed at rest and kept on update', async () => {
    const endpoint = await startHttpReceiver();
    try {
      const secret = `tok-${randomUUID()}`;
      const exporter = await create({ name: 'to the lake', source: 'auth', type: 'http', settings: { url: endpoint.url, token: secret } });
      expect(exporter.settings).toEqual({ url: endpoint.url, token: '[redacted]' });
      const listed = await api.request('GET', '/api/v1/exporters', { token });
      const one = await api.request('GET', `/api/v1/exporters/${exporter.id}`, { token });
      for (const res of [listed, one]) expect(res.text).not.toContain(secret);
      const stored = await api.runtime.store.query({ query: 'SELECT settings FROM exporters FINAL WHERE id = {id:UUID}', query_params: { id: exporter.id }, format: 'JSONEachRow' });
      const [row] = (await stored.json()) as { settings: string }[];
      expect(row!.settings).not.toContain(secret);
      expect((JSON.parse(row!.settings) as { token: string }).token).toMatch(/^v1:/);

      // An empty query forwards everything of its source; other sources stay.
      const [authId] = await ingest([accepted(400)]);
      await ingest([`DROP IN=eth0 SRC=10.0.0.1`], 'firewall');
      await eventually(() => expect(endpoint.requests.length).toBeGreaterThan(0), 20_000, 100);
      await caughtUp(exporter.id);
      const lines = endpoint.requests.flatMap((r) => r.body.trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>));
      expect(lines).toEqual([{ id: authId, org_id: orgId, source: 'auth', timestamp: expect.any(String), received_at: expect.any(String), raw: accepted(400), metadata: {} }]);
      expect(endpoint.requests[0]!.headers).toMatchObject({ authorization: `Bearer ${secret}`, 'content-type': 'application/x-ndjson' });

      // "[redacted]" and an omitted token both keep it.
      for (const settings of [{ token: '[redacted]' }, { url: `${endpoint.url}?v=2` }]) {
        const res = await api.request('PUT', `/api/v1/exporters/${exporter.id}`, { token, body: { settings } });
        expect(res.status, res.text).toBe(200);
        expect((res.body.data as { settings: { token: string } }).settings.token).toBe('[redacted]');
      }
      await eventually(async () => expect(await runs(exporter.id)).toBe(true), 15_000, 100);
      const before = endpoint.requests.length;
      await ingest([accepted(401)]);
      await eventually(() => expect(endpoint.requests.length).toBe(before + 1), 20_000, 100);
      expect(endpoint.requests[before]!.headers.authorization).toBe(`Bearer ${secret}`);
      const audit = await api.request('GET', '/api/v1/audit-log?limit=100', { token });
      expect(audit.text).not.toContain(secret);
      expect((await api.request('DELETE', `/api/v1/exporters/${exporter.id}`, { token })).status).toBe(200);
    } finally {
      await endpoint.close();
    }
  });

  it('lists with paging and announces each change as system.config_changed', async () => {
    const a = await create({ name: 'a', type: 'syslog', enabled: false, settings: { host: 'siem.example.com', port: 6514, tls: true } });
    const b = await create({ name: 'b', type: 'kafka', enabled: false, settings: { brokers: ['kafka.example.com:9093'], topic: 'cairn.artifacts', tls: true, sasl_mechanism: 'scram-sha-512', username: 'cairn', password: 'pw-123456' } });
    const page = await api.request('GET', '/api/v1/exporters?limit=1&offset=1', { token });
    expect(page.status).toBe(200);
    expect(page.body.data).toMatchObject({ total: 2, limit: 1, offset: 1, exporters: [{ id: a.id }] });
    expect(page.text).not.toContain('pw-123456');
    expect(b.settings).toMatchObject({ password: '[redacted]', username: 'cairn' });
    expect((await api.request('GET', '/api/v1/exporters?limit=5000', { token })).status).toBe(400);
    await eventually(() => {
      const changes = events.map((m) => JSON.parse(m.value.toString()) as { type: string; details: Record<string, unknown> }).filter((e) => e.type === 'system.config_changed' && e.details.exporter_id === b.id);
      expect(changes).toHaveLength(1);
      expect(changes[0]!.details).toMatchObject({ setting: 'exporters', action: 'created' });
      expect(JSON.stringify(changes[0])).not.toContain('pw-123456');
    });
    for (const id of [a.id, b.id]) expect((await api.request('DELETE', `/api/v1/exporters/${id}`, { token })).status).toBe(200);
  });

  it('answers 400 naming the field for bad settings, a bad query (with its position), an unknown type, a refused address and a malformed id; 404 for an unknown id', async () => {
    const syslog = (settings: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name: 'x', type: 'syslog', settings: { host: '127.0.0.1', port: 514, ...settings }, ...extra });
    const cases: [Record<string, unknown>, RegExp][] = [
      [syslog({ port: 70000 }), /settings\.port: port must be an integer from 1 to 65535/],
      [{ name: 'x', type: 'syslog', settings: { host: '127.0.0.1' } }, /settings\.port/],
      [syslog({ host: 'not a host' }), /settings\.host: host must be a host name or an IP address/],
      [syslog({ ca: 'not a certificate' }), /settings\.ca: ca must be PEM certificates/],
      [syslog({ tls: 'yes' }), /settings\.tls/],
      [syslog({ extra: 1 }), /settings/],
      [syslog({ host: '10.0.0.5' }), /settings\.host: 10\.0\.0\.5 resolves to 10\.0\.0\.5, an address cairn does not call.*CAIRN_OUTBOUND_ALLOW/],
      [{ name: 'x', type: 'http', settings: { url: 'http://169.254.169.254/latest/meta-data' } }, /settings\.url: .*CAIRN_OUTBOUND_ALLOW/],
      [{ name: 'x', type: 'http', settings: { url: 'ftp://example.com/' } }, /settings\.url: url must be an http/],
      [{ name: 'x', type: 'http', settings: { url: 'https://user:pw@example.com/' } }, /settings\.url/],
      [{ name: 'x', type: 'kafka', settings: { brokers: ['kafka:9092'], topic: 't', sasl_mechanism: 'plain', username: 'u' } }, /settings\.password: password is required/],
      [{ name: 'x', type: 'kafka', settings: { brokers: ['kafka'], topic: 't' } }, /settings\.brokers\.0: each broker must be host:port/],
      [{ name: 'x', type: 'kafka', settings: { brokers: ['kafka:9092'], topic: 'a topic' } }, /settings\.topic/],
      [{ name: 'x', type: 'smtp', settings: {} }, /type must be one of: syslog, http, kafka/],
      [syslog({}, { failure_cooldown_minutes: 0 }), /failure_cooldown_minutes must be at least 1/],
      [syslog({}, { name: '' }), /name is required/],
      [syslog({}, { color: 'red' }), /color|unrecognized/i],
    ];
    for (const [body, message] of cases) {
      const res = await api.request('POST', '/api/v1/exporters', { token, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message, JSON.stringify(body)).toMatch(message);
    }
    const badQuery = await api.request('POST', '/api/v1/exporters', { token, body: syslog({}, { query: 'sshd AND (Failed' }) });
    expect(badQuery.status).toBe(400);
    expect(badQuery.body.message).toMatch(/^invalid body: query: .* at character \d+/);
    expect(badQuery.body.error!.details).toEqual([expect.objectContaining({ path: 'query', position: expect.any(Number) })]);

    expect((await api.request('GET', '/api/v1/exporters/not-a-uuid', { token })).status).toBe(400);
    const unknown = randomUUID();
    expect((await api.request('GET', `/api/v1/exporters/${unknown}`, { token })).status).toBe(404);
    expect((await api.request('PUT', `/api/v1/exporters/${unknown}`, { token, body: { name: 'y' } })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/exporters/${unknown}`, { token })).status).toBe(404);

    // An update is checked as a whole: a new type needs its settings; a bad port is named.
    const exporter = await create(syslog({}, { enabled: false }));
    const retype = await api.request('PUT', `/api/v1/exporters/${exporter.id}`, { token, body: { type: 'http' } });
    expect(retype.status).toBe(400);
    expect(retype.body.message).toMatch(/settings: give the settings of a http destination in full/);
    const badPort = await api.request('PUT', `/api/v1/exporters/${exporter.id}`, { token, body: { settings: { port: -1 } } });
    expect(badPort.body.message).toMatch(/settings\.port/);
    expect((await api.request('PUT', `/api/v1/exporters/${exporter.id}`, { token, body: {} })).status).toBe(400);
    // Another organization does not see it.
    expect((await api.request('GET', `/api/v1/exporters/${exporter.id}`, { token: api.token('all') })).status).toBe(404);
    expect((await api.request('DELETE', `/api/v1/exporters/${exporter.id}`, { token })).status).toBe(200);
  });

  it('answers 401 without a token and 403 without settings:manage', async () => {
    const id = randomUUID();
    const rows: [string, string, unknown?][] = [
      ['GET', '/api/v1/exporters'],
      ['GET', `/api/v1/exporters/${id}`],
      ['POST', '/api/v1/exporters', { name: 'x', type: 'syslog', settings: { host: '127.0.0.1', port: 514 } }],
      ['PUT', `/api/v1/exporters/${id}`, { name: 'y' }],
      ['DELETE', `/api/v1/exporters/${id}`],
    ];
    const withoutManage = api.token(
      PERMISSIONS.filter((p) => p !== 'settings:manage'),
      orgId,
    );
    for (const [method, path, body] of rows) {
      expect((await api.request(method, path, { body })).status, `${method} ${path} without a token`).toBe(401);
      expect((await api.request(method, path, { token: withoutManage, body })).status, `${method} ${path} without settings:manage`).toBe(403);
    }
  });
});
