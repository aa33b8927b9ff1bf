// Retro-hunt: new or changed indicators searched for in the events stored in
// the last CAIRN_RETROHUNT_DAYS days. Candidates come from a coarse SQL test;
// each is confirmed by the same index that matches at ingest (built from only
// these indicators), so both find the same things. Past sightings become
// `intel` observations marked retrospective, with the events' own times, and
// leads for the correlator. A dry run only counts.
import type { Store } from '../clickhouse/client.js';
import { saveSightings } from '../clickhouse/tables/threatfeed-indicators.js';
import { retroHuntEvents, type RetroHuntSet } from '../clickhouse/tables/threatfeed-retro-hunt.js';
import type { Bus } from '../pipeline/bus/types.js';
import { enrichedFromStored } from '../pipeline/enricher/stored.js';
import { writeFindings } from '../pipeline/leads/consumer.js';
import { INTEL_FIELDS } from './fields.js';
import { groupHits, intelRecord, sightingsOf, type FeedNames } from './findings.js';
import { IntelIndex, type ClaimInput } from './intel-index.js';

/** Indicators per SQL query: keeps each query's parameters to a few hundred KiB. */
const CHUNK = 5000;
/** Events confirmed per query at most: a retro-hunt is a search, not a replay of the store. */
const EVENT_LIMIT = 50_000;

function huntSet(claims: ClaimInput[]): RetroHuntSet {
  const set: RetroHuntSet = { addresses: [], cidrs: [], domains: [], urls: [], lowered: [] };
  for (const { type, value } of claims) {
    if (type === 'ipv4-addr' || type === 'ipv6-addr') set.addresses.push(value);
    else if (type === 'ipv4-cidr' || type === 'ipv6-cidr') set.cidrs.push(value);
    else if (type === 'domain') set.domains.push(value);
    else if (type === 'url') set.urls.push(value, value.replace(/\/$/, ''));
    else set.lowered.push(value);
  }
  return set;
}

/**
 * One claim per feed and indicator, the last given: a claim the feed changed
 * on two pages comes twice, both unversioned (rowClaimInput), and put()
 * keeps the first of equal versions.
 */
function latestClaims(claims: ClaimInput[]): Iterable<ClaimInput> {
  return new Map(claims.map((c) => [`${c.orgId}|${c.indicatorId}|${c.subscriptionId}`, c])).values();
}

export interface RetroHuntResult {
  /** Stored events naming at least one of the indicators. */
  events: number;
  /** (indicator, event) pairs found. */
  sightings: number;
}

export interface RetroHuntRun {
  store: Store;
  bus: Bus;
  orgId: string;
  days: number;
  claims: ClaimInput[];
  feedName: FeedNames;
  /** false: count only (a dry run). */
  write: boolean;
}

export async function retroHunt(run: RetroHuntRun): Promise<RetroHuntResult> {
  const result: RetroHuntResult = { events: 0, sightings: 0 };
  const seenEvents = new Set<string>();
  for (let i = 0; i < run.claims.length; i += CHUNK) {
    const chunk = run.claims.slice(i, i + CHUNK);
    const index = new IntelIndex();
    for (const claim of latestClaims(chunk)) index.put(claim);
    const rows = await retroHuntEvents(run.store, run.orgId, run.days, huntSet(chunk), INTEL_FIELDS, EVENT_LIMIT);
    const unique = new Map(rows.map((r) => [r.artifact_id, r]));
    const hits = index.match([...unique.values()].map((row) => enrichedFromStored(row)));
    for (const hit of hits) seenEvents.add(hit.event.artifact_id);
    result.sightings += hits.length;
    if (!run.write || hits.length === 0) continue;
    const now = new Date().toISOString();
    const groups = groupHits(hits, true);
    // Sightings first, as at ingest (threatintel/matcher.ts recordsOf, then the rule stage writes the records).
    await saveSightings(run.store, sightingsOf(groups));
    await writeFindings(run, groups.map((g) => intelRecord(g, run.feedName, now)));
  }
  result.events = seenEvents.size;
  return result;
}
