// OpenTelemetry logs over OTLP/HTTP, sent by OpenTelemetry's own JS SDK and
// exporters (JSON and protobuf, gzipped or not) to both places cairn takes
// them: /api/v1/otlp/v1/logs on the API port and /v1/logs on the OTLP port.
// The records must come out of the store searchable, with the source,
// timestamp and metadata the mapping promises (docs/otlp.md).
import { gzipSync } from 'node:zlib';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { SeverityNumber } from '@opentelemetry/api-logs';
import { OTLPLogExporter as JsonLogExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoLogExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchLogRecordProcessor, LoggerProvider, type LogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { eventually } from '../helpers/buses.js';
import { startTestApi, type TestApi } from '../helpers/api.js';
import { BUILTIN_ROLES } from '../../identity/roles.js';
import { ExportLogsServiceRequest, ExportLogsServiceResponse, Status } from '../../ingest/otlp/proto.js';

interface StoredArtifact {
  id: string;
  source: string;
  raw: string;
  timestamp: string;
  metadata: { otlp?: Record<string, unknown> };
}

type ExporterConfig = NonNullable<ConstructorParameters<typeof JsonLogExporter>[0]>;
interface ExportOutcome {
  code: number;
  error?: Error & { code?: number };
}

let api: TestApi;

async function search(token: string, query: string): Promise<{ artifacts: StoredArtifact[]; total: number }> {
  const res = await api.request('GET', `/api/v1/artifacts?${query}`, { token });
  expect(res.status, res.text).toBe(200);
  return res.body.data as { artifacts: StoredArtifact[]; total: number };
}

async function waitForStored(token: string, count: number): Promise<StoredArtifact[]> {
  let found: StoredArtifact[] = [];
  await eventually(
    async () => {
      found = (await search(token, 'limit=100')).artifacts;
      expect(found).toHaveLength(count);
    },
    20_000,
    100,
  );
  return found;
}

/** Passes every export through to the real exporter and keeps its outcome (success, or the HTTP failure it met). */
function recording(inner: LogRecordExporter, outcomes: ExportOutcome[]): LogRecordExporter {
  return {
    export(logs: ReadableLogRecord[], done) {
      inner.export(logs, (result) => {
        outcomes.push(result as ExportOutcome);
        done(result);
      });
    },
    shutdown: () => inner.shutdown(),
    forceFlush: () => inner.forceFlush(),
  };
}

type Encoding = 'json' | 'protobuf';

/** Emits `emit`'s records through an SDK LoggerProvider (batching) and the OTLP/HTTP exporter of that encoding; resolves once exported. */
async function sendWithSdk(
  encoding: Encoding,
  url: string,
  options: { token?: string; gzip?: boolean; service?: string },
  emit: (logger: ReturnType<LoggerProvider['getLogger']>) => void,
): Promise<ExportOutcome[]> {
  const config: ExporterConfig = {
    url,
    headers: options.token ? { Authorization: `Bearer ${options.token}` } : {},
    compression: (options.gzip ? 'gzip' : 'none') as ExporterConfig['compression'],
    timeoutMillis: 10_000,
  };
  const exporter = encoding === 'json' ? new JsonLogExporter(config) : new ProtoLogExporter(config);
  const outcomes: ExportOutcome[] = [];
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ 'service.name': options.service ?? 'checkout', 'host.name': 'web-1' }),
    processors: [new BatchLogRecordProcessor({ exporter: recording(exporter, outcomes) })],
  });
  emit(provider.getLogger('cairn-test', '1.2.3'));
  await provider.forceFlush();
  await provider.shutdown();
  return outcomes;
}

