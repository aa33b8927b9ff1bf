// An organization's own decoders: services in the decoder catalogue's form
// (catalogue.ts) that a user adds at runtime through /api/v1/decoders. They
// are checked when saved (checkUserService: the catalogue's schema and
// compilation, a time budget for every pattern on hostile text, the
// service's own test lines through the real parser), stored per
// organization, and applied by every pipeline process before the shipped
// catalogue (decoders/interpret.ts, through ParseContext.decoders).
//
// Within an organization, services are tried oldest first. Every field a
// user decoder sets goes with cairn.decoder "user/<service>", so what a user
// decoder read can be searched for and told from what cairn ships.
import { isDeepStrictEqual } from 'node:util';
import type { StoredDecoder } from '../../../clickhouse/tables/user-decoders.js';
import { runWithin, TimeLimitExceeded } from '../../../lib/time-limit.js';
import type { ListSnapshot } from '../../state/watched-list.js';
import { ecsViolations } from '../ecs-values.js';
import { PATTERN_BUDGET_MS, slowestMatch } from '../pattern-budget.js';
import { READABLE_LENGTH } from '../readable.js';
import { loadCatalogues, parseRaw } from '../registry.js';
import type { EventFields, FieldValue } from '../types.js';
import { CatalogueError, compileService, ServiceSpec, testSource, type Service } from './catalogue.js';
import { DecoderIndex } from './decode.js';

/** The decoders of every organization as data, for a worker thread (pipeline/analysis). */
export type DecoderSnapshot = ListSnapshot<StoredDecoder>;

/** What cairn.decoder says on an event a user's service decoded. */
export function userDecoderMark(service: string): string {
  return `user/${service}`;
}

/** Fields under this prefix are cairn's own (cairn.decoder says who read the line): a user decoder may not set them. */
const CAIRN_FIELDS = 'cairn.';
/** A field name as ECS and the query language write them; no leading underscore, so never "__proto__". */
const FIELD_NAME = /^[A-Za-z@][A-Za-z0-9_.@-]*$/;

/** A user's service compiled as the catalogue compiles its own, its events marked as the user's. */
function compileUserService(spec: ServiceSpec, where: string): Service {
  return compileService({ ...spec, defaults: { ...spec.defaults, 'cairn.decoder': userDecoderMark(spec.service) } }, where);
}

/** A stored decoder compiled; throws when it no longer compiles (a macro a later release dropped). */
function compileStored(decoder: StoredDecoder): Service {
  return compileUserService(ServiceSpec.parse(decoder.spec), `user decoder ${decoder.service} (${decoder.id})`);
}

/** One organization's decoders as an index, in the order given; those that do not compile are left out and reported. */
function indexOf(services: Service[]): DecoderIndex | undefined {
  return services.length > 0 ? new DecoderIndex(services) : undefined;
}

/**
 * Every organization's decoders, compiled, by organization. Rebuilds only
 * the organizations whose decoders changed, so a reload of an unchanged set
 * costs nothing.
 */
export class UserDecoders {
  private byOrg = new Map<string, { versions: string; index: DecoderIndex | undefined }>();

  constructor(private readonly onError: (decoder: StoredDecoder, err: Error) => void) {}

  /** Replaces the decoders (each organization's in the order they are tried). */
  update(decoders: StoredDecoder[]): void {
    const grouped = new Map<string, StoredDecoder[]>();
    for (const decoder of decoders) grouped.set(decoder.org_id, [...(grouped.get(decoder.org_id) ?? []), decoder]);
    const byOrg: typeof this.byOrg = new Map();
    for (const [orgId, list] of grouped) {
      const versions = list.map((d) => `${d.id}@${d.updated_at}`).join(',');
      const held = this.byOrg.get(orgId);
      byOrg.set(orgId, held?.versions === versions ? held : { versions, index: indexOf(this.compile(list)) });
    }
    this.byOrg = byOrg;
  }

  private compile(decoders: StoredDecoder[]): Service[] {
    return decoders.flatMap((decoder) => {
      try {
        return [compileStored(decoder)];
      } catch (err) {
        this.onError(decoder, err as Error);
        return [];
      }
    });
  }

