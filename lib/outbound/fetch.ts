// A `fetch` for SDKs that accept one (the AI providers' clients), made of the
// guarded outbound client: their requests obey the same address rules
// (CAIRN_OUTBOUND_ALLOW), deadline and size cap as every other URL a user
// configures. The response is read whole before it is handed over, so a
// caller sees no partial body, and streaming responses arrive at once.
import type { OutboundClient, OutboundRequest } from './client.js';

export interface GuardedFetchOptions {
  /** Backstop for one request; the SDK's own timeout usually ends it first. */
  timeoutMs: number;
  maxBytes?: number;
}

/** Statuses whose response has no body (the Response constructor refuses one). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** Describe the bytes as sent; the body handed on is whole and decoded. */
const DROPPED_RESPONSE_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

export function guardedFetch(client: OutboundClient, options: GuardedFetchOptions): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    // The outbound client does not decompress: ask for the plain body.
    const headers: Record<string, string> = { ...Object.fromEntries(request.headers), 'accept-encoding': 'identity' };
    const call: OutboundRequest = { url: request.url, method: request.method, headers, body, timeoutMs: options.timeoutMs, signal: init?.signal ?? undefined, ...(options.maxBytes ? { maxBytes: options.maxBytes } : {}) };
    const response = await client.request(call);
    const answer = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined || DROPPED_RESPONSE_HEADERS.has(name)) continue;
      for (const v of Array.isArray(value) ? value : [value]) answer.append(name, v);
    }
    return new Response(NULL_BODY.has(response.status) ? null : new Uint8Array(response.body), { status: response.status, headers: answer });
  };
}
