// Re-parsing one slice of stored artifacts (pipeline/reprocess/consumer.ts),
// without I/O so that it runs on a worker thread: the artifacts and their
// stored events come in as the store's text, and what must change comes back
// as statements and encoded rows for the main thread to run.
//
// Each artifact goes through today's parser (with its organization's own
// decoders, as live parsing applies them), GeoIP and graph extraction, as
// the analysis stage would take it. Lead rules and threat intel matching do
// not see it: a re-parse is not new activity, and a rule's backfill
// (pipeline/leads/backfill.ts) is what runs rules over stored events. Its new event is compared
// with the stored one: the same, nothing is written; different, the stored
// row is replaced in place; none stored, one is added (only for artifacts
// the pipeline is surely done with); none now, the stored one is removed.
// Node and edge sightings are written for every event, as a fresh ingest
// writes them: they fold into the rows already there.
import { encodedRows, type EncodedRows } from '../../clickhouse/encoded-rows.js';
import { RowBinaryWriter } from '../../clickhouse/row-binary.js';
import { EDGE_SIGHTING_COLUMNS, writeEdgeSightings } from '../../clickhouse/tables/edges.js';
import { deleteEventsStatement, EVENT_COLUMNS, replaceEventsStatement, storedFieldsOf, type EventReplacement } from '../../clickhouse/tables/events.js';
import { encodeNodeSightings } from '../../clickhouse/tables/nodes.js';
import { NO_COUNTS, type SliceCounts } from '../../clickhouse/tables/reprocess.js';
import { isoToMs, msToIso } from '../../lib/iso-time.js';
import { createLogger } from '../../lib/logger.js';
import type { ParsedEvent } from '../../topics/index.js';
import { GraphFold } from '../enricher/consumer.js';
import { loadGeoIp } from '../geoip/geoip.js';
import { UserDecoders, type DecoderSnapshot } from '../parser/decoders/user.js';
import { eventRowOf, parseArtifact, writeParsedEvents } from '../parser/parse-batch.js';

export interface ReparseTask {
  /** The slice's artifacts as JSONEachRow text (clickhouse/tables/reprocess.ts sliceArtifactsText). */
  artifacts: string;
  /** Their stored events, the same way (sliceEventsText). */
  events: string;
  timezone: string;
  /** Every organization's own decoders (parser/decoders/user.ts), compiled here when their generation changes. */
  decoders: DecoderSnapshot;
  /**
   * Epoch ms: an artifact that arrived before it and has no event is given
   * one; a later one may still be on its way through the pipeline, which
   * writes its event, and is left to it (two writers would make two rows).
   */
  settledBefore: number;
}

export interface ReparseResult {
  counts: SliceCounts;
  /** The UPDATE replacing changed events, or null. */
  replace: string | null;
  /** The DELETE of events whose artifact no longer parses, or null. */
  remove: string | null;
  /** Added events, node sightings and edge sightings, encoded for their inserts. */
  inserts: EncodedRows[];
  /** Events partitions the UPDATE and DELETE write patches to. */
  partitions: string[];
}

interface StoredArtifact {
  id: string;
  org_id: string;
  source: string;
  raw: string;
  /** Epoch ms, as text (64-bit integers are quoted in JSON). */
  t: string;
  c: string;
}

interface StoredEvent {
  id: string;
  parser: string;
  e: string | null;
  fields: Record<string, string[]>;
  p: string;
}

function jsonLines<T>(text: string): T[] {
  const rows: T[] = [];
  for (const line of text.split('\n')) if (line) rows.push(JSON.parse(line) as T);
  return rows;
}

