// A STIX 2.1 bundle at a URL: read whole each time (a snapshot), so an
// indicator the bundle no longer holds is withdrawn.
import { z } from 'zod';
import { describeUrl } from '../feeds.js';
import { readStixObject, STIX_MEDIA_TYPE } from '../stix.js';
import { fetchJson } from './fetch.js';
import { FeedError, type FeedPage, type FeedRead, type FeedRequest } from './types.js';

const Bundle = z.object({ type: z.literal('bundle'), objects: z.array(z.unknown()).default([]) });

export function readStixBundle(request: FeedRequest): FeedRead {
  async function* pages(): AsyncGenerator<FeedPage> {
    const { json } = await fetchJson(request.client, request.url, request.feed.settings, `${STIX_MEDIA_TYPE}, application/json`);
    const bundle = Bundle.safeParse(json);
    if (!bundle.success) throw new FeedError(`${describeUrl(request.url)} is not a STIX bundle (type "bundle" with objects)`);
    const page: FeedPage = { fetched: bundle.data.objects.length, claims: [], withdrawn: [], rejected: [] };
    for (const object of bundle.data.objects) {
      const reading = readStixObject(object);
      if (reading.kind === 'claims') page.claims.push(...reading.claims);
      else if (reading.kind === 'revoked') page.withdrawn.push(reading.ref);
      else if (reading.kind === 'rejected') page.rejected.push({ ref: reading.ref, reason: reading.reason });
    }
    yield page;
  }
  return { pages: pages(), snapshot: true };
}