describe('OTLP/HTTP logs', () => {
  beforeAll(async () => {
    api = await startTestApi({ stages: ['store'], otlp: true });
  });
  afterAll(async () => {
    await api?.close();
  });

  const senders: { encoding: Encoding; port: 'api' | 'otlp'; gzip: boolean }[] = [
    { encoding: 'json', port: 'api', gzip: false },
    { encoding: 'protobuf', port: 'api', gzip: true },
    { encoding: 'json', port: 'otlp', gzip: true },
    { encoding: 'protobuf', port: 'otlp', gzip: false },
  ];

  it.each(senders)('stores what the SDK sends as $encoding to the $port port (gzip: $gzip), searchable with source, time and metadata', async ({ encoding, port, gzip }) => {
    const token = api.token();
    const url = port === 'api' ? `${api.url}/api/v1/otlp/v1/logs` : `${api.otlpUrl}/v1/logs`;
    const marker = randomUUID().slice(0, 8);
    const at = new Date('2026-11-20T10:11:12.345Z');
    const outcomes = await sendWithSdk(encoding, url, { token, gzip }, (logger) => {
      logger.emit({
        body: `Failed password for root from 203.0.113.9 port 22 ssh2 ${marker}`,
        timestamp: at,
        severityNumber: SeverityNumber.WARN,
        severityText: 'WARN',
        attributes: { 'log.file.name': '/var/log/auth.log', 'user.name': 'root', attempts: 3 },
      });
      logger.emit({ body: `alert ${marker}`, timestamp: at, attributes: { 'cairn.source': 'suricata' } });
      logger.emit({ body: { event: 'order.placed', marker, items: [1, 2], ok: true }, timestamp: at });
    });
    expect(outcomes.map((o) => o.code)).toEqual([0]); // one batch of three records

    const stored = await waitForStored(token, 3);
    const bySource = Object.fromEntries(stored.map((a) => [a.source, a]));
    expect(Object.keys(bySource).sort()).toEqual(['auth.log', 'checkout', 'suricata']);

    const auth = bySource['auth.log']!;
    expect(auth.raw).toBe(`Failed password for root from 203.0.113.9 port 22 ssh2 ${marker}`);
    expect(auth.timestamp).toBe('2026-11-20T10:11:12.345Z');
    expect(auth.metadata.otlp).toMatchObject({
      resource: { 'service.name': 'checkout', 'host.name': 'web-1' },
      scope: { name: 'cairn-test', version: '1.2.3' },
      attributes: { 'log.file.name': '/var/log/auth.log', 'user.name': 'root', attempts: 3 },
      severity_number: 13,
      severity_text: 'WARN',
    });
    expect(bySource.suricata!.raw).toBe(`alert ${marker}`);
    // A structured body is stored as JSON; the SDK's observed time (when it was emitted) is kept beside the record's own.
    const structured = bySource.checkout!;
    expect(JSON.parse(structured.raw)).toEqual({ event: 'order.placed', marker, items: [1, 2], ok: true });
    expect(structured.timestamp).toBe('2026-11-20T10:11:12.345Z');
    expect(Date.parse(structured.metadata.otlp!.observed_time as string)).toBeGreaterThan(Date.parse('2026-11-20T10:11:12.345Z'));

    // Searchable through the query language, like any artifact.
    expect((await search(token, `query=${encodeURIComponent(`"${marker}"`)}`)).total).toBe(3);
  });

  it('answers partial success with the rejected count and why, in the request encoding, and stores the rest', async () => {
    const token = api.token();
    const request = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: 'service.name', value: { stringValue: 'billing' } }] },
          scopeLogs: [
            {
              scope: { name: 'raw-json' },
              logRecords: [
                {
                  timeUnixNano: '1764237072123456789',
                  severityNumber: 17,
                  body: { stringValue: 'payment failed' },
                  traceId: '5B8EFFF798038103D269B633813FC60C',
                  spanId: 'EEE19B7EC3C1B174',
                  attributes: [{ key: 'amount', value: { intValue: '9007199254740993' } }],
                },
                // No timeUnixNano: the observed time stands.
                { observedTimeUnixNano: 1764237000000000000, body: { kvlistValue: { values: [{ key: 'k', value: { doubleValue: 1.5 } }] } } },
                { severityText: 'INFO' },
                { body: { stringValue: 'x' }, timeUnixNano: 'yesterday' },
              ],
            },
          ],
        },
      ],
    };
    const res = await fetch(`${api.url}/api/v1/otlp/v1/logs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(request) });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const answer = (await res.json()) as { partialSuccess: { rejectedLogRecords: string; errorMessage: string } };
    expect(answer.partialSuccess.rejectedLogRecords).toBe('2');
    expect(answer.partialSuccess.errorMessage).toMatch(/^2 of 4 log record\(s\) rejected: .*no body.*timeUnixNano/);

    const stored = await waitForStored(token, 2);
    const failed = stored.find((a) => a.raw === 'payment failed')!;
    expect(failed).toMatchObject({ source: 'billing', timestamp: '2025-11-27T09:51:12.123Z' });
    expect(failed.metadata.otlp).toMatchObject({
      trace_id: '5b8efff798038103d269b633813fc60c',
      span_id: 'eee19b7ec3c1b174',
      severity_number: 17,
      attributes: { amount: '9007199254740993' },
      scope: { name: 'raw-json' },
    });
    expect(stored.find((a) => a.raw !== 'payment failed')).toMatchObject({ raw: '{"k":1.5}', timestamp: '2025-11-27T09:50:00.000Z' });

    // Protobuf in, protobuf out: the same partial success as an ExportLogsServiceResponse.
    const proto = ExportLogsServiceRequest.encode(
      ExportLogsServiceRequest.fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'kept' } }, { attributes: [] }] }] }] }),
    ).finish();
    const protoRes = await fetch(`${api.otlpUrl}/v1/logs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-protobuf' }, body: new Uint8Array(proto) });
    expect(protoRes.status).toBe(200);
    expect(protoRes.headers.get('content-type')).toBe('application/x-protobuf');
    const decoded = ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(new Uint8Array(await protoRes.arrayBuffer())), { longs: String });
    expect(decoded).toMatchObject({ partialSuccess: { rejectedLogRecords: '1', errorMessage: expect.stringMatching(/no body/) } });
    await waitForStored(token, 3);
    expect((await search(token, 'source=otlp')).artifacts[0]!.raw).toBe('kept');

    // Counted by encoding and outcome in /v1/metrics (this process's registry holds every test's counts: at least these).
    const metrics = (await api.request('GET', '/api/v1/metrics', { token })).text;
    const count = (labels: string) => Number(new RegExp(`^svc_otlp_log_records_total\\{${labels}[^}]*\\} (\\d+)$`, 'm').exec(metrics)?.[1] ?? 0);
    expect(count('encoding="json",outcome="rejected"')).toBeGreaterThanOrEqual(2);
    expect(count('encoding="protobuf",outcome="rejected"')).toBeGreaterThanOrEqual(1);
    expect(count('encoding="protobuf",outcome="accepted"')).toBeGreaterThanOrEqual(1);
  });

  it('takes an API key (signals:write) as the exporter\'s bearer token, storing into the key\'s organization', async () => {
    // Users log in to the deployment's organization (CAIRN_ORG_ID); no other test here stores there.
    const admin = api.token('all', api.runtime.config.orgId);
    const email = `collector-${randomUUID().slice(0, 8)}@example.com`;
    const password = 'correct horse battery staple';
    const user = await api.request('POST', '/api/v1/users', { token: admin, body: { email, name: 'Collector owner', role_id: BUILTIN_ROLES.analyst.id, password } });
    expect(user.status, user.text).toBe(201);
    const login = await api.request('POST', '/api/v1/auth/login', { body: { email, password } });
    expect(login.status, login.text).toBe(200);
    const made = await api.request('POST', '/api/v1/api-keys', { token: (login.body.data as { token: string }).token, body: { name: 'otel-collector', permissions: ['signals:write'] } });
    expect(made.status, made.text).toBe(201);
    const key = (made.body.data as { token: string }).token;
    const outcomes = await sendWithSdk('protobuf', `${api.otlpUrl}/v1/logs`, { token: key, gzip: true, service: 'edge-proxy' }, (logger) => logger.emit({ body: 'sent with an API key' }));
    expect(outcomes.map((o) => o.code)).toEqual([0]);
    expect((await waitForStored(admin, 1))[0]).toMatchObject({ source: 'edge-proxy', raw: 'sent with an API key' });
  });

  it('refuses senders without a key or token (401) or without signals:write (403), as the exporter sees it', async () => {
    const none = await sendWithSdk('protobuf', `${api.otlpUrl}/v1/logs`, {}, (logger) => logger.emit({ body: 'no token' }));
    expect(none).toHaveLength(1);
    expect(none[0]!.code).toBe(1);
    expect(none[0]!.error?.code).toBe(401);
    const reader = await sendWithSdk('json', `${api.url}/api/v1/otlp/v1/logs`, { token: api.token(['signals:read']) }, (logger) => logger.emit({ body: 'read only' }));
    expect(reader[0]!.error?.code).toBe(403);

    // The failure is a google.rpc.Status in the request's encoding.
    const res = await fetch(`${api.url}/api/v1/otlp/v1/logs`, { method: 'POST', headers: { 'content-type': 'application/x-protobuf' }, body: new Uint8Array() });
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toBe('application/x-protobuf');
    const status = Status.toObject(Status.decode(new Uint8Array(await res.arrayBuffer()))) as { code: number; message: string };
    expect(status).toMatchObject({ code: 16, message: expect.stringMatching(/bearer token/) });
  });

  it('answers bad data 400, another media type or coding 415, and bodies past the limits 413', async () => {
    const token = api.token();
    const post = (body: Uint8Array<ArrayBuffer> | string, headers: Record<string, string>) =>
      fetch(`${api.otlpUrl}/v1/logs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, ...headers }, body });

    const malformed = await post(new Uint8Array([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 0x01]), { 'content-type': 'application/x-protobuf' });
    expect(malformed.status).toBe(400);
    expect(Status.toObject(Status.decode(new Uint8Array(await malformed.arrayBuffer())))).toMatchObject({ code: 3, message: expect.stringMatching(/not a protobuf ExportLogsServiceRequest/) });

    const badJson = await post('{"resourceLogs": [', { 'content-type': 'application/json' });
    expect(badJson.status).toBe(400);
    expect(await badJson.json()).toMatchObject({ code: 3, message: expect.stringMatching(/not valid JSON/) });
    const wrongShape = await post('{"resourceLogs": {"no": "array"}}', { 'content-type': 'application/json' });
    expect(wrongShape.status).toBe(400);

    const text = await post('hello', { 'content-type': 'text/plain' });
    expect(text.status).toBe(415);
    expect(await text.json()).toMatchObject({ message: expect.stringMatching(/application\/x-protobuf or application\/json/) });
    const brotli = await post('{}', { 'content-type': 'application/json', 'content-encoding': 'br' });
    expect(brotli.status).toBe(415);
    const notGzip = await post('{}', { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(notGzip.status).toBe(400);

    // 11 MB of nothing gzips to a few KB: the limit holds for the inflated body too.
    const bomb = gzipSync(Buffer.alloc(11 * 1024 * 1024, 0x20));
    expect(bomb.length).toBeLessThan(100_000);
    const inflated = await post(new Uint8Array(bomb), { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    expect(inflated.status).toBe(413);
    expect(await inflated.json()).toMatchObject({ message: expect.stringMatching(/once decompressed/) });

    const records = Array.from({ length: 10_001 }, () => ({ body: { stringValue: 'x' } }));
    const tooMany = await post(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: records }] }] }), { 'content-type': 'application/json' });
    expect(tooMany.status).toBe(413);

    // An empty request is a success (OTLP asks so), in either encoding.
    const empty = await post(new Uint8Array(), { 'content-type': 'application/x-protobuf' });
    expect(empty.status).toBe(200);
    expect((await empty.arrayBuffer()).byteLength).toBe(0);
    expect((await search(token, 'limit=1')).total).toBe(0);
  });

  it('reads the body as OTLP on the path as the router matches it (trailing slash, any case), never as already parsed JSON', async () => {
    const token = api.token();
    const body = JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'via a trailing slash' } }] }] }] });
    for (const path of ['/api/v1/otlp/v1/logs/', '/API/v1/OTLP/v1/logs']) {
      const res = await fetch(`${api.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body });
      expect(res.status, path).toBe(200);
    }
    expect((await waitForStored(token, 2)).map((a) => a.raw)).toEqual(['via a trailing slash', 'via a trailing slash']);
  });

  it('is in the API document under its route', async () => {
    const res = await api.request('GET', '/api/v1/openapi.json');
    const operation = (res.body as unknown as { paths: Record<string, { post?: { requestBody: { content: Record<string, unknown> }; 'x-permission': string } }> }).paths['/api/v1/otlp/v1/logs']?.post;
    expect(operation?.['x-permission']).toBe('signals:write');
    expect(Object.keys(operation!.requestBody.content).sort()).toEqual(['application/json', 'application/x-protobuf']);
  });
});

