// The analysis step: a batch of artifacts.raw messages to everything the
// parser, enricher and rule stages derive from it, in one pass and without
// I/O, so it can run on a worker thread (pool.ts). Decoding happens here too:
// the bytes cross to the worker once, the results come back once.
import { encodedRows, type EncodedRows } from '../../clickhouse/encoded-rows.js';
import { RowBinaryWriter } from '../../clickhouse/row-binary.js';
import type { Artifact } from '../../clickhouse/tables/artifacts.js';
import { EDGE_SIGHTING_COLUMNS, writeEdgeSightings } from '../../clickhouse/tables/edges.js';
import { EVENT_COLUMNS } from '../../clickhouse/tables/events.js';
import { encodeNodeSightings } from '../../clickhouse/tables/nodes.js';
import { createLogger } from '../../lib/logger.js';
import type { EnrichedEvent, RawArtifact, SystemEvent } from '../../topics/index.js';
import { createArtifactDecoder, uniqueArtifacts, type ArtifactDecoder } from '../artifacts.js';
import type { DeliveredMessage } from '../bus/index.js';
import type { Envelope } from '../bus/consume.js';
import { GraphFold } from '../enricher/consumer.js';
import { forEachMatch } from '../leads/evaluate.js';
import type { RuleEvent } from '../leads/windows.js';
import { CompiledRules, type RuleSnapshot } from '../leads/rules.js';
import { loadGeoIp } from '../geoip/geoip.js';
import { parseArtifacts, writeParsedEvents, type ParseSettings } from '../parser/parse-batch.js';
import { UserDecoders, type DecoderSnapshot } from '../parser/decoders/user.js';
import type { WorkerMatching } from '../stage.js';
import { auditRecordOf, type AuditRecord } from './audit-join.js';
import { unpackMessages, type PackedMessages } from './packed-messages.js';
import { LINUX_AUDIT_PARSER } from '../parser/formats/linux-audit.js';

export interface AnalysisTask {
  /** The chunk's messages, packed for the trip to a worker (packed-messages.ts). */
  messages: PackedMessages;
  defaultOrgId: string;
  timezone: string;
  schemaRegistryUrl?: string;
  /** The enabled lead rules, matched here so that only the events they match go back to the main thread. */
  rules: RuleSnapshot;
  /** Every organization's own decoders (parser/decoders/user.ts), compiled here when their generation changes; none when absent. */
  decoders?: DecoderSnapshot;
  /** The process's matching beside the rules (pipeline/stage.ts EventMatching), when it has any. */
  matching?: MatchingSpec;
}

/** Which matcher module to run, the generation of data it must hold, and the data when the main thread sends it. */
export interface MatchingSpec {
  module: string;
  generation: number;
  data?: unknown;
}

/** An event a rule matched, as data: the rule by id, the event by its place in `ruleEvents`. */
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
  /** The parts of the events the rules matched that the rule step reads (pipeline/leads/windows.ts RuleEvent). */
  ruleEvents: RuleEvent[];
  /** What the matching beside the rules found (opaque here), the event by its place in `matchedEvents`. */
  hits: { event: number; hit: unknown }[];
  /** The events with a hit, whole, with their entities. */
  matchedEvents: EnrichedEvent[];
  failureEvents: SystemEvent[];
  /** Messages (by their index in the task) that do not decode or parse, and why. */
  rejected: { index: number; reason: string }[];
  /** Linux audit records that join with others of their serial, in the task's order (audit-join.ts; joined on the main thread). */
  auditRecords: AuditRecord[];
}

/**
 * Messages decoded, parsed, enriched, matched and encoded together, a slice
 * of a task at a time, so that what a slice allocates dies young and stays in
 * the CPU's caches. A task of 5,000 done step by step over all of it kept
 * every decoded, parsed and enriched message alive through several
 * young-generation collections, each of which copied them: 27.6-29.6 µs of
 * CPU a message, against 22.4-24.1 in slices of 100 (one thread, the sample
 * mix; slices of 250-1,000 gained less).
 */
const SLICE = 100;

