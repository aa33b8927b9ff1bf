// What intel hits are written as: an observation of type `intel` naming the
// indicator, its feeds and confidence, linked to the events' nodes and
// artifacts; a lead for the correlator; and a sighting per artifact. Hits of
// one indicator in one hour of event time make one observation and one lead
// (deterministic ids, so replays rewrite them); a retro-hunt's hits get their
// own ids and say they are retrospective, with the events' own times.
import type { Observation } from '../clickhouse/tables/observations.js';
import type { SightingRow } from '../clickhouse/tables/threatfeed-indicators.js';
import type { Severity } from '../clickhouse/severity.js';
import { stableId } from '../lib/ids.js';
import { eventTime } from '../pipeline/event-time.js';
import type { FindingRecord } from '../pipeline/stage.js';
import type { Lead } from '../topics/index.js';
import type { IntelHit, LiveClaim } from './intel-index.js';

/** Hits of one indicator within this much event time share an observation and a lead. */
export const SIGHTING_WINDOW_MS = 3_600_000;
const MAX_ARTIFACTS = 1000;
const MAX_NODES = 200;

/** Hits of one indicator in one window, with everything they saw. */
export interface HitGroup {
  orgId: string;
  indicatorId: string;
  type: string;
  value: string;
  windowStart: number;
  claims: LiveClaim[];
  artifactIds: string[];
  nodeIds: string[];
  firstSeen: number;
  lastSeen: number;
  count: number;
  source: string;
  fields: string[];
  retrospective: boolean;
  /** The hits it was made of, in the order given, each with its event time. */
  hits: { hit: IntelHit; at: number }[];
}

function severityOf(score: number): Severity {
  return score >= 75 ? 'high' : score >= 40 ? 'medium' : 'low';
}

/** Feed names by subscription id, for descriptions (ids when a name is unknown). */
export type FeedNames = (subscriptionId: string) => string;

export function groupId(group: Pick<HitGroup, 'orgId' | 'indicatorId' | 'windowStart' | 'retrospective'>): string {
  return stableId('intel-observation', group.orgId, group.indicatorId, String(group.windowStart), group.retrospective ? 'retrospective' : 'ingest');
}

/** The observation, lead rows and message of a group of hits. */
export function intelRecord(group: HitGroup, feedName: FeedNames, now: string): FindingRecord {
  const id = groupId(group);
  const best = group.claims.reduce((a, b) => (b.score > a.score ? b : a));
  const confidence = Math.max(...group.claims.map((c) => c.confidence));
  const feeds = group.claims.map((c) => `"${feedName(c.subscriptionId)}"`).join(', ');
  const first = new Date(group.firstSeen).toISOString();
  const severity = severityOf(best.score);
  const what = `${group.type} ${group.value}`;
  const description =
    `${group.retrospective ? 'Retrospective threat intel match' : 'Threat intel match'}: ${what} from ${feeds} ` +
    `(confidence ${confidence}, score ${best.score}) seen in ${group.fields.join(', ')} of ${group.count} ${group.source} event(s)` +
    `${group.retrospective ? ' stored before the indicator arrived' : ''}, first at ${first}`;
  const labels = [...new Set(group.claims.flatMap((c) => c.labels))].slice(0, 20);
  const observation: Observation = {
    id,
    org_id: group.orgId,
    type: 'intel',
    description,
    severity,
    node_ids: group.nodeIds,
    artifact_ids: group.artifactIds,
    rule_id: null,
    tags: ['intel', ...(group.retrospective ? ['retrospective'] : []), `indicator:${group.indicatorId}`, ...labels],
    created_by: `threatintel:${group.indicatorId}`,
    created_at: first,
    updated_at: now,
  };
  const lead: Lead = {
    id,
    org_id: group.orgId,
    // The indicator stands where a rule would: leads of one indicator are its firings.
    rule_id: group.indicatorId,
    rule_name: `Threat intel ${what}`,
    observation_id: id,
    type: 'intel',
    severity,
    group_by: 'indicator',
    group_value: group.value,
    window_start: new Date(group.windowStart).toISOString(),
    event_count: group.count,
    node_ids: group.nodeIds,
    artifact_ids: group.artifactIds,
    source: group.source,
    first_seen: first,
    last_seen: new Date(group.lastSeen).toISOString(),
    created_at: first,
  };
  return { observation, lead, leadRow: lead };
}

/** One sighting per hit of the groups (an artifact seen naming an indicator), naming its group's observation. */
export function sightingsOf(groups: HitGroup[]): SightingRow[] {
  return groups.flatMap((group) => {
    const observationId = groupId(group);
    return group.hits.map(({ hit, at }) => ({
      org_id: hit.event.org_id,
      indicator_id: hit.entry.id,
      artifact_id: hit.event.artifact_id,
      seen_at: new Date(at).toISOString(),
      field: hit.field,
      observation_id: observationId,
      retrospective: group.retrospective,
    }));
  });
}

function windowOf(at: number): number {
  return Math.floor(at / SIGHTING_WINDOW_MS) * SIGHTING_WINDOW_MS;
}

/** Groups hits by indicator and window in memory (a retro-hunt sees all its hits at once; ingest a batch's), each group keeping its own hits. */
export function groupHits(hits: IntelHit[], retrospective: boolean): HitGroup[] {
  const groups = new Map<string, HitGroup>();
  for (const hit of hits) {
    const at = eventTime(hit.event);
    const windowStart = windowOf(at);
    const key = `${hit.event.org_id}|${hit.entry.id}|${windowStart}`;
    let group = groups.get(key);
    if (!group) {
      group = {
        orgId: hit.event.org_id,
        indicatorId: hit.entry.id,
        type: hit.entry.type,
        value: hit.entry.value,
        windowStart,
        claims: hit.claims,
        artifactIds: [],
        nodeIds: [],
        firstSeen: at,
        lastSeen: at,
        count: 0,
        source: hit.event.source,
        fields: [],
        retrospective,
        hits: [],
      };
      groups.set(key, group);
    }
    group.hits.push({ hit, at });
    group.count++;
    group.firstSeen = Math.min(group.firstSeen, at);
    group.lastSeen = Math.max(group.lastSeen, at);
    if (group.artifactIds.length < MAX_ARTIFACTS && !group.artifactIds.includes(hit.event.artifact_id)) group.artifactIds.push(hit.event.artifact_id);
    for (const entity of hit.event.entities) if (group.nodeIds.length < MAX_NODES && !group.nodeIds.includes(entity.id)) group.nodeIds.push(entity.id);
    if (!group.fields.includes(hit.field)) group.fields.push(hit.field);
  }
  return [...groups.values()];
}
