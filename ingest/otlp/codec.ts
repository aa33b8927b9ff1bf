// OTLP/HTTP's two encodings of the logs messages: binary protobuf
// (application/x-protobuf) and OTLP's JSON (application/json: proto3's JSON
// mapping with lowerCamelCase keys, 64-bit integers as strings or numbers,
// enums as integers, trace and span ids in hex). A request decodes to one
// plain shape whatever its encoding (see LogsRequest); answers are encoded
// in the request's encoding, as the specification asks.
import { ExportLogsServiceRequest, ExportLogsServiceResponse, Status } from './proto.js';

export type OtlpEncoding = 'protobuf' | 'json';

export const OTLP_MEDIA_TYPES: Readonly<Record<OtlpEncoding, string>> = { protobuf: 'application/x-protobuf', json: 'application/json' };

/** The encoding a request's Content-Type names, or null for any other type. */
export function encodingOf(contentType: string): OtlpEncoding | null {
  const type = contentType.split(';', 1)[0]!.trim().toLowerCase();
  if (type === OTLP_MEDIA_TYPES.protobuf) return 'protobuf';
  if (type === OTLP_MEDIA_TYPES.json) return 'json';
  return null;
}

/** A request body that is not an ExportLogsServiceRequest in the encoding it claims: OTLP's "bad data", answered 400. */
export class OtlpDecodeError extends Error {
  override name = 'OtlpDecodeError';
}

/**
 * An ExportLogsServiceRequest as decoded, before any of it is checked: JSON
 * gives whatever the sender wrote, protobuf gives the descriptor's fields
 * (64-bit integers as decimal strings, bytes as Buffers). The mapping to
 * artifacts (artifacts.ts) validates it, record by record.
 */
export type LogsRequest = unknown;

/** Decodes the body; throws OtlpDecodeError when it is not a message in that encoding. */
export function decodeLogsRequest(body: Buffer, encoding: OtlpEncoding): LogsRequest {
  if (encoding === 'protobuf') {
    try {
      const message = ExportLogsServiceRequest.decode(body);
      return ExportLogsServiceRequest.toObject(message, { longs: String, enums: Number });
    } catch (err) {
      // Truncated or malformed wire data, or nesting so deep that decoding runs out of stack (a RangeError).
      throw new OtlpDecodeError(`the body is not a protobuf ExportLogsServiceRequest: ${(err as Error).message}`);
    }
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(body);
  } catch {
    throw new OtlpDecodeError('the body is not UTF-8 text');
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new OtlpDecodeError(`the body is not valid JSON: ${(err as Error).message}`);
  }
}

/** An ExportLogsServiceResponse: empty on full success; with partial_success when some records were rejected. */
export function encodeLogsResponse(encoding: OtlpEncoding, partial: { rejected: number; message: string } | null): Buffer | string {
  if (encoding === 'json') {
    // int64 as a decimal string, as proto3's JSON mapping writes it.
    return JSON.stringify(partial ? { partialSuccess: { rejectedLogRecords: String(partial.rejected), errorMessage: partial.message } } : {});
  }
  const message = ExportLogsServiceResponse.create(partial ? { partialSuccess: { rejectedLogRecords: partial.rejected, errorMessage: partial.message } } : {});
  return Buffer.from(ExportLogsServiceResponse.encode(message).finish());
}

/** gRPC status codes (google.rpc.Code) for the HTTP statuses cairn answers; OTLP clients go by the HTTP status, this is for their logs. */
function grpcCode(httpStatus: number): number {
  switch (httpStatus) {
    case 400:
    case 415:
      return 3; // INVALID_ARGUMENT
    case 401:
      return 16; // UNAUTHENTICATED
    case 403:
      return 7; // PERMISSION_DENIED
    case 404:
      return 5; // NOT_FOUND
    case 405:
      return 12; // UNIMPLEMENTED
    case 413:
    case 429:
      return 8; // RESOURCE_EXHAUSTED
    case 503:
      return 14; // UNAVAILABLE
    default:
      return httpStatus >= 500 ? 13 : 2; // INTERNAL, UNKNOWN
  }
}

/** A google.rpc.Status, the body of every OTLP/HTTP failure. */
export function encodeStatus(encoding: OtlpEncoding, httpStatus: number, message: string): Buffer | string {
  const code = grpcCode(httpStatus);
  if (encoding === 'json') return JSON.stringify({ code, message });
  return Buffer.from(Status.encode(Status.create({ code, message })).finish());
}
