// TAXII 2.1 client: from a discovery or API-root URL to the objects of one
// collection, newest additions since the cursor (added_after), page by page
// with `next` while the server says there is `more`. The cursor after a page
// is the server's X-TAXII-Date-Added-Last, so a run that dies after a stored
// page resumes after it.
import { z } from 'zod';
import { describeUrl } from '../feeds.js';
import { readStixObjects, TAXII_MEDIA_TYPE } from '../stix.js';
import { fetchJson } from './fetch.js';
import { FeedError, type FeedPage, type FeedRead, type FeedRequest } from './types.js';

const Discovery = z.object({ api_roots: z.array(z.string()).default([]), default: z.string().optional() });
const Envelope = z.object({ more: z.boolean().default(false), next: z.string().optional(), objects: z.array(z.unknown()).default([]) });

/** The API root a URL names: itself, or the discovery document's default (else its first) root. */
async function apiRoot(request: FeedRequest, auth: Parameters<typeof fetchJson>[2]): Promise<string> {
  const { json } = await fetchJson(request.client, request.url, auth, TAXII_MEDIA_TYPE);
  const discovery = Discovery.safeParse(json);
  const isDiscovery = discovery.success && (discovery.data.api_roots.length > 0 || discovery.data.default !== undefined);
  const root = isDiscovery ? (discovery.data.default ?? discovery.data.api_roots[0]!) : request.url;
  return new URL(root.endsWith('/') ? root : `${root}/`, request.url).toString();
}

export function readTaxii(request: FeedRequest): FeedRead {
  if (request.feed.kind !== 'taxii') throw new Error('not a TAXII feed');
  const settings = request.feed.settings;
  async function* pages(): AsyncGenerator<FeedPage> {
    const root = await apiRoot(request, settings);
    const objectsUrl = new URL(`collections/${encodeURIComponent(settings.collection_id)}/objects/`, root);
    let next: string | undefined;
    let cursor = request.cursor;
    for (let page = 0; ; page++) {
      const url = new URL(objectsUrl);
      url.searchParams.set('limit', String(settings.page_size));
      if (cursor) url.searchParams.set('added_after', cursor);
      if (next) url.searchParams.set('next', next);
      const { json, response } = await fetchJson(request.client, url.toString(), settings, TAXII_MEDIA_TYPE);
      const envelope = Envelope.safeParse(json);
      if (!envelope.success) throw new FeedError(`${describeUrl(url.toString())} did not answer a TAXII envelope`);
      const result = readStixObjects(envelope.data.objects);
      const last = response.headers['x-taxii-date-added-last'];
      const lastAdded = Array.isArray(last) ? last[0] : last;
      if (lastAdded && !Number.isNaN(Date.parse(lastAdded))) result.cursor = lastAdded;
      yield result;
      if (!envelope.data.more || envelope.data.objects.length === 0) return;
      if (envelope.data.next) {
        next = envelope.data.next;
      } else if (result.cursor) {
        // No `next`: the spec's other way on is added_after the last date added.
        next = undefined;
        cursor = result.cursor;
      } else {
        throw new FeedError(`${describeUrl(objectsUrl.toString())} said there is more but gave neither next nor X-TAXII-Date-Added-Last`);
      }
      if (page > 100_000) throw new FeedError('more than 100,000 pages in one run');
    }
  }
  return { pages: pages(), snapshot: false };
}