/** Whether a stored event is what the new parse gives: the same parser, event time and fields, values in order. */
function sameEvent(stored: StoredEvent, replacement: EventReplacement): boolean {
  if (stored.parser !== replacement.parser) return false;
  if ((stored.e === null ? null : Number(stored.e)) !== replacement.event_time) return false;
  const keys = Object.keys(replacement.fields);
  if (keys.length !== Object.keys(stored.fields).length) return false;
  for (const key of keys) {
    const before = Object.hasOwn(stored.fields, key) ? stored.fields[key]! : null;
    const after = replacement.fields[key]!;
    if (!before || before.length !== after.length) return false;
    for (let i = 0; i < after.length; i++) if (before[i] !== after[i]) return false;
  }
  return true;
}

const logger = createLogger();

/** The organizations' own decoders as this thread compiled them, and the generation they are of. */
const userDecoders = new UserDecoders((decoder, err) => logger.warn({ decoder: decoder.id, service: decoder.service, err: err.message }, 'user decoder does not compile; skipped'));
let decodersGeneration = -1;

export function reparse(task: ReparseTask): ReparseResult {
  if (task.decoders.generation !== decodersGeneration) {
    userDecoders.update(task.decoders.items);
    decodersGeneration = task.decoders.generation;
  }
  const settings = { timezone: task.timezone, geo: loadGeoIp(logger), decoders: (orgId: string) => userDecoders.forOrg(orgId) };
  // The artifacts table may hold an artifact twice for a while (a rebalance race of the store stage): once here.
  const artifacts = new Map(jsonLines<StoredArtifact>(task.artifacts).map((a) => [a.id, a]));
  const stored = new Map<string, StoredEvent>();
  for (const event of jsonLines<StoredEvent>(task.events)) if (artifacts.has(event.id)) stored.set(event.id, event);

  const counts: SliceCounts = { ...NO_COUNTS, artifacts: artifacts.size };
  const parsed: ParsedEvent[] = [];
  const added: ParsedEvent[] = [];
  const replaced: EventReplacement[] = [];
  const removed: { artifact_id: string; org_id: string; timestamp: number }[] = [];
  const partitions = new Set<string>();
  for (const artifact of artifacts.values()) {
    const timestamp = Number(artifact.t);
    const before = stored.get(artifact.id);
    let event: ParsedEvent;
    try {
      event = parseArtifact({ ...artifact, timestamp: msToIso(timestamp), created_at: msToIso(Number(artifact.c)) }, settings);
    } catch {
      // The analysis stage dead-letters such an artifact and says so in a system event; here it is counted.
      counts.unparsed++;
      if (before) {
        removed.push({ artifact_id: artifact.id, org_id: artifact.org_id, timestamp });
        partitions.add(before.p);
        counts.removed++;
      }
      continue;
    }
    parsed.push(event);
    if (!before) {
      if (Number(artifact.c) < task.settledBefore) {
        added.push(event);
        counts.added++;
      } else counts.unsettled++;
      continue;
    }
    const row = eventRowOf(event);
    const replacement: EventReplacement = {
      artifact_id: artifact.id,
      org_id: artifact.org_id,
      timestamp,
      parser: row.parser,
      event_time: row.event_time === undefined ? null : isoToMs(row.event_time),
      fields: storedFieldsOf(row.fields),
    };
    if (sameEvent(before, replacement)) {
      counts.unchanged++;
    } else {
      replaced.push(replacement);
      partitions.add(before.p);
      counts.changed++;
    }
  }

  const graph = new GraphFold();
  const sightings = new RowBinaryWriter(1 << 18);
  writeEdgeSightings(sightings, graph.add(parsed).sightings);
  const addedRows = new RowBinaryWriter(1 << 16);
  writeParsedEvents(addedRows, added);
  return {
    counts,
    replace: replaced.length > 0 ? replaceEventsStatement(replaced) : null,
    remove: removed.length > 0 ? deleteEventsStatement(removed) : null,
    inserts: [encodedRows('events', EVENT_COLUMNS, addedRows), encodeNodeSightings([...graph.nodes.values()]), encodedRows('edge_sightings', EDGE_SIGHTING_COLUMNS, sightings)],
    partitions: [...partitions].sort(),
  };
}
