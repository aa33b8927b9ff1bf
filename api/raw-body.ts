// Request bodies read as bytes, for the routes that speak a protocol of their
// own instead of cairn's JSON (OTLP/HTTP's protobuf and JSON): the media type
// is checked (415 otherwise), gzip and deflate are undone as Content-Encoding
// says, and both the bytes sent and the bytes they inflate to are bounded
// (413), so a small compressed body cannot expand without limit. The JSON
// body parser (app.ts) leaves these routes' bodies unread.
import { createGunzip, createInflate } from 'node:zlib';
import type { Readable, Transform } from 'node:stream';
import type { Context } from 'koa';
import { HttpError } from './http-error.js';

export interface RawBodyOptions {
  /** Media types taken, each with what it holds (for the API document). */
  types: Record<string, string>;
  /** Largest body in bytes, as sent and once decompressed. */
  limit: number;
}

export interface RawRequestBody {
  bytes: Buffer;
  /** The request's media type, lower case without parameters: one of the route's types. */
  type: string;
}

function decoderFor(encoding: string): Transform | null {
  switch (encoding) {
    case '':
    case 'identity':
      return null;
    case 'gzip':
    case 'x-gzip':
      return createGunzip();
    case 'deflate':
      return createInflate();
    default:
      throw new HttpError(415, 'unsupported_media_type', `Content-Encoding "${encoding}" is not supported: send the body as it is, or gzip or deflate it`);
  }
}

/**
 * Reads a stream to its end, up to `limit` bytes. Past the limit it keeps
 * reading and drops the rest, so the request ends and the client gets the
 * 413 (destroying the request would reset the connection instead).
 */
function collect(stream: Readable, limit: number, what: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      reject(err);
    };
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) fail(new HttpError(413, 'payload_too_large', `request body is larger than ${limit} bytes${what}`));
      else chunks.push(chunk);
    });
    stream.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
    stream.on('error', fail);
    stream.on('close', () => fail(new Error('the request ended before its body did')));
  });
}

/** The body's bytes; 415 for another media type or content coding, 413 past the limit, 400 for a body that does not decompress. */
export async function readRawBody(ctx: Context, options: RawBodyOptions): Promise<RawRequestBody> {
  // A body parser that ran first would leave nothing to read: fail loudly rather than take the body as empty.
  if ((ctx.request as { body?: unknown }).body !== undefined) throw new Error(`the body of ${ctx.path} was parsed before its route could read it as bytes`);
  const type = ctx.request.type.toLowerCase();
  if (!Object.hasOwn(options.types, type)) {
    throw new HttpError(415, 'unsupported_media_type', `Content-Type must be ${Object.keys(options.types).join(' or ')}${type ? `, not ${type}` : ''}`);
  }
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > options.limit) throw new HttpError(413, 'payload_too_large', `request body is larger than ${options.limit} bytes`);
  const encoding = ctx.get('content-encoding').trim().toLowerCase();
  const decoder = decoderFor(encoding);
  if (!decoder) return { bytes: await collect(ctx.req, options.limit, ''), type };
  // The sent bytes are counted as they pass into the decoder, the inflated ones as they come out.
  let sent = 0;
  ctx.req.on('data', (chunk: Buffer) => {
    sent += chunk.length;
    if (sent > options.limit) decoder.destroy(new HttpError(413, 'payload_too_large', `request body is larger than ${options.limit} bytes`));
  });
  ctx.req.on('error', (err) => decoder.destroy(err));
  ctx.req.pipe(decoder);
  try {
    return { bytes: await collect(decoder, options.limit, ' once decompressed'), type };
  } catch (err) {
    if (err instanceof HttpError) throw err;
    throw new HttpError(400, 'bad_request', `request body is not valid ${encoding} data: ${(err as Error).message}`);
  } finally {
    // What is left of a refused body is read and dropped, so the answer reaches the client.
    ctx.req.unpipe(decoder);
    decoder.destroy();
    ctx.req.resume();
  }
}