describe('OTLP/HTTP backpressure', () => {
  it('answers 429 with Retry-After while the pipeline is behind', async () => {
    const slow = await startTestApi({ env: { CAIRN_INGEST_MAX_LAG: '5' }, otlp: true }); // no store stage: nothing drains
    try {
      const token = slow.token();
      const body = (n: number) => JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: Array.from({ length: n }, (_, i) => ({ body: { stringValue: `line ${i}` } })) }] }] });
      const post = () => fetch(`${slow.otlpUrl}/v1/logs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body(3) });
      expect((await post()).status).toBe(200);
      await new Promise((r) => setTimeout(r, 1100)); // lag is read at most once a second
      const refused = await post();
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('5');
      expect(await refused.json()).toMatchObject({ code: 8, message: expect.stringMatching(/pipeline is behind/) });
    } finally {
      await slow.close();
    }
  });
});

describe('OTLP/HTTP while the bus refuses', () => {
  it('answers 503 with Retry-After, a Status in the request encoding, when Kafka does not take the records', async () => {
    const kafka = await startTestApi({ distributed: true, otlp: true });
    try {
      const token = kafka.token();
      await kafka.runtime.bus.close(); // the producer is gone: kafkajs refuses every send with a retriable error
      const body = ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'line' } }] }] }] })).finish();
      const res = await fetch(`${kafka.otlpUrl}/v1/logs`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-protobuf' }, body: new Uint8Array(body) });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      const status = Status.toObject(Status.decode(new Uint8Array(await res.arrayBuffer()))) as { code: number; message: string };
      expect(status).toMatchObject({ code: 14, message: expect.stringMatching(/message bus did not take these artifacts.*send them again after 5 s/) });
      expect(status.message).not.toContain(inject('kafkaBrokers'));
    } finally {
      await kafka.close();
    }
  });
});
