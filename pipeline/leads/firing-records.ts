// What a firing is written as: an observation (with a description an analyst
// can read), a lead row, and a lead message for the correlator.
import type { Observation } from '../../clickhouse/tables/observations.js';
import type { Lead } from '../../topics/index.js';
import type { FindingRecord } from '../stage.js';
import type { Firing, RuleEvent } from './windows.js';

/** Observation types by ECS event category, most specific first. */
const TYPE_BY_CATEGORY: [string, string][] = [
  ['malware', 'malware'],
  ['intrusion_detection', 'intrusion'],
  ['authentication', 'auth'],
  ['session', 'auth'],
  ['iam', 'iam'],
  ['web', 'web'],
  ['process', 'process'],
  ['file', 'file'],
  ['network', 'network'],
];

export function observationType(event: Pick<RuleEvent, 'fields'>): string {
  const value = event.fields['event.category'];
  const categories = (Array.isArray(value) ? value : value === undefined ? [] : [value]).map(String);
  return TYPE_BY_CATEGORY.find(([category]) => categories.includes(category))?.[1] ?? 'detection';
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

export function describeFiring(firing: Firing): string {
  const { rule } = firing;
  const name = `Lead rule "${rule.name}"`;
  const group = firing.group ? ` for ${rule.conditions.group_by} ${firing.group}` : '';
  const firstSeen = rule.conditions.first_seen;
  if (firstSeen && firing.value !== undefined) {
    return `${name}: ${firstSeen.field} ${firing.value} seen${group} for the first time in ${firstSeen.days} days, in a ${firing.sample.source} event at ${iso(firing.firstSeen)}`;
  }
  if (firing.windowStart === null) {
    const subject = firing.sample.fields['source.ip'] ?? firing.sample.fields['user.name'] ?? firing.sample.source;
    return `${name} matched a ${firing.sample.source} event (${String(subject)}) at ${iso(firing.firstSeen)}`;
  }
  if (rule.conditions.sequence && rule.conditions.ordered) {
    return `${name}: the ${rule.conditions.sequence.length} patterns of the sequence matched in order${group} within ${rule.conditions.window} (${firing.distinct} time(s) from ${iso(firing.firstSeen)} to ${iso(firing.lastSeen)}, ${firing.count} events)`;
  }
  const window = `in the ${rule.conditions.window} window from ${iso(firing.windowStart)}`;
  if (rule.conditions.sequence) return `${name}: all ${rule.conditions.sequence.length} patterns of the sequence matched${group} ${window} (${firing.count} events)`;
  if (rule.conditions.count_distinct) {
    return `${name}: ${firing.distinct} distinct values of ${rule.conditions.count_distinct}${group} ${window} (threshold ${rule.conditions.threshold}, ${firing.count} events)`;
  }
  return `${name}: ${firing.count} matching events${group} ${window} (threshold ${rule.conditions.threshold})`;
}

/**
 * Records for a firing. created_at is the time of the firing's first event,
 * so that a replay or a later update writes the same value.
 */
export function firingRecords(firing: Firing, now: string): FindingRecord {
  const { rule } = firing;
  const type = observationType(firing.sample);
  const firstSeen = iso(firing.firstSeen);
  const observation: Observation = {
    id: firing.id,
    org_id: rule.org_id,
    type,
    description: describeFiring(firing),
    severity: rule.severity,
    node_ids: firing.nodeIds,
    artifact_ids: firing.artifactIds,
    rule_id: rule.id,
    tags: rule.tags,
    created_by: `rule:${rule.id}`,
    created_at: firstSeen,
    updated_at: now,
  };
  const lead: Lead = {
    id: firing.id,
    org_id: rule.org_id,
    rule_id: rule.id,
    rule_name: rule.name,
    observation_id: firing.id,
    type,
    severity: rule.severity,
    group_by: rule.conditions.group_by ?? '',
    group_value: firing.group,
    window_start: firing.windowStart === null ? null : iso(firing.windowStart),
    event_count: firing.count,
    node_ids: firing.nodeIds,
    artifact_ids: firing.artifactIds,
    source: firing.sample.source,
    first_seen: firstSeen,
    last_seen: iso(firing.lastSeen),
    created_at: firstSeen,
  };
  return { observation, lead, leadRow: lead };
}
