// A STIX 2.1 bundle at a URL: read whole each time (a snapshot), so an
// indicator the bundle no longer holds is withdrawn.
import { z } from 'zod';
import { describeUrl } from '../feeds.js';
import { readStixObjects, STIX_MEDIA_TYPE } from '../stix.js';
import { fetchJson } from './fetch.js';
import { FeedError, type FeedPage, type FeedRead, type FeedRequest } from './types.js';

const Bundle = z.object({ type: z.literal('bundle'), objects: z.array(z.unknown()).default([]) });

export function readStixBundle(request: FeedRequest): FeedRead {
  async function* pages(): AsyncGenerator<FeedPage> {
    const { json } = await fetchJson(request.client, request.url, request.feed.settings, `${STIX_MEDIA_TYPE}, application/json`);
    const bundle = Bundle.safeParse(json);
    if (!bundle.success) throw new FeedError(`${describeUrl(request.url)} is not a STIX bundle (type "bundle" with objects)`);
    yield readStixObjects(bundle.data.objects);
  }
  return { pages: pages(), snapshot: true };
}
