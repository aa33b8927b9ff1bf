// The analysis step: a batch of artifacts.raw messages to everything the
// parser, enricher and rule stages derive from it, in one pass and without
// I/O, so it can run on a worker thread (pool.ts). Decoding happens here too:
// the bytes cross to the worker once, the results come back once.
import type { EncodedRows } from '../../clickhouse/encoded-rows.js';
import { encodeEdgeSightings } from '../../clickhouse/tables/edges.js';
import { encodeNodeSightings } from '../../clickhouse/tables/nodes.js';
import { createLogger } from '../../lib/logger.js';
import type { EnrichedEvent, RawArtifact, SystemEvent } from '../../topics/index.js';
import { createArtifactDecoder, type ArtifactDecoder } from '../artifacts.js';
import type { DeliveredMessage } from '../bus/index.js';
import type { Envelope } from '../bus/consume.js';
import { enrichBatch } from '../enricher/consumer.js';
import { loadGeoIp } from '../geoip/geoip.js';
import { encodeParsedEvents, parseBatch } from '../parser/parse-batch.js';

export interface AnalysisTask {
  messages: DeliveredMessage[];
  defaultOrgId: string;
  timezone: string;
  schemaRegistryUrl?: string;
}

export interface AnalysisResult {
  /** What the parser and enricher write: events, then node and edge sightings, encoded here so the main thread only inserts. */
  inserts: EncodedRows[];
  /** The events, with their entities, for the lead rules. */
  events: EnrichedEvent[];
  failureEvents: SystemEvent[];
  /** Messages (by their index in the task) that do not decode or parse, and why. */
  rejected: { index: number; reason: string }[];
}

const logger = createLogger();
let decoder: { url: string | undefined; decode: Promise<ArtifactDecoder> } | null = null;

function decoderFor(url: string | undefined): Promise<ArtifactDecoder> {
  if (!decoder || decoder.url !== url) decoder = { url, decode: createArtifactDecoder(url, logger) };
  return decoder.decode;
}

/** Structured cloning turns a Buffer into a plain Uint8Array; the decoders want a Buffer. */
function asBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

export async function analyse(task: AnalysisTask): Promise<AnalysisResult> {
  const decode = await decoderFor(task.schemaRegistryUrl);
  const rejected: AnalysisResult['rejected'] = [];
  const decoded: Envelope<RawArtifact>[] = [];
  const indexOf = new Map<DeliveredMessage, number>();
  for (const [index, raw] of task.messages.entries()) {
    const message = { ...raw, value: asBuffer(raw.value) };
    indexOf.set(message, index);
    try {
      // Await only real promises (the schema registry's wire format): a microtask per message shows at this rate.
      const value = decode(message);
      decoded.push({ value: value instanceof Promise ? await value : value, message });
    } catch (err) {
      rejected.push({ index, reason: `cannot decode: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  const parsed = parseBatch(decoded, { defaultOrgId: task.defaultOrgId, timezone: task.timezone, geo: loadGeoIp(logger) });
  for (const { message, reason } of parsed.deadLetters) rejected.push({ index: indexOf.get(message)!, reason });
  const { nodes, sightings, events } = enrichBatch(parsed.events);
  return {
    inserts: [encodeParsedEvents(parsed.events), encodeNodeSightings(nodes), encodeEdgeSightings(sightings)],
    events,
    failureEvents: parsed.failureEvents,
    rejected,
  };
}
