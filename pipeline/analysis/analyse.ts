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
import { findMatches } from '../leads/evaluate.js';
import { CompiledRules, type RuleSnapshot } from '../leads/rules.js';
import { loadGeoIp } from '../geoip/geoip.js';
import { encodeParsedEvents, parseBatch } from '../parser/parse-batch.js';
import type { WorkerMatching } from '../stage.js';

export interface AnalysisTask {
  messages: DeliveredMessage[];
  defaultOrgId: string;
  timezone: string;
  schemaRegistryUrl?: string;
  /** The enabled lead rules, matched here so that only the events they match go back to the main thread. */
  rules: RuleSnapshot;
  /** The process's matching beside the rules (pipeline/stage.ts EventMatching), when it has any. */
  matching?: MatchingSpec;
}

/** Which matcher module to run, the generation of data it must hold, and the data when the main thread sends it. */
export interface MatchingSpec {
  module: string;
  generation: number;
  data?: unknown;
}

/** An event a rule matched, as data: the rule by id, the event by its place in `matchedEvents`. */
export interface RuleMatch {
  rule: string;
  event: number;
  at: number;
  keys: string[];
}

export interface AnalysisResult {
  /** What the parser and enricher write: events, then node and edge sightings, encoded here so the main thread only inserts. */
  inserts: EncodedRows[];
  /** What the lead rules matched, for their windows (hot state, on the main thread). */
  matches: RuleMatch[];
  /** What the matching beside the rules found (opaque here), the event by its place in `matchedEvents`. */
  hits: { event: number; hit: unknown }[];
  /** The events with a match or a hit, with their entities. */
  matchedEvents: EnrichedEvent[];
  failureEvents: SystemEvent[];
  /** Messages (by their index in the task) that do not decode or parse, and why. */
  rejected: { index: number; reason: string }[];
}

const logger = createLogger();
/** The rules as this thread compiled them, and the generation they are of. */
const rules = new CompiledRules((rule, err) => logger.warn({ rule: rule.id, name: rule.name, err: err.message }, 'lead rule does not compile; skipped'));
let rulesGeneration = -1;
let decoder: { url: string | undefined; decode: Promise<ArtifactDecoder> } | null = null;
/** Matchers this thread has imported, by module, with the generation of the data each holds. */
const matchers = new Map<string, { generation: number; matching: WorkerMatching }>();

/** The matcher the task names, holding the task's generation of data; null when it needs data the task does not carry. */
async function matcherFor(spec: MatchingSpec): Promise<WorkerMatching | null> {
  let held = matchers.get(spec.module);
  if (!held) {
    const loaded = (await import(spec.module)) as { default: WorkerMatching };
    held = { generation: -1, matching: loaded.default };
    matchers.set(spec.module, held);
  }
  if (held.generation !== spec.generation) {
    if (spec.data === undefined) return null;
    held.matching.load(spec.data);
    held.generation = spec.generation;
  }
  return held.matching;
}

function decoderFor(url: string | undefined): Promise<ArtifactDecoder> {
  if (!decoder || decoder.url !== url) decoder = { url, decode: createArtifactDecoder(url, logger) };
  return decoder.decode;
}

/** Structured cloning turns a Buffer into a plain Uint8Array; the decoders want a Buffer. */
function asBuffer(value: Uint8Array): Buffer {
  return Buffer.isBuffer(value) ? value : Buffer.from(value.buffer, value.byteOffset, value.byteLength);
}

/** The task's analysis, or `stale` when its matcher needs newer data than this thread holds (send the task again with it). */
export async function analyse(task: AnalysisTask): Promise<AnalysisResult | 'stale'> {
  const matching = task.matching ? await matcherFor(task.matching) : undefined;
  if (matching === null) return 'stale';
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
  if (task.rules.generation !== rulesGeneration) {
    rules.update(task.rules.rules);
    rulesGeneration = task.rules.generation;
  }
  const matchedEvents: EnrichedEvent[] = [];
  const eventIndex = new Map<EnrichedEvent, number>();
  const indexOfEvent = (event: EnrichedEvent): number => {
    let index = eventIndex.get(event);
    if (index === undefined) {
      index = matchedEvents.push(event) - 1;
      eventIndex.set(event, index);
    }
    return index;
  };
  const matches = findMatches(events, (orgId) => rules.rulesFor(orgId)).map(({ rule, event, at, keys }) => ({ rule: rule.rule.id, event: indexOfEvent(event), at, keys }));
  const hits = (matching?.match(events) ?? []).map(({ event, hit }) => ({ event: indexOfEvent(event), hit }));
  return {
    inserts: [encodeParsedEvents(parsed.events), encodeNodeSightings(nodes), encodeEdgeSightings(sightings)],
    matches,
    hits,
    matchedEvents,
    failureEvents: parsed.failureEvents,
    rejected,
  };
}
