// Log records to artifacts, through both decoders: the mapping's rules
// (source, time, metadata) and what it does with records it cannot store.
import { describe, expect, it } from 'vitest';
import { decodeLogsRequest, encodingOf, OtlpDecodeError } from './codec.js';
import { logsToArtifacts, readLogsRequest } from './artifacts.js';
import { ExportLogsServiceRequest } from './proto.js';

const LIMITS = { maxRawBytes: 256 * 1024, maxMetadataBytes: 16 * 1024 };
const RECEIVED = Date.parse('2026-11-27T12:00:00Z');

function map(request: unknown) {
  return logsToArtifacts(readLogsRequest(request).shape, { orgId: 'org-1', receivedAt: RECEIVED, limits: LIMITS });
}

const str = (value: string) => ({ stringValue: value });
const attr = (key: string, value: unknown) => ({ key, value });
function request(records: unknown[], resource: unknown[] = [], scope: unknown = undefined) {
  return { resourceLogs: [{ resource: { attributes: resource }, scopeLogs: [{ scope, logRecords: records }] }] };
}

describe('OTLP log records to artifacts', () => {
  it('names the source by cairn.source, then log.file.name, then service.name, else otlp', () => {
    const { artifacts } = map({
      resourceLogs: [
        {
          resource: { attributes: [attr('service.name', str('api'))] },
          scopeLogs: [
            {
              logRecords: [
                { body: str('a'), attributes: [attr('cairn.source', str(' sshd ')), attr('log.file.name', str('auth.log'))] },
                { body: str('b'), attributes: [attr('log.file.name', str('C:\\logs\\app\\iis.log'))] },
                { body: str('c') },
              ],
            },
          ],
        },
        { resource: { attributes: [attr('cairn.source', str('firewall'))] }, scopeLogs: [{ logRecords: [{ body: str('d') }] }] },
        { scopeLogs: [{ logRecords: [{ body: str('e') }] }] },
      ],
    });
    expect(artifacts.map((a) => a.source)).toEqual(['sshd', 'iis.log', 'api', 'firewall', 'otlp']);
  });

  it('times a record by timeUnixNano, else observedTimeUnixNano, else when it was received; 0 and impossible times are unknown', () => {
    const { artifacts } = map(
      request([
        { body: str('a'), timeUnixNano: '1764237072123456789', observedTimeUnixNano: '1764237099000000000' },
        { body: str('b'), timeUnixNano: '0', observedTimeUnixNano: 1764237099000000000 },
        { body: str('c'), timeUnixNano: '99999999999999999999' },
      ]),
    );
    expect(artifacts.map((a) => a.timestamp)).toEqual(['2025-11-27T09:51:12.123Z', '2025-11-27T09:51:39.000Z', '2026-11-27T12:00:00.000Z']);
    expect(artifacts[0]!.metadata).toMatchObject({ otlp: { observed_time: '2025-11-27T09:51:39.000Z' } });
  });

  it('stores a string body as it is and a structured one as JSON, every AnyValue kind', () => {
    const body = {
      kvlistValue: {
        values: [
          attr('s', str('x')),
          attr('b', { boolValue: false }),
          attr('i', { intValue: '42' }),
          attr('big', { intValue: '-9223372036854775808' }),
          attr('d', { doubleValue: 2.5 }),
          attr('nan', { doubleValue: 'NaN' }),
          attr('list', { arrayValue: { values: [str('y'), { intValue: 7 }, {}] } }),
          attr('bytes', { bytesValue: 'AAE=' }),
          attr('empty', {}),
        ],
      },
    };
    const { artifacts } = map(request([{ body: str('  as sent\n') }, { body }]));
    expect(artifacts[0]!.raw).toBe('  as sent\n');
    expect(JSON.parse(artifacts[1]!.raw)).toEqual({ s: 'x', b: false, i: 42, big: '-9223372036854775808', d: 2.5, nan: 'NaN', list: ['y', 7, null], bytes: 'AAE=', empty: null });
  });

  it('keeps resource and record attributes, scope, severity and trace context in metadata.otlp', () => {
    const { artifacts } = map(
      request(
        [{ body: str('x'), severityNumber: 9, severityText: 'INFO', traceId: 'ABCDEF0123456789ABCDEF0123456789', spanId: '0123456789ABCDEF', flags: 1, eventName: 'login', attributes: [attr('user', str('bob'))] }],
        [attr('service.name', str('api')), attr('__proto__', str('kept as a key'))],
        { name: 'lib', version: '2', attributes: [attr('k', { boolValue: true })] },
      ),
    );
    const metadata = artifacts[0]!.metadata as { otlp: Record<string, unknown> };
    expect(metadata.otlp).toEqual({
      resource: { 'service.name': 'api', ['__proto__']: 'kept as a key' },
      scope: { name: 'lib', version: '2', attributes: { k: true } },
      attributes: { user: 'bob' },
      severity_number: 9,
      severity_text: 'INFO',
      event_name: 'login',
      trace_id: 'abcdef0123456789abcdef0123456789',
      span_id: '0123456789abcdef',
      flags: 1,
    });
    expect(Object.getPrototypeOf(metadata.otlp.resource)).toBe(Object.prototype);
  });

  it('reads protobuf to the same artifacts as JSON, trace and span ids in hex', () => {
    const json = request([{ body: str('same'), timeUnixNano: '1764237072123456789', severityNumber: 13, traceId: '5b8efff798038103d269b633813fc60c', spanId: 'eee19b7ec3c1b174', attributes: [attr('n', { intValue: '5' })] }], [attr('service.name', str('svc'))]);
    const bytes = ExportLogsServiceRequest.encode(
      ExportLogsServiceRequest.fromObject({
        resourceLogs: [
          {
            resource: { attributes: [attr('service.name', str('svc'))] },
            scopeLogs: [{ logRecords: [{ body: str('same'), timeUnixNano: '1764237072123456789', severityNumber: 13, traceId: Buffer.from('5b8efff798038103d269b633813fc60c', 'hex'), spanId: Buffer.from('eee19b7ec3c1b174', 'hex'), attributes: [attr('n', { intValue: 5 })] }] }],
          },
        ],
      }),
    ).finish();
    const fromProto = map(decodeLogsRequest(Buffer.from(bytes), 'protobuf')).artifacts[0]!;
    const fromJson = map(decodeLogsRequest(Buffer.from(JSON.stringify(json)), 'json')).artifacts[0]!;
    expect({ ...fromProto, id: '' }).toEqual({ ...fromJson, id: '' });
    expect(fromProto).toMatchObject({ source: 'svc', raw: 'same', timestamp: '2025-11-27T09:51:12.123Z', metadata: { otlp: { trace_id: '5b8efff798038103d269b633813fc60c', span_id: 'eee19b7ec3c1b174', attributes: { n: 5 } } } });
  });

  it('rejects, with a reason each, records it cannot store, and keeps the others', () => {
    let deep: unknown = str('bottom');
    for (let i = 0; i < 40; i++) deep = { arrayValue: { values: [deep] } };
    const mapping = map(
      request([
        { body: str('fine') },
        { attributes: [] },
        { body: str('') },
        { body: str('x'.repeat(LIMITS.maxRawBytes + 1)) },
        { body: deep },
        { body: { intValue: 'twelve' } },
        { body: str('x'), traceId: 'not hex' },
        { body: str('x'), attributes: [{ value: str('no key') }] },
        'not a record',
      ]),
    );
    expect(mapping.artifacts.map((a) => a.raw)).toEqual(['fine']);
    expect(mapping).toMatchObject({ total: 9, rejected: 8 });
    expect([...mapping.reasons.keys()]).toEqual([
      'the record has no body (cairn stores the body as the log line)',
      `the body is larger than ${LIMITS.maxRawBytes} bytes`,
      'a value nests deeper than 28 levels',
      'intValue must be an integer',
      'traceId: must be hex',
      'every attribute needs a string key',
      'record: Invalid input: expected object, received string',
    ]);
    expect(mapping.reasons.get('the record has no body (cairn stores the body as the log line)')).toBe(2);
  });

  it('drops the attribute maps of a record whose metadata is too large, and says so', () => {
    const big = Array.from({ length: 200 }, (_, i) => attr(`k${i}`, str('v'.repeat(100))));
    const { artifacts, rejected } = map(request([{ body: str('x'), attributes: [attr('small', str('kept'))] }, { body: str('y'), attributes: big }], big));
    expect(rejected).toBe(0);
    expect(artifacts[0]!.metadata).toEqual({ otlp: { attributes: { small: 'kept' }, truncated: ['resource'] } });
    expect(artifacts[1]!.metadata).toEqual({ otlp: { truncated: ['resource', 'attributes'] } });
  });

  it('rejects a whole resource whose attributes are malformed, counting its records', () => {
    const mapping = map({ resourceLogs: [{ resource: { attributes: [{ key: 1 }] }, scopeLogs: [{ logRecords: [{ body: str('a') }, { body: str('b') }] }] }] });
    expect(mapping).toMatchObject({ total: 2, rejected: 2 });
    expect([...mapping.reasons]).toEqual([['resource: every attribute needs a string key', 2]]);
  });

  it('makes lone surrogates of JSON text into U+FFFD, which the store takes', () => {
    const body = Buffer.from('{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"a\\ud800b"},"attributes":[{"key":"k\\udc00","value":{"stringValue":"v"}}]}]}]}]}');
    const [artifact] = map(decodeLogsRequest(body, 'json')).artifacts;
    expect(artifact!.raw).toBe('a\ufffdb');
    expect(artifact!.metadata).toEqual({ otlp: { attributes: { 'k\ufffd': 'v' } } });
  });
});

