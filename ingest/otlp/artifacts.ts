// OpenTelemetry log records to artifacts (docs/otlp.md): one artifact per
// record, its `raw` the record's body (a string as it is, a structured body
// as JSON), its time the record's, its source named by the record or its
// resource, and the rest of the record (resource and record attributes,
// scope, severity, trace context) in `metadata.otlp`. A record that cannot
// be stored is rejected with a reason and counted; the others go on (OTLP's
// partial success).
import { z } from 'zod';
import { newId } from '../../lib/ids.js';
import { MAX_JSON_DEPTH } from '../../lib/json-depth.js';
import { setOwn } from '../../lib/lookup-table.js';
import type { RawArtifact } from '../../topics/index.js';
import { OtlpDecodeError, type LogsRequest } from './codec.js';

/** The source of records that name none (no cairn.source, log.file.name or service.name). */
export const DEFAULT_OTLP_SOURCE = 'otlp';
const MAX_SOURCE_LENGTH = 128;

/** Attribute values sit at metadata.otlp.<map>.<key>: three levels under the metadata's own, within what metadata may nest. */
const MAX_VALUE_DEPTH = MAX_JSON_DEPTH - 4;

/** Latest time a record may carry: the end of 2299, the last the store's DateTime64(3) holds; a later one is treated as unknown. */
const MAX_TIME_MS = Date.UTC(2299, 11, 31, 23, 59, 59, 999);

export interface OtlpLimits {
  /** Bytes of an artifact's raw (the body); a larger record is rejected. */
  maxRawBytes: number;
  /** Bytes of an artifact's metadata as JSON; past it the attribute maps are dropped (and said so), then the record is rejected. */
  maxMetadataBytes: number;
}

export interface LogsMapping {
  artifacts: RawArtifact[];
  /** Records in the request. */
  total: number;
  rejected: number;
  /** Why records were rejected, each reason once with how many it took. */
  reasons: Map<string, number>;
}

type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
type JsonObject = { [key: string]: JsonValue };

/** Why one record (or all records of a resource or scope) cannot be stored. */
class RecordRejected extends Error {}

// The request's structure; records are checked one by one below, so one bad record costs only itself.
const Attributes = z.array(z.unknown(), { message: 'attributes must be an array of key-value pairs' }).nullish();
const RequestShape = z.object({
  resourceLogs: z
    .array(
      z.object({
        resource: z.object({ attributes: Attributes }).nullish(),
        scopeLogs: z
          .array(
            z.object({
              scope: z.object({ name: z.string().nullish(), version: z.string().nullish(), attributes: Attributes }).nullish(),
              logRecords: z.array(z.unknown(), { message: 'logRecords must be an array' }).nullish(),
            }),
            { message: 'scopeLogs must be an array' },
          )
          .nullish(),
      }),
      { message: 'resourceLogs must be an array' },
    )
    .nullish(),
});
type RequestShape = z.infer<typeof RequestShape>;

/** Nanoseconds since the epoch as fixed64: a decimal string or a JSON number. */
const Nanos = z.union([z.string().regex(/^\d{1,20}$/, 'must be a decimal integer'), z.number().nonnegative().finite()]);
/** A trace or span id: hex in JSON, bytes in protobuf; read as lower-case hex. */
const TraceContextId = z
  .union([z.string().regex(/^(?:[0-9A-Fa-f]{2})*$/, 'must be hex'), z.instanceof(Uint8Array)])
  .transform((id) => (typeof id === 'string' ? id.toLowerCase() : Buffer.from(id.buffer, id.byteOffset, id.byteLength).toString('hex')));

const LogRecord = z.object({
  timeUnixNano: Nanos.nullish(),
  observedTimeUnixNano: Nanos.nullish(),
  severityNumber: z.number().int().nullish(),
  severityText: z.string().nullish(),
  body: z.unknown().optional(),
  attributes: Attributes,
  droppedAttributesCount: z.number().int().nullish(),
  flags: z.number().int().nullish(),
  traceId: TraceContextId.nullish(),
  spanId: TraceContextId.nullish(),
  eventName: z.string().nullish(),
});
type LogRecord = z.infer<typeof LogRecord>;

/** Text as Unicode: JSON may carry lone surrogates ("\ud800"), which the store refuses; protobuf's UTF-8 decoding already replaced bad bytes. */
function text(value: string): string {
  return value.isWellFormed() ? value : value.toWellFormed();
}

/** An int64 as a JSON number when it is exact, else as its decimal string. */
function int64(value: unknown): number | string {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : value;
  }
  throw new RecordRejected('intValue must be an integer');
}

