// OpenTelemetry logs over OTLP/HTTP (docs/otlp.md): an ExportLogsServiceRequest
// in protobuf or JSON, gzipped or not, each log record an artifact
// (ingest/otlp/). Declared once; served at /api/v1/otlp/v1/logs on the API
// port and, with CAIRN_OTLP_PORT, at the standard /v1/logs on a port of its
// own (app.ts, createOtlpApp), so a collector's otlphttp exporter needs only
// host and port. Answers follow OTLP/HTTP, not the envelope: 200 with an
// ExportLogsServiceResponse (partial_success counting rejected records) in
// the request's encoding; failures as a google.rpc.Status, 429 and 503 with
// Retry-After.
import { z } from 'zod';
import { decodeLogsRequest, encodeLogsResponse, encodeStatus, encodingOf, OTLP_MEDIA_TYPES, OtlpDecodeError } from '../../ingest/otlp/codec.js';
import { logsToArtifacts, readLogsRequest } from '../../ingest/otlp/artifacts.js';
import { HttpError } from '../http-error.js';
import { admitAndPublish } from '../ingest.js';
import { MAX_ARTIFACTS_PER_REQUEST, MAX_BODY_BYTES, MAX_METADATA_BYTES, MAX_RAW_BYTES } from '../limits.js';
import { apiMetrics } from '../metrics.js';
import { defineRoute, type Route } from '../route.js';

/** Where the API port serves OTLP logs (under /api); the OTLP port serves the same route at OTLP's default path. */
export const OTLP_LOGS_API_PATH = '/v1/otlp/v1/logs';
export const OTLP_LOGS_PATH = '/v1/logs';

/** Reasons named in a partial success's error_message; the rest are counted. */
const REASONS_NAMED = 3;

const ExportLogsServiceResponse = z.object({
  partialSuccess: z
    .object({
      rejectedLogRecords: z.string().describe('records not stored (an int64, as a decimal string in JSON)'),
      errorMessage: z.string().describe('why, each reason with how many records it took'),
    })
    .optional()
    .describe('present when some records were rejected; the sender must not send them again'),
});

function describeRejections(reasons: Map<string, number>, rejected: number, total: number): string {
  const named = [...reasons].slice(0, REASONS_NAMED).map(([reason, count]) => `${reason} (${count})`);
  const more = reasons.size > REASONS_NAMED ? `; and ${reasons.size - REASONS_NAMED} other reason(s)` : '';
  return `${rejected} of ${total} log record(s) rejected: ${named.join('; ')}${more}`;
}

export const otlpLogsRoute: Route = defineRoute({
  method: 'post',
  path: OTLP_LOGS_API_PATH,
  summary: `Ingest OpenTelemetry logs (OTLP/HTTP, protobuf or JSON, gzip): each log record becomes an artifact (at most ${MAX_ARTIFACTS_PER_REQUEST} per request)`,
  description:
    'An OTLP/HTTP ExportLogsServiceRequest (opentelemetry-proto, logs v1), as OpenTelemetry SDKs and the Collector\'s otlphttp exporter send it; ' +
    'with CAIRN_OTLP_PORT also served at POST /v1/logs on that port. Each record becomes an artifact: raw is the body (a string as it is, ' +
    'a structured body as JSON), timestamp is timeUnixNano, else observedTimeUnixNano, else the time received; source is the attribute cairn.source ' +
    '(the record\'s, then the resource\'s), else the base name of log.file.name, else the resource\'s service.name, else "otlp"; metadata.otlp holds ' +
    'the resource and record attributes, scope, severity, trace and span ids. The answer follows OTLP/HTTP, not the JSON envelope: 200 with an ' +
    'ExportLogsServiceResponse in the request\'s encoding (partialSuccess when records were rejected: no body, a body or metadata over the limits, ' +
    'a malformed record); failures carry a google.rpc.Status in the request\'s encoding; 429 (pipeline behind) and 503 (bus unavailable) ' +
    'come with Retry-After. See docs/otlp.md.',
  tag: 'Artifacts',
  permission: 'signals:write',
  // Data, not a change of configuration, as POST /v1/artifacts.
  audit: false,
  rawBody: {
    types: { [OTLP_MEDIA_TYPES.protobuf]: 'a binary protobuf ExportLogsServiceRequest', [OTLP_MEDIA_TYPES.json]: "an ExportLogsServiceRequest in OTLP's JSON encoding" },
    limit: MAX_BODY_BYTES,
  },
  errorBody: {
    description: "a google.rpc.Status ({code, message}) in the request's encoding (JSON for a request of another media type)",
    render(error, ctx) {
      const encoding = encodingOf(ctx.request.type) ?? 'json';
      return { status: error.status, headers: { 'Content-Type': OTLP_MEDIA_TYPES[encoding] }, body: encodeStatus(encoding, error.status, error.message) };
    },
  },
  response: ExportLogsServiceResponse,
  envelope: false,
  fileTypes: [OTLP_MEDIA_TYPES.protobuf],
  errors: [413, 415, 429, 503],
  async handler({ auth, deps, ctx, rawBody }) {
    const encoding = encodingOf(rawBody!.type)!;
    let request: ReturnType<typeof readLogsRequest>;
    try {
      request = readLogsRequest(decodeLogsRequest(rawBody!.bytes, encoding));
    } catch (err) {
      if (err instanceof OtlpDecodeError) throw new HttpError(400, 'bad_request', err.message);
      throw err;
    }
    if (request.records > MAX_ARTIFACTS_PER_REQUEST) {
      throw new HttpError(413, 'payload_too_large', `at most ${MAX_ARTIFACTS_PER_REQUEST} log records per request; this one has ${request.records} (lower the sender's batch size)`);
    }
    const mapping = logsToArtifacts(request.shape, { orgId: auth.orgId, receivedAt: Date.now(), limits: { maxRawBytes: MAX_RAW_BYTES, maxMetadataBytes: MAX_METADATA_BYTES } });
    apiMetrics.ingested.inc({ outcome: 'rejected' }, mapping.rejected);
    apiMetrics.otlpRecords.inc({ encoding, outcome: 'rejected' }, mapping.rejected);
    if (mapping.artifacts.length) await admitAndPublish(deps, ctx, mapping.artifacts);
    apiMetrics.otlpRecords.inc({ encoding, outcome: 'accepted' }, mapping.artifacts.length);
    const partial = mapping.rejected ? { rejected: mapping.rejected, message: describeRejections(mapping.reasons, mapping.rejected, mapping.total) } : null;
    return {
      message: `${mapping.artifacts.length} log record(s) accepted for processing`,
      data: partial ? { partialSuccess: { rejectedLogRecords: String(partial.rejected), errorMessage: partial.message } } : {},
      raw: { status: 200, headers: { 'Content-Type': OTLP_MEDIA_TYPES[encoding] }, body: encodeLogsResponse(encoding, partial) },
    };
  },
});

export const otlpRoutes = [otlpLogsRoute];