describe('OTLP request decoding', () => {
  it('tells the encodings by media type', () => {
    expect(encodingOf('application/x-protobuf')).toBe('protobuf');
    expect(encodingOf('Application/JSON; charset=utf-8')).toBe('json');
    expect(encodingOf('text/plain')).toBeNull();
  });

  it('refuses what is not an ExportLogsServiceRequest as bad data', () => {
    expect(() => decodeLogsRequest(Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]), 'protobuf')).toThrow(OtlpDecodeError);
    expect(() => decodeLogsRequest(Buffer.from([0xc3, 0x28]), 'json')).toThrow(/not UTF-8/);
    expect(() => readLogsRequest({ resourceLogs: [{ scopeLogs: { logRecords: [] } }] })).toThrow(/resourceLogs.0.scopeLogs: scopeLogs must be an array/);
    expect(readLogsRequest(decodeLogsRequest(Buffer.alloc(0), 'protobuf')).records).toBe(0);
  });

  it('stays bounded on a protobuf body nested far deeper than any record needs', () => {
    // 100,000 nested arrayValues: the decoder runs out of stack and says so, or the mapping refuses the depth.
    // Built inside out: each level is a tag and the length of what it wraps, written outermost first.
    const innermost = Buffer.from([0x0a, 0x01, 0x78]); // AnyValue{stringValue:"x"}
    // AnyValue.arrayValue (5), ArrayValue.values (1), repeated; then LogRecord.body (5), ScopeLogs.log_records (2),
    // ResourceLogs.scope_logs (2), ExportLogsServiceRequest.resource_logs (1).
    const tags = [...Array.from({ length: 200_000 }, (_, i) => (i % 2 === 0 ? 0x0a : 0x2a)), 0x2a, 0x12, 0x12, 0x0a];
    const prefixes: Buffer[] = [];
    let length = innermost.length;
    for (const tag of tags) {
      const prefix = Buffer.concat([Buffer.from([tag]), varint(length)]);
      prefixes.push(prefix);
      length += prefix.length;
    }
    const bytes = Buffer.concat([...prefixes.reverse(), innermost]);
    const started = performance.now();
    let outcome: string;
    try {
      const mapping = map(decodeLogsRequest(bytes, 'protobuf'));
      outcome = [...mapping.reasons.keys()].join();
    } catch (err) {
      outcome = (err as Error).message;
    }
    expect(outcome).toMatch(/nests deeper|not a protobuf ExportLogsServiceRequest/);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

function varint(n: number): Buffer {
  const bytes: number[] = [];
  while (n > 0x7f) {
    bytes.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  bytes.push(n);
  return Buffer.from(bytes);
}