/** An AnyValue as the JSON value it stands for: a kvlist is an object, bytes are base64, an empty value is null. */
function anyValue(value: unknown, depth: number): JsonValue {
  if (value === undefined || value === null) return null;
  if (depth > MAX_VALUE_DEPTH) throw new RecordRejected(`a value nests deeper than ${MAX_VALUE_DEPTH} levels`);
  if (typeof value !== 'object' || Array.isArray(value)) throw new RecordRejected('an AnyValue must be an object such as {"stringValue": "..."}');
  const v = value as Record<string, unknown>;
  if (v.stringValue !== undefined && v.stringValue !== null) {
    if (typeof v.stringValue !== 'string') throw new RecordRejected('stringValue must be a string');
    return text(v.stringValue);
  }
  if (v.boolValue !== undefined && v.boolValue !== null) {
    if (typeof v.boolValue !== 'boolean') throw new RecordRejected('boolValue must be true or false');
    return v.boolValue;
  }
  if (v.intValue !== undefined && v.intValue !== null) return int64(v.intValue);
  if (v.doubleValue !== undefined && v.doubleValue !== null) {
    if (typeof v.doubleValue === 'number') return Number.isFinite(v.doubleValue) ? v.doubleValue : String(v.doubleValue);
    // proto3's JSON writes the three non-finite doubles as strings; JSON has no numbers for them.
    if (v.doubleValue === 'NaN' || v.doubleValue === 'Infinity' || v.doubleValue === '-Infinity') return v.doubleValue;
    throw new RecordRejected('doubleValue must be a number');
  }
  if (v.arrayValue !== undefined && v.arrayValue !== null) {
    const values = (v.arrayValue as { values?: unknown }).values ?? [];
    if (!Array.isArray(values)) throw new RecordRejected('arrayValue.values must be an array');
    return values.map((item) => anyValue(item, depth + 1));
  }
  if (v.kvlistValue !== undefined && v.kvlistValue !== null) return keyValues((v.kvlistValue as { values?: unknown }).values, depth + 1);
  if (v.bytesValue !== undefined && v.bytesValue !== null) {
    if (v.bytesValue instanceof Uint8Array) return Buffer.from(v.bytesValue.buffer, v.bytesValue.byteOffset, v.bytesValue.byteLength).toString('base64');
    if (typeof v.bytesValue === 'string') return v.bytesValue;
    throw new RecordRejected('bytesValue must be base64 text');
  }
  return null;
}

/** A list of KeyValue as an object (attributes, a kvlist); a repeated key keeps its last value. */
function keyValues(list: unknown, depth: number): JsonObject {
  const object: JsonObject = {};
  if (list === undefined || list === null) return object;
  if (!Array.isArray(list)) throw new RecordRejected('attributes must be an array of key-value pairs');
  if (depth > MAX_VALUE_DEPTH) throw new RecordRejected(`a value nests deeper than ${MAX_VALUE_DEPTH} levels`);
  for (const pair of list) {
    const key = (pair as { key?: unknown } | null)?.key;
    if (typeof key !== 'string') throw new RecordRejected('every attribute needs a string key');
    setOwn(object, text(key), anyValue((pair as { value?: unknown }).value, depth + 1));
  }
  return object;
}

/** Epoch nanoseconds as milliseconds; null for 0 (OTLP's "unknown") and for times no date can hold. */
function nanosToMs(nanos: string | number | null | undefined): number | null {
  if (nanos === undefined || nanos === null) return null;
  const ms = typeof nanos === 'number' ? Math.floor(nanos / 1e6) : Number(BigInt(nanos) / 1_000_000n);
  return ms > 0 && ms <= MAX_TIME_MS ? ms : null;
}

function sourceName(value: JsonValue | undefined): string | null {
  if (typeof value !== 'string') return null;
  const name = value.trim();
  return name ? name.slice(0, MAX_SOURCE_LENGTH) : null;
}

/** `cairn.source` (the record's, then the resource's), else log.file.name's base name, else service.name, else "otlp". */
function sourceOf(attributes: JsonObject, resource: JsonObject): string {
  const own = (key: string, from: JsonObject) => (Object.hasOwn(from, key) ? from[key] : undefined);
  const fileName = own('log.file.name', attributes);
  const baseName = typeof fileName === 'string' ? fileName.split(/[\\/]/).pop() : undefined;
  return (
    sourceName(own('cairn.source', attributes)) ??
    sourceName(own('cairn.source', resource)) ??
    sourceName(baseName) ??
    sourceName(own('service.name', resource)) ??
    DEFAULT_OTLP_SOURCE
  );
}

interface Context {
  resource: JsonObject;
  scope: JsonObject | null;
  orgId: string;
  receivedAt: number;
  limits: OtlpLimits;
}