const logger = createLogger();
/** The rules as this thread compiled them, and the generation they are of. */
const rules = new CompiledRules((rule, err) => logger.warn({ rule: rule.id, name: rule.name, err: err.message }, 'lead rule does not compile; skipped'));
let rulesGeneration = -1;
/** The organizations' own decoders as this thread compiled them, and the generation they are of. */
const userDecoders = new UserDecoders((decoder, err) => logger.warn({ decoder: decoder.id, service: decoder.service, err: err.message }, 'user decoder does not compile; skipped'));
let decodersGeneration = -1;
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

/** The task's analysis, or `stale` when its matcher needs newer data than this thread holds (send the task again with it). */
export async function analyse(task: AnalysisTask): Promise<AnalysisResult | 'stale'> {
  const matching = task.matching ? await matcherFor(task.matching) : undefined;
  if (matching === null) return 'stale';
  const decode = await decoderFor(task.schemaRegistryUrl);
  if (task.rules.generation !== rulesGeneration) {
    rules.update(task.rules.rules);
    rulesGeneration = task.rules.generation;
  }
  if (task.decoders && task.decoders.generation !== decodersGeneration) {
    userDecoders.update(task.decoders.items);
    decodersGeneration = task.decoders.generation;
  }
  const work = { task, messages: unpackMessages(task.messages), decode, matching };
  // The rows of an artifact sent twice in the task would meet in one insert: rare, and then the whole task is
  // decoded first and each id kept once (its last copy, as the store step keeps it), before the slices.
  return (await analyseSlices(work, decodedSlices(work))) ?? (await analyseSlices(work, uniqueSlices(work)))!;
}

interface Work {
  task: AnalysisTask;
  messages: DeliveredMessage[];
  decode: ArtifactDecoder;
  matching: WorkerMatching | undefined;
}

/** Decoded and completed artifacts of some messages, with the messages that do not decode (by their place in the task). */
interface Slice {
  artifacts: { artifact: Artifact; message: DeliveredMessage }[];
  rejected: AnalysisResult['rejected'];
  indexOf: Map<DeliveredMessage, number>;
}

async function decodeSlice(decode: ArtifactDecoder, messages: DeliveredMessage[], offset: number): Promise<Omit<Slice, 'artifacts'> & { decoded: Envelope<RawArtifact>[] }> {
  const rejected: AnalysisResult['rejected'] = [];
  const decoded: Envelope<RawArtifact>[] = [];
  const indexOf = new Map<DeliveredMessage, number>();
  for (const [i, message] of messages.entries()) {
    const index = offset + i;
    indexOf.set(message, index);
    try {
      // Await only real promises (the schema registry's wire format): a microtask per message shows at this rate.
      const value = decode(message);
      decoded.push({ value: value instanceof Promise ? await value : value, message });
    } catch (err) {
      rejected.push({ index, reason: `cannot decode: ${err instanceof Error ? err.message : String(err)}` });
    }
  }
  return { decoded, rejected, indexOf };
}

/** The task's messages decoded a slice at a time. */
async function* decodedSlices({ task, messages, decode }: Work): AsyncGenerator<Slice> {
  for (let start = 0; start < messages.length; start += SLICE) {
    const { decoded, rejected, indexOf } = await decodeSlice(decode, messages.slice(start, start + SLICE), start);
    yield { artifacts: uniqueArtifacts(decoded, task.defaultOrgId), rejected, indexOf };
  }
}

/** The whole task decoded, each artifact once, then sliced (the messages that do not decode come first, alone). */
async function* uniqueSlices({ task, messages, decode }: Work): AsyncGenerator<Slice> {
  const { decoded, rejected, indexOf } = await decodeSlice(decode, messages, 0);
  yield { artifacts: [], rejected, indexOf };
  const artifacts = uniqueArtifacts(decoded, task.defaultOrgId);
  for (let start = 0; start < artifacts.length; start += SLICE) {
    yield { artifacts: artifacts.slice(start, start + SLICE), rejected: [], indexOf };
  }
}

/**
 * Values made from the events of one slice after another, each event's once,
 * with their places: results name events by place. Events are known by their
 * place in their slice, as they are only met there (a map keyed by the events
 * would hold every one until the task ends).
 */
