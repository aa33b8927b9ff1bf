// A feed of any kind to the pages of claims the sync stores.
import type { FeedRead, FeedRequest } from './types.js';
import { readBlockList } from './block-list.js';
import { readMisp } from './misp.js';
import { readStixBundle } from './stix-bundle.js';
import { readTaxii } from './taxii.js';

export function readFeed(request: FeedRequest): FeedRead {
  switch (request.feed.kind) {
    case 'taxii':
      return readTaxii(request);
    case 'misp':
      return readMisp(request);
    case 'stix-bundle':
      return readStixBundle(request);
    case 'plain':
    case 'csv':
      return readBlockList(request);
  }
}

export { FeedError, type FeedClaim, type FeedPage, type FeedRead } from './types.js';