function toArtifact(record: LogRecord, context: Context): RawArtifact {
  const body = anyValue(record.body, 1);
  const raw = body === null ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  if (raw === '') throw new RecordRejected('the record has no body (cairn stores the body as the log line)');
  if (Buffer.byteLength(raw, 'utf8') > context.limits.maxRawBytes) throw new RecordRejected(`the body is larger than ${context.limits.maxRawBytes} bytes`);
  const attributes = keyValues(record.attributes, 1);
  const otlp: JsonObject = {};
  if (Object.keys(context.resource).length) otlp.resource = context.resource;
  if (context.scope) otlp.scope = context.scope;
  if (Object.keys(attributes).length) otlp.attributes = attributes;
  if (record.severityNumber) otlp.severity_number = record.severityNumber;
  if (record.severityText) otlp.severity_text = text(record.severityText);
  if (record.eventName) otlp.event_name = text(record.eventName);
  if (record.traceId) otlp.trace_id = record.traceId;
  if (record.spanId) otlp.span_id = record.spanId;
  if (record.flags) otlp.flags = record.flags;
  if (record.droppedAttributesCount) otlp.dropped_attributes_count = record.droppedAttributesCount;
  const time = nanosToMs(record.timeUnixNano);
  const observed = nanosToMs(record.observedTimeUnixNano);
  if (observed !== null) otlp.observed_time = new Date(observed).toISOString();
  const metadata = fitMetadata({ otlp }, otlp, context.limits.maxMetadataBytes);
  return {
    id: newId(),
    org_id: context.orgId,
    source: sourceOf(attributes, context.resource),
    raw,
    timestamp: new Date(time ?? observed ?? context.receivedAt).toISOString(),
    metadata,
  };
}

/** The metadata within its byte limit: resource attributes go first, then the record's (named in `otlp.truncated`); rejected if still too large. */
function fitMetadata(metadata: JsonObject, otlp: JsonObject, limit: number): JsonObject {
  const fits = () => Buffer.byteLength(JSON.stringify(metadata), 'utf8') <= limit;
  const dropped: string[] = [];
  for (const key of ['resource', 'attributes']) {
    if (fits()) break;
    if (otlp[key] === undefined) continue;
    delete otlp[key];
    dropped.push(key);
    otlp.truncated = dropped;
  }
  if (!fits()) throw new RecordRejected(`the record's metadata is larger than ${limit} bytes as JSON`);
  return metadata;
}

function reject(mapping: LogsMapping, reason: string, count = 1): void {
  mapping.rejected += count;
  mapping.reasons.set(reason, (mapping.reasons.get(reason) ?? 0) + count);
}

/** Counts the records of a request (for the per-request limit), after checking its structure; OtlpDecodeError when it is not an ExportLogsServiceRequest. */
export function readLogsRequest(request: LogsRequest): { shape: RequestShape; records: number } {
  const parsed = RequestShape.safeParse(request ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new OtlpDecodeError(`not an ExportLogsServiceRequest: ${issue.path.join('.') || '(body)'}: ${issue.message}`);
  }
  let records = 0;
  for (const resourceLogs of parsed.data.resourceLogs ?? []) for (const scopeLogs of resourceLogs.scopeLogs ?? []) records += scopeLogs.logRecords?.length ?? 0;
  return { shape: parsed.data, records };
}

/** The artifacts a checked request makes, and what was rejected and why. */
export function logsToArtifacts(shape: RequestShape, options: { orgId: string; receivedAt: number; limits: OtlpLimits }): LogsMapping {
  const mapping: LogsMapping = { artifacts: [], total: 0, rejected: 0, reasons: new Map() };
  for (const resourceLogs of shape.resourceLogs ?? []) {
    const scopes = resourceLogs.scopeLogs ?? [];
    const inResource = scopes.reduce((n, s) => n + (s.logRecords?.length ?? 0), 0);
    mapping.total += inResource;
    let resource: JsonObject;
    try {
      resource = keyValues(resourceLogs.resource?.attributes, 1);
    } catch (err) {
      if (!(err instanceof RecordRejected)) throw err;
      reject(mapping, `resource: ${err.message}`, inResource);
      continue;
    }
    for (const scopeLogs of scopes) {
      const records = scopeLogs.logRecords ?? [];
      let scope: JsonObject | null = null;
      try {
        const { name, version, attributes } = scopeLogs.scope ?? {};
        const scopeAttributes = keyValues(attributes, 1);
        if (name || version || Object.keys(scopeAttributes).length) {
          scope = {};
          if (name) scope.name = text(name);
          if (version) scope.version = text(version);
          if (Object.keys(scopeAttributes).length) scope.attributes = scopeAttributes;
        }
      } catch (err) {
        if (!(err instanceof RecordRejected)) throw err;
        reject(mapping, `scope: ${err.message}`, records.length);
        continue;
      }
      const context: Context = { resource, scope, ...options };
      for (const item of records) {
        const record = LogRecord.safeParse(item ?? {});
        if (!record.success) {
          const issue = record.error.issues[0]!;
          reject(mapping, `${issue.path.join('.') || 'record'}: ${issue.message}`);
          continue;
        }
        try {
          mapping.artifacts.push(toArtifact(record.data, context));
        } catch (err) {
          if (!(err instanceof RecordRejected)) throw err;
          reject(mapping, err.message);
        }
      }
    }
  }
  return mapping;
}