  /** The organization's decoders, or undefined when it has none. */
  forOrg(orgId: string): DecoderIndex | undefined {
    return this.byOrg.get(orgId)?.index;
  }
}

/** A problem that keeps a service from being saved; `decoder` or `test` (1-based) says where. */
export interface DecoderProblem {
  decoder?: string;
  test?: number;
  message: string;
}

/** The organization's decoders with `candidate` in place of the stored one it replaces (by id, else by service name), or last when new. */
export function withCandidate(stored: StoredDecoder[], candidate: { id?: string; spec: ServiceSpec }): { before: Service[]; after: Service[]; candidate: Service } {
  const replaces = (d: StoredDecoder): boolean => (candidate.id !== undefined ? d.id === candidate.id : d.service === candidate.spec.service);
  const before: Service[] = [];
  const after: Service[] = [];
  let placed = false;
  const compiled = compileUserService(candidate.spec, `user decoder ${candidate.spec.service}`);
  for (const decoder of stored) {
    let service: Service;
    try {
      service = compileStored(decoder);
    } catch {
      continue; // the pipeline leaves it out too
    }
    before.push(service);
    if (replaces(decoder)) {
      after.push(compiled);
      placed = true;
    } else after.push(service);
  }
  if (!placed) after.push(compiled);
  return { before, after, candidate: compiled };
}

/** How long one probe of a pattern may run before it is abandoned: a runaway pattern is then plainly over budget. */
const PROBE_LIMIT_MS = 2 * PATTERN_BUDGET_MS;
/** How long one test line or trial line may take through the whole parser. */
const LINE_LIMIT_MS = 4 * PATTERN_BUDGET_MS;

/** A hostile input described in a few words: what it repeats and how long it is. */
function describeInput(input: string): string {
  const head = JSON.stringify(input.slice(0, 12));
  return `${input.length.toLocaleString('en')} characters starting ${head}${input.endsWith('\u0001') ? ' and ending in a character the pattern does not expect' : ''}`;
}

/** Problems of the patterns: each held to PATTERN_BUDGET_MS on hostile text as long as a message the readers see. */
function budgetProblems(service: Service): DecoderProblem[] {
  const problems: DecoderProblem[] = [];
  for (const decoder of service.decoders) {
    const worst = slowestMatch(decoder.regex, { size: READABLE_LENGTH, stopAfterMs: PATTERN_BUDGET_MS, breaks: true, interruptAfterMs: PROBE_LIMIT_MS });
    if (worst.ms <= PATTERN_BUDGET_MS) continue;
    const took = worst.interrupted ? `did not finish in ${PROBE_LIMIT_MS} ms` : `took ${Math.round(worst.ms)} ms`;
    problems.push({
      decoder: decoder.name,
      message:
        `decoder ${decoder.name}: its pattern ${took} on one line of hostile text (${describeInput(worst.input)}); the budget is ${PATTERN_BUDGET_MS} ms a line. ` +
        'It backtracks: quantified pieces that can match the same characters ("(a+)+", "(\\w+\\s?)*", ".*x.*y" on a long line) try every way of splitting the text when the rest does not fit. ' +
        'Make neighbouring pieces exclusive ([^\\]]* before \\], \\S+ before a space), anchor the pattern, or drop the nesting.',
    });
  }
  return problems;
}

/** A field value as test expectations and answers show it. */
function shown(value: FieldValue | undefined): string {
  return value === undefined ? 'absent' : JSON.stringify(value);
}

export interface CheckOptions {
  /** The organization's stored decoders, in the order they are tried: the candidate is tested among them. */
  stored: StoredDecoder[];
  /** The stored decoder the candidate replaces, when it is an update. */
  id?: string;
  /** The clock for time stamps without a year. */
  receivedAt: number;
  timezone?: string;
}

/**
 * Why `spec` cannot be saved, or nothing: fields it may not set, patterns
 * that do not compile, patterns over the time budget on hostile text, and
 * test lines that do not give what they expect when parsed by the real
 * parser with the organization's decoders and this one applied.
 */
