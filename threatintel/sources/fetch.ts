// One GET of a feed document through the guarded outbound client: a non-2xx
// answer or a body that is not what was asked for is a FeedError naming the
// URL without its query string (it may hold a key).
import type { OutboundClient, OutboundResponse } from '../../lib/outbound/client.js';
import { authHeaders, describeUrl, type AuthSettings } from '../feeds.js';
import { FeedError } from './types.js';

/** Feeds are larger than webhook answers: a big block list or MISP event is tens of MiB. */
const FEED_MAX_BYTES = 64 * 1024 * 1024;
const FEED_TIMEOUT_MS = 60_000;

export async function fetchFeed(client: OutboundClient, url: string, auth: AuthSettings, accept: string): Promise<OutboundResponse> {
  const response = await client.request({ url, headers: { accept, ...authHeaders(auth) }, maxBytes: FEED_MAX_BYTES, timeoutMs: FEED_TIMEOUT_MS });
  if (response.status < 200 || response.status >= 300) {
    throw new FeedError(`${describeUrl(url)} answered ${response.status}${response.status === 401 || response.status === 403 ? ' (check the feed credentials)' : ''}: ${response.text().slice(0, 200)}`);
  }
  return response;
}

export async function fetchJson(client: OutboundClient, url: string, auth: AuthSettings, accept = 'application/json'): Promise<{ json: unknown; response: OutboundResponse }> {
  const response = await fetchFeed(client, url, auth, accept);
  try {
    return { json: JSON.parse(response.text()) as unknown, response };
  } catch {
    throw new FeedError(`${describeUrl(url)} did not answer JSON`);
  }
}
