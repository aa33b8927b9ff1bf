// A stored event (a row of the events table) as the rule stage had it: its
// parsed fields, its own time as `@timestamp`, the raw text when the caller
// read it, and the graph entities the enricher finds in the fields. What
// looks back over history (a threat intel retro-hunt, a lead-rule backfill)
// evaluates stored events through this, so that they see what ingest saw.
import type { StoredEvent } from '../../clickhouse/tables/events.js';
import type { EnrichedEvent } from '../../topics/index.js';
import { extractGraph } from './extract.js';

export function enrichedFromStored(row: StoredEvent, raw = ''): EnrichedEvent {
  const fields: EnrichedEvent['fields'] = { ...row.fields };
  if (row.event_time) fields['@timestamp'] = row.event_time;
  const parsed = { artifact_id: row.artifact_id, org_id: row.org_id, source: row.source, timestamp: row.timestamp, received_at: row.created_at, parser: row.parser, raw, fields };
  return { ...parsed, entities: extractGraph(parsed).entities };
}