export function checkUserService(spec: ServiceSpec, options: CheckOptions): DecoderProblem[] {
  const named = [...Object.keys(spec.defaults).map((field) => ({ field, decoder: undefined })), ...spec.decoders.flatMap((d) => Object.keys(d.fields).map((field) => ({ field, decoder: d.name })))];
  const wrongNames = named.flatMap(({ field, decoder }): DecoderProblem[] => {
    const where = decoder ? `decoder ${decoder}` : 'defaults';
    if (!FIELD_NAME.test(field)) return [{ decoder, message: `${where}: ${JSON.stringify(field)} is not a field name (letters, digits, ".", "_", "@" and "-", starting with a letter or "@")` }];
    if (field.startsWith(CAIRN_FIELDS)) return [{ decoder, message: `${where}: ${field} is cairn's own field (cairn.decoder marks what a user decoder read); use another name` }];
    return [];
  });
  if (wrongNames.length > 0) return wrongNames;
  let services: ReturnType<typeof withCandidate>;
  try {
    services = withCandidate(options.stored, { id: options.id, spec });
  } catch (err) {
    if (!(err instanceof CatalogueError)) throw err;
    const decoder = /^decoder ([a-z0-9_-]+):/.exec(err.reason)?.[1];
    return [{ decoder, message: err.reason }];
  }
  const slow = budgetProblems(services.candidate);
  if (slow.length > 0) return slow;
  const decoders = new DecoderIndex(services.after);
  loadCatalogues();
  const problems: DecoderProblem[] = [];
  spec.tests.forEach((test, i) => {
    const where = `test line ${i + 1}`;
    let outcome: ParseOutcome;
    try {
      outcome = parseWithin({ raw: test.line, source: testSource(spec, test), receivedAt: options.receivedAt }, decoders, options.timezone);
    } catch (err) {
      if (!(err instanceof TimeLimitExceeded)) throw err;
      outcome = { error: `parsing it did not finish in ${LINE_LIMIT_MS} ms` };
    }
    if ('error' in outcome) {
      problems.push({ test: i + 1, message: `${where}: ${outcome.error}` });
      return;
    }
    const wrong = Object.entries(test.expect).flatMap(([name, want]) => {
      const got = outcome.fields[name];
      if (want === null ? got === undefined : isDeepStrictEqual(got, want)) return [];
      return [`${name} is ${shown(got)}, expected ${want === null ? 'absent' : shown(want)}`];
    });
    wrong.push(...ecsViolations(outcome.fields).map((v) => `${v} is not a value ECS allows`));
    if (wrong.length > 0) problems.push({ test: i + 1, message: `${where}: ${wrong.join('; ')}` });
  });
  return problems;
}

/** A line to parse, as a test gives it or as it is stored. */
export interface LineToParse {
  raw: string;
  source: string;
  /** When cairn received it (ms since the epoch). */
  receivedAt: number;
}

export type ParseOutcome = { parser: string; fields: EventFields } | { error: string };

/** The line through the real parser with `decoders` applied: its fields, or why no parser took it. */
function parseLine(line: LineToParse, decoders: DecoderIndex | undefined, timezone: string | undefined): ParseOutcome {
  try {
    return parseRaw(line.raw, { source: line.source, receivedAt: line.receivedAt, timezone, decoders });
  } catch (err) {
    if (err instanceof TimeLimitExceeded) throw err;
    return { error: (err as Error).message };
  }
}

/** parseLine stopped after LINE_LIMIT_MS (TimeLimitExceeded). */
function parseWithin(line: LineToParse, decoders: DecoderIndex | undefined, timezone: string | undefined): ParseOutcome {
  return runWithin(LINE_LIMIT_MS, () => parseLine(line, decoders, timezone));
}

/** parseWithin for a trial: a line that runs out of time ends the trial, naming the line. */
function trialParse(line: TrialLine, decoders: DecoderIndex | undefined, timezone: string | undefined): ParseOutcome {
  try {
    return parseWithin(line, decoders, timezone);
  } catch (err) {
    if (err instanceof TimeLimitExceeded) throw new TrialTooSlow(line);
    throw err;
  }
}

export interface TrialLine extends LineToParse {
  artifactId: string | null;
}

export interface TrialSample {
  artifact_id: string | null;
  source: string;
  raw: string;
  claimed: boolean;
  before: ParseOutcome;
  after: ParseOutcome;
}

