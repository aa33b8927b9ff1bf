// The parser step: each raw artifact to a normalized event, or to a failure
// that becomes a parser.failure system event and a dead letter.
import type { RawArtifact } from '../../topics/index.js';
import type { ParsedEvent, SystemEvent } from '../../topics/index.js';
import type { EncodedRows } from '../../clickhouse/encoded-rows.js';
import type { Artifact } from '../../clickhouse/tables/artifacts.js';
import type { RowBinaryWriter } from '../../clickhouse/row-binary.js';
import { encodeEvents, writeEvents, type EventRow } from '../../clickhouse/tables/events.js';
import { stableId } from '../../lib/ids.js';
import { uniqueArtifacts } from '../artifacts.js';
import type { DeadLetter, Envelope } from '../bus/consume.js';
import type { DeliveredMessage } from '../bus/index.js';
import { addGeoFields } from '../geoip/annotate.js';
import type { GeoIp } from '../geoip/geoip.js';
import { ParseFailure } from './failure.js';
import { parseRaw } from './registry.js';
import type { DecoderIndex } from './decoders/decode.js';

export interface ParseOutcome {
  events: ParsedEvent[];
  failureEvents: SystemEvent[];
  deadLetters: DeadLetter[];
}

export interface ParseSettings {
  defaultOrgId: string;
  /** Country and AS of public addresses, added to the parsed fields when given. */
  geo?: GeoIp;
  /** Offset for log timestamps without a zone. */
  timezone: string;
  /** An organization's own decoders (decoders/user.ts), applied before the shipped ones. */
  decoders?: (orgId: string) => DecoderIndex | undefined;
  now?: () => Date;
}

/** A parsed event as a row of the events table (the event's own time, when it carries one, beside the artifact's). */
export function eventRowOf(e: ParsedEvent): EventRow {
  return {
    artifact_id: e.artifact_id,
    org_id: e.org_id,
    source: e.source,
    timestamp: e.timestamp,
    event_time: typeof e.fields['@timestamp'] === 'string' ? e.fields['@timestamp'] : undefined,
    parser: e.parser,
    fields: e.fields,
    created_at: e.received_at,
  };
}

function eventRows(events: ParsedEvent[]): EventRow[] {
  return events.map(eventRowOf);
}

export function encodeParsedEvents(events: ParsedEvent[]): EncodedRows {
  return encodeEvents(eventRows(events));
}

/** Appends parsed events to rows of the events table being written (EVENT_COLUMNS). */
export function writeParsedEvents(writer: RowBinaryWriter, events: ParsedEvent[]): void {
  writeEvents(writer, eventRows(events));
}

export function parseBatch(batch: Envelope<RawArtifact>[], settings: ParseSettings): ParseOutcome {
  return parseArtifacts(uniqueArtifacts(batch, settings.defaultOrgId), settings);
}

/** One artifact's event (with GeoIP when the settings have it); throws ParseFailure when no parser reads it. */
export function parseArtifact(artifact: Pick<Artifact, 'id' | 'org_id' | 'source' | 'raw' | 'timestamp' | 'created_at'>, settings: Pick<ParseSettings, 'geo' | 'timezone' | 'decoders'>): ParsedEvent {
  const { parser, fields } = parseRaw(artifact.raw, {
    source: artifact.source,
    receivedAt: Date.parse(artifact.created_at),
    timezone: settings.timezone,
    decoders: settings.decoders?.(artifact.org_id),
  });
  if (settings.geo) addGeoFields(fields, settings.geo);
  return {
    artifact_id: artifact.id,
    org_id: artifact.org_id,
    source: artifact.source,
    timestamp: artifact.timestamp,
    received_at: artifact.created_at,
    parser,
    raw: artifact.raw,
    fields,
  };
}

/** The parser step on artifacts already completed, each once (uniqueArtifacts): a batch, or a slice of one. */
export function parseArtifacts(artifacts: { artifact: Artifact; message: DeliveredMessage }[], settings: ParseSettings): ParseOutcome {
  const outcome: ParseOutcome = { events: [], failureEvents: [], deadLetters: [] };
  const now = (settings.now ?? (() => new Date()))().toISOString();
  for (const { artifact, message } of artifacts) {
    try {
      outcome.events.push(parseArtifact(artifact, settings));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      outcome.deadLetters.push({ message, reason: `parse failure: ${reason}` });
      outcome.failureEvents.push({
        id: stableId(artifact.id, 'parser.failure'),
        type: 'parser.failure',
        org_id: artifact.org_id,
        occurred_at: now,
        severity: 'warning',
        summary: `could not parse a "${artifact.source}" artifact: ${reason}`,
        details: {
          artifact_id: artifact.id,
          source: artifact.source,
          parser: err instanceof ParseFailure ? (err.parser ?? null) : null,
          reason,
          raw_excerpt: artifact.raw.slice(0, 200),
        },
      });
    }
  }
  return outcome;
}