class SliceIndexedList<T> {
  readonly items: T[] = [];
  private places = new Int32Array(0);
  private events: readonly EnrichedEvent[] = [];

  constructor(private readonly make: (event: EnrichedEvent) => T) {}

  startSlice(events: readonly EnrichedEvent[]): void {
    this.events = events;
    this.places = new Int32Array(events.length).fill(-1);
  }

  /** The place of the slice's event at `index`, made on first use. */
  placeOf(index: number): number {
    let place = this.places[index]!;
    if (place === -1) this.places[index] = place = this.items.push(this.make(this.events[index]!)) - 1;
    return place;
  }
}

/** The parts of an event the rule step reads: its artifact, source, node ids, and the named fields it has. */
function ruleEventOf(event: EnrichedEvent, fields: readonly string[]): RuleEvent {
  const kept: RuleEvent['fields'] = {};
  for (const field of fields) {
    const value = event.fields[field];
    if (value !== undefined) kept[field] = value;
  }
  return { artifact_id: event.artifact_id, org_id: event.org_id, source: event.source, fields: kept, entities: event.entities.map(({ id }) => ({ id })) };
}

/** The analysis of the slices, or null when an artifact id comes back in a later slice. */
async function analyseSlices({ task, matching }: Work, slices: AsyncGenerator<Slice>): Promise<AnalysisResult | null> {
  const matchedEvents = new SliceIndexedList((event) => event);
  // The rules' events are copied in part as they match: kept whole until the task ends, a task's thousands of
  // matched events outlived the garbage collector's young generation, which copied each of them twice.
  const ruleEvents = new SliceIndexedList((event) => ruleEventOf(event, rules.eventFields(event.org_id)));
  const settings: ParseSettings = {
    defaultOrgId: task.defaultOrgId,
    timezone: task.timezone,
    geo: loadGeoIp(logger),
    decoders: task.decoders ? (orgId) => userDecoders.forOrg(orgId) : undefined,
  };
  const graph = new GraphFold();
  const ids = new Set<string>();
  // Every slice's rows go into one body per table: a chunk's events are one insert.
  const events = new RowBinaryWriter(1 << 20);
  const sightings = new RowBinaryWriter(1 << 18);
  const failureEvents: SystemEvent[] = [];
  const matches: RuleMatch[] = [];
  const hits: AnalysisResult['hits'] = [];
  const rejected: AnalysisResult['rejected'] = [];
  const auditRecords: AuditRecord[] = [];
  for await (const slice of slices) {
    for (const { artifact } of slice.artifacts) {
      if (ids.has(artifact.id)) return null;
      ids.add(artifact.id);
    }
    rejected.push(...slice.rejected);
    const parsed = parseArtifacts(slice.artifacts, settings);
    for (const { message, reason } of parsed.deadLetters) rejected.push({ index: slice.indexOf.get(message)!, reason });
    failureEvents.push(...parsed.failureEvents);
    for (const event of parsed.events) {
      if (event.parser !== LINUX_AUDIT_PARSER) continue;
      const record = auditRecordOf(event);
      if (record) auditRecords.push(record);
    }
    const enriched = graph.add(parsed.events);
    ruleEvents.startSlice(enriched.events);
    forEachMatch(enriched.events, (orgId) => rules.rulesFor(orgId), (rule, index, at, keys) => matches.push({ rule: rule.rule.id, event: ruleEvents.placeOf(index), at, keys }));
    matchedEvents.startSlice(enriched.events);
    for (const { event, hit } of matching?.match(enriched.events) ?? []) hits.push({ event: matchedEvents.placeOf(enriched.events.indexOf(event)), hit });
    writeParsedEvents(events, parsed.events);
    writeEdgeSightings(sightings, enriched.sightings);
  }
  return {
    inserts: [encodedRows('events', EVENT_COLUMNS, events), encodeNodeSightings([...graph.nodes.values()]), encodedRows('edge_sightings', EDGE_SIGHTING_COLUMNS, sightings)],
    matches,
    ruleEvents: ruleEvents.items,
    hits,
    matchedEvents: matchedEvents.items,
    failureEvents,
    rejected,
    auditRecords,
  };
}
