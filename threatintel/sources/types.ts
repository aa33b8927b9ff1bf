// What reading a feed gives the sync, whatever its kind: pages of claims
// (what the feed says of each indicator), the references it revoked, and
// where the next run resumes once a page is stored.
import type { IndicatorType } from '../indicator.js';
import type { OutboundClient } from '../../lib/outbound/client.js';
import type { FeedSettings } from '../feeds.js';

export interface FeedClaim {
  /** The feed's own name for the item: a STIX id, a MISP attribute uuid, a line of a list. */
  ref: string;
  type: IndicatorType;
  value: string;
  /** False for STIX patterns cairn keeps but does not match at ingest; `note` says why. */
  matchable: boolean;
  note: string;
  /** 0-100; the subscription's default when the feed gives none. */
  confidence?: number;
  labels: string[];
  validFrom?: string;
  validUntil?: string;
  /** When the feed last asserted it (STIX modified, MISP timestamp); the sync's time when the feed gives none. Decay runs from here. */
  assertedAt?: string;
}

export interface FeedPage {
  /** Items read (objects, attributes, lines). */
  fetched: number;
  claims: FeedClaim[];
  /** References the feed revoked or withdrew (a revoked STIX object, an attribute no longer flagged to_ids): their claims are removed. */
  withdrawn: string[];
  rejected: { ref: string; reason: string }[];
  /** Where the next run resumes once this page is stored; undefined keeps the current cursor. */
  cursor?: string;
}

export interface FeedRead {
  pages: AsyncIterable<FeedPage>;
  /** A snapshot feed lists everything it holds each time: claims it no longer lists are removed once the whole read is stored. */
  snapshot: boolean;
}

export interface FeedRequest {
  url: string;
  feed: FeedSettings;
  /** Where the last run stopped (empty: from the beginning). */
  cursor: string;
  client: OutboundClient;
}

export class FeedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FeedError';
  }
}