export interface TrialCounts {
  lines_read: number;
  /** Lines the tried service decoded (cairn.decoder user/<service>). */
  lines_claimed: number;
  /** Lines whose parsed fields differ from today's. */
  lines_changed: number;
  /** Lines no parser recognised today that the parser recognises with the tried service. */
  lines_recognised: number;
  /** By field: lines on which the field gains a value or changes it. */
  fields_set: Record<string, number>;
  /** By field: lines on which the field loses its value. */
  fields_removed: Record<string, number>;
  samples: TrialSample[];
}

export class TrialTooSlow extends Error {
  constructor(readonly line: TrialLine) {
    super(`parsing a line with the decoder did not finish in ${LINE_LIMIT_MS} ms${line.artifactId ? ` (artifact ${line.artifactId})` : ''}: ${JSON.stringify(line.raw.slice(0, 120))}`);
    this.name = 'TrialTooSlow';
  }
}

/**
 * Lines parsed between two turns of the event loop in a trial, so a trial
 * of thousands of lines leaves the API answering meanwhile; a slice runs
 * under one time limit (a limit costs a watchdog thread, about 0.2 ms), and
 * only a slice that runs out of it is parsed again line by line to find
 * the line at fault.
 */
const TRIAL_SLICE = 200;

/**
 * Each line parsed as today (`before`) and with the tried service
 * (`after`), counted: what the service claims and what would change.
 * Samples are the lines it claims and changes first, then other changed
 * lines, then lines it claims without changing them.
 */
export async function tryUserService(lines: TrialLine[], options: { service: string; before: DecoderIndex | undefined; after: DecoderIndex; timezone?: string; samples: number }): Promise<TrialCounts> {
  const mark = userDecoderMark(options.service);
  const counts: TrialCounts = { lines_read: 0, lines_claimed: 0, lines_changed: 0, lines_recognised: 0, fields_set: {}, fields_removed: {}, samples: [] };
  const ranked: { rank: number; sample: TrialSample }[] = [];
  loadCatalogues();
  for (let start = 0; start < lines.length; start += TRIAL_SLICE) {
    if (start > 0) await new Promise((resolve) => setImmediate(resolve));
    const slice = lines.slice(start, start + TRIAL_SLICE);
    const both = (line: TrialLine, parse: typeof trialParse): [ParseOutcome, ParseOutcome] => [parse(line, options.before, options.timezone), parse(line, options.after, options.timezone)];
    let outcomes: [ParseOutcome, ParseOutcome][];
    try {
      outcomes = runWithin(LINE_LIMIT_MS, () => slice.map((line) => both(line, parseLine)));
    } catch (err) {
      if (!(err instanceof TimeLimitExceeded)) throw err;
      outcomes = slice.map((line) => both(line, trialParse));
    }
    for (const [i, line] of slice.entries()) {
      const [before, after] = outcomes[i]!;
      const beforeFields = 'fields' in before ? before.fields : {};
      const afterFields = 'fields' in after ? after.fields : {};
      const claimed = afterFields['cairn.decoder'] === mark;
      const set = Object.keys(afterFields).filter((f) => !isDeepStrictEqual(afterFields[f], beforeFields[f]));
      const removed = Object.keys(beforeFields).filter((f) => afterFields[f] === undefined);
      const changed = set.length > 0 || removed.length > 0;
      counts.lines_read++;
      if (claimed) counts.lines_claimed++;
      if (changed) counts.lines_changed++;
      if ('error' in before && 'fields' in after) counts.lines_recognised++;
      for (const f of set) counts.fields_set[f] = (counts.fields_set[f] ?? 0) + 1;
      for (const f of removed) counts.fields_removed[f] = (counts.fields_removed[f] ?? 0) + 1;
      const rank = claimed && changed ? 0 : changed ? 1 : claimed ? 2 : -1;
      if (rank >= 0 && ranked.filter((r) => r.rank <= rank).length < options.samples) {
        ranked.push({ rank, sample: { artifact_id: line.artifactId, source: line.source, raw: line.raw, claimed, before, after } });
      }
    }
  }
  counts.samples = ranked
    .sort((a, b) => a.rank - b.rank)
    .slice(0, options.samples)
    .map((r) => r.sample);
  return counts;
}
