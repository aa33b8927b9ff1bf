// A dry run before subscribing: read the feed now, keep nothing, and count
// the stored events (last CAIRN_RETROHUNT_DAYS days) its current indicators
// would match. A feed that cannot be read is an answer with the reason, not
// an error.
import type { StoredSubscription } from '../clickhouse/tables/threatfeed-subscriptions.js';
import { OutboundError } from '../lib/outbound/client.js';
import type { FeedSettings } from './feeds.js';
import { rowClaimInput } from './matcher.js';
import { retroHunt } from './retro-hunt.js';
import { FeedError, readFeed } from './sources/index.js';
import { readIntoLibrary, type IntelDeps } from './sync.js';

export interface DryRunResult {
  fetched: number;
  indicators: number;
  matchable: number;
  rejected: number;
  matching_events: number;
  sightings: number;
  days: number;
  error: string | null;
}

export async function dryRun(deps: IntelDeps, subscription: StoredSubscription, feed: FeedSettings): Promise<DryRunResult> {
  const days = deps.config.threatIntel.retroHuntDays;
  try {
    const read = readFeed({ url: subscription.url, feed, cursor: '', client: deps.outbound });
    const outcome = await readIntoLibrary(deps, subscription, read, { cursor: '', store: false });
    const matchable = outcome.changed.filter((c) => c.matchable);
    const hunt = await retroHunt({ store: deps.store, bus: deps.bus, orgId: subscription.org_id, days, claims: matchable.map(rowClaimInput), feedName: () => subscription.name, write: false });
    return { fetched: outcome.counts.fetched, indicators: outcome.changed.length, matchable: matchable.length, rejected: outcome.counts.rejected, matching_events: hunt.events, sightings: hunt.sightings, days, error: null };
  } catch (err) {
    if (!(err instanceof FeedError) && !(err instanceof OutboundError)) throw err;
    return { fetched: 0, indicators: 0, matchable: 0, rejected: 0, matching_events: 0, sightings: 0, days, error: err.message };
  }
}
