// Decoders an organization adds at runtime (docs/parsing.md, "Your own
// decoders"): services in the shipped decoder catalogue's own form, checked
// when saved (schema, patterns, a time budget on hostile text, the service's
// test lines through the real parser), applied by every pipeline process
// before the shipped catalogue from the batch after the change is announced.
import { z } from 'zod';
import { stringify as toYaml } from 'yaml';
import { deleteDecoder, getDecoder, listDecoders, orgDecoders, saveDecoder, type StoredDecoder } from '../../clickhouse/tables/user-decoders.js';
import { newId } from '../../lib/ids.js';
import { ServiceSpec } from '../../pipeline/parser/decoders/catalogue.js';
import { DecoderIndex } from '../../pipeline/parser/decoders/decode.js';
import { checkUserService, TrialTooSlow, tryUserService, withCandidate, type DecoderProblem, type TrialLine } from '../../pipeline/parser/decoders/user.js';
import { announceChange } from '../../pipeline/state/index.js';
import { QuerySyntaxError } from '../../query/parse.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';
import { searchArtifactPage } from '../search-sql.js';

/** Most services an organization may add: each is tried on every line of its programs and sources. */
export const MAX_DECODERS_PER_ORG = 200;
const MAX_SHAPES = 200;
const MAX_TESTS = 500;
const MAX_PATTERN_CHARS = 4000;
const MAX_LINE_CHARS = 64 * 1024;
const MAX_NAMES = 100;

/** The catalogue's own schema, with bounds on what one request may make the server compile and run. */
const DecoderBody = ServiceSpec.superRefine((spec, ctx) => {
  const bound = (count: number, max: number, path: (string | number)[], what: string): void => {
    if (count > max) ctx.addIssue({ code: 'custom', path, message: `at most ${max} ${what}` });
  };
  bound(spec.decoders.length, MAX_SHAPES, ['decoders'], 'decoders in one service');
  bound(spec.tests.length, MAX_TESTS, ['tests'], 'test lines');
  bound(spec.programs.length, MAX_NAMES, ['programs'], 'programs');
  bound(spec.sources.length, MAX_NAMES, ['sources'], 'sources');
  spec.decoders.forEach((d, i) => bound(d.match.length, MAX_PATTERN_CHARS, ['decoders', i, 'match'], 'characters in a pattern'));
  spec.tests.forEach((t, i) => bound(t.line.length, MAX_LINE_CHARS, ['tests', i, 'line'], 'characters in a test line'));
});

const DecoderSchema = z.object({
  id: z.uuid(),
  org_id: z.string(),
  service: z.string(),
  spec: z.record(z.string(), z.unknown()).describe('the service in the decoder catalogue form (pipeline/parser/decoders/catalogue.ts), defaults filled in'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const Problem = z.object({
  decoder: z.string().optional().describe('the decoder (shape) at fault'),
  test: z.number().int().optional().describe('the test line at fault, from 1'),
  message: z.string(),
});

const FormatQuery = z.object({
  format: z.enum(['json', 'yaml'], { message: 'format must be json or yaml' }).default('json'),
});

/** The default range of stored artifacts a trial reads. */
const TRIAL_HOURS = 24;
const MAX_TRIAL_LINES = 1000;
const MAX_TRIAL_ARTIFACTS = 10_000;
const DEFAULT_TRIAL_ARTIFACTS = 1000;
const MAX_TRIAL_SAMPLES = 20;

const TrialBody = z
  .strictObject({
    id: z.uuid({ message: 'id must be a UUID' }).optional().describe('a stored decoder to try; with `decoder`, the stored one that `decoder` would replace'),
    decoder: DecoderBody.optional().describe('the service to try, in the decoder catalogue form (its test lines need not pass yet)'),
    lines: z
      .array(z.string().min(1, 'a line is not empty').max(MAX_LINE_CHARS, `a line has at most ${MAX_LINE_CHARS} characters`))
      .min(1, 'give at least one line, or none to read stored artifacts')
      .max(MAX_TRIAL_LINES, `at most ${MAX_TRIAL_LINES} lines; try stored artifacts with limit for more`)
      .optional()
      .describe('lines to try it on; without them, the stored artifacts of [start, end)'),
    source: z.string().min(1).optional().describe("the artifact source the given lines are parsed as (default: the service's first source, else syslog); for stored artifacts, only this source"),
    start: Timestamp.optional().describe(`stored artifacts from (default: ${TRIAL_HOURS} hours before end)`),
    end: Timestamp.optional().describe('stored artifacts until, exclusive (default: now)'),
    query: z.string().max(16_000).optional().describe('only the stored artifacts this search (the query language) finds'),
    limit: z
      .int('limit must be an integer')
      .min(1, 'limit must be at least 1')
      .max(MAX_TRIAL_ARTIFACTS, `limit must be at most ${MAX_TRIAL_ARTIFACTS}`)
      .default(DEFAULT_TRIAL_ARTIFACTS)
      .describe('most stored artifacts read, the newest first'),
    samples: z.int('samples must be an integer').min(0).max(MAX_TRIAL_SAMPLES, `samples must be at most ${MAX_TRIAL_SAMPLES}`).default(5),
  })
  .refine((b) => b.id !== undefined || b.decoder !== undefined, { message: 'give the decoder to try: decoder, or the id of a stored one', path: ['decoder'] })
  .refine((b) => b.lines === undefined || (b.start === undefined && b.end === undefined && b.query === undefined), {
    message: 'give lines, or a range of stored artifacts (start, end, query), not both',
    path: ['lines'],
  })
  .refine((b) => !b.start || !b.end || Date.parse(b.start) < Date.parse(b.end), { message: 'start must be before end', path: ['start'] });

const ParseOutcomeSchema = z.union([z.object({ parser: z.string(), fields: z.record(z.string(), z.unknown()) }), z.object({ error: z.string() })]);

const TrialResult = z.object({
  service: z.string(),
  start: Timestamp.nullable().describe('the range of stored artifacts read; null for given lines'),
  end: Timestamp.nullable(),
  artifacts_in_range: z.number().int().nullable().describe('stored artifacts the range (source, query) holds, of which the newest `limit` were read; at least this many when artifacts_in_range_exact is false'),
  artifacts_in_range_exact: z.boolean().nullable(),
  lines_read: z.number().int(),
  lines_claimed: z.number().int().describe('lines the tried service decodes (cairn.decoder user/<service>)'),
  lines_changed: z.number().int().describe("lines whose parsed fields differ from today's parse"),
  lines_recognised: z.number().int().describe('lines no parser recognises today that it makes recognised'),
  fields_set: z.record(z.string(), z.number().int()).describe('by field: lines on which it would set the field or change its value'),
  fields_removed: z.record(z.string(), z.number().int()).describe('by field: lines on which the field would lose its value'),
  samples: z
    .array(z.object({ artifact_id: z.string().nullable(), source: z.string(), raw: z.string(), claimed: z.boolean(), before: ParseOutcomeSchema, after: ParseOutcomeSchema }))
    .describe('lines it claims and changes first, then other changed lines, then lines it claims without change: each parsed today (before) and with it (after)'),
  problems: z.array(Problem).describe("what would keep it from being saved now: its test lines that do not give what they expect among the organization's decoders"),
  took_ms: z.number().int(),
});

async function findDecoder(deps: ApiDeps, orgId: string, id: string): Promise<StoredDecoder> {
  const decoder = await getDecoder(deps.store, orgId, id);
  if (!decoder) throw notFound('decoder');
  return decoder;
}

/** 400 naming each problem, the first in the message. */
function refused(problems: DecoderProblem[]): HttpError {
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem(s), in details)` : '';
  return new HttpError(400, 'validation_error', `decoder refused: ${problems[0]!.message}${more}`, problems);
}

/** Checks `spec` among the organization's decoders (as a new one, or in place of `replacing`); 409 when its service name is taken. */
async function checkedSpec(deps: ApiDeps, orgId: string, spec: ServiceSpec, replacing?: StoredDecoder): Promise<void> {
  const stored = await orgDecoders(deps.store, orgId);
  const taken = stored.find((d) => d.service === spec.service && d.id !== replacing?.id);
  if (taken) throw new HttpError(409, 'conflict', `the service name "${spec.service}" is taken by decoder ${taken.id}; change that one (PUT) or choose another name`);
  if (!replacing && stored.length >= MAX_DECODERS_PER_ORG) throw badRequest(`an organization has at most ${MAX_DECODERS_PER_ORG} decoders; delete one first`);
  const problems = checkUserService(spec, { stored, id: replacing?.id, receivedAt: Date.now(), timezone: deps.config.logTimezone });
  if (problems.length > 0) throw refused(problems);
}

/** Saves (or deletes) a decoder and announces the change, so every pipeline process applies it to the artifacts it reads from its next batch. */
async function storeDecoder(deps: ApiDeps, decoder: StoredDecoder, { deleted = false } = {}): Promise<void> {
  await (deleted ? deleteDecoder(deps.store, decoder) : saveDecoder(deps.store, decoder));
  await announceChange(deps.state, 'decoders');
}

/** The lines of a trial: those given, or the newest stored artifacts of the range. */
async function trialLines(deps: ApiDeps, orgId: string, body: z.infer<typeof TrialBody>, spec: ServiceSpec) {
  if (body.lines) {
    const source = body.source ?? spec.sources[0] ?? 'syslog';
    const now = Date.now();
    return { lines: body.lines.map((raw): TrialLine => ({ raw, source, receivedAt: now, artifactId: null })), range: null };
  }
  const end = body.end ?? new Date().toISOString();
  const start = body.start ?? new Date(Date.parse(end) - TRIAL_HOURS * 3_600_000).toISOString();
  if (Date.parse(start) >= Date.parse(end)) throw badRequest('invalid body: start must be before end');
  try {
    const page = await searchArtifactPage(deps.store, { orgId, source: body.source, start, end, query: body.query, limit: body.limit, offset: 0, exactTotal: false });
    const lines = page.artifacts.map((a): TrialLine => ({ raw: a.raw, source: a.source, receivedAt: Date.parse(a.created_at), artifactId: a.id }));
    return { lines, range: { start, end, total: page.total, exact: page.totalExact } };
  } catch (err) {
    if (err instanceof QuerySyntaxError) throw badRequest(`invalid query: ${err.message}`, { position: err.position, reason: err.reason });
    throw err;
  }
}

export const decoderRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/decoders',
    summary: "List the organization's own decoders, in the order they are tried (oldest first)",
    tag: 'Decoders',
    permission: 'signals:read',
    query: Pagination,
    response: listData('decoders', DecoderSchema),
    async handler({ query, auth, deps }) {
      const { decoders, total } = await listDecoders(deps.store, auth.orgId, query);
      return { message: `${total} decoder(s)`, data: { decoders, total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/decoders/:id',
    summary: 'Get one decoder',
    description: 'With ?format=yaml the service is answered as the YAML document it is (application/yaml), as a catalogue file would hold it.',
    tag: 'Decoders',
    permission: 'signals:read',
    params: IdParams,
    query: FormatQuery,
    response: DecoderSchema,
    fileTypes: ['application/yaml'],
    errors: [404],
    async handler({ params, query, auth, deps }) {
      const decoder = await findDecoder(deps, auth.orgId, params.id);
      if (query.format === 'json') return { message: 'Decoder found', data: decoder };
      return { message: 'Decoder as YAML', data: decoder, file: { contentType: 'application/yaml; charset=utf-8', body: toYaml(decoder.spec), filename: `${decoder.service}.yaml` } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/decoders',
    summary: 'Add a decoder: a service in the decoder catalogue form, checked, then applied by every pipeline process without a restart',
    description:
      'The body is a service as a file of pipeline/parser/decoders/catalogue holds it (service, description, programs, sources, defaults, decoders with match/contains/ignore_case/fields, tests), ' +
      'as JSON or as YAML (Content-Type: application/yaml). Refused with 400 (validation_error, each problem in details naming the decoder or test line): an unknown key, a pattern that does not compile or uses an unknown macro, ' +
      'a field that uses a capture the pattern lacks, a field under cairn.*, a pattern slower than 250 ms on 16 KiB of hostile text (catastrophic backtracking), ' +
      "a test line that does not give the fields it expects (or gives a categorisation value ECS does not allow) when parsed by the real parser with the organization's decoders and this one applied. " +
      'A service name the organization already uses is 409. The service is tried before the shipped catalogue for its programs and sources, and by content for lines no service claims (docs/parsing.md, "Your own decoders").',
    tag: 'Decoders',
    permission: 'signals:manage',
    body: DecoderBody,
    yamlBody: true,
    response: DecoderSchema,
    successStatus: 201,
    errors: [409, 413],
    async handler({ body, auth, deps }) {
      await checkedSpec(deps, auth.orgId, body);
      const now = new Date().toISOString();
      const decoder: StoredDecoder = { id: newId(), org_id: auth.orgId, service: body.service, spec: body, created_at: now, updated_at: now };
      await storeDecoder(deps, decoder);
      return { message: `Decoder "${decoder.service}" added`, data: decoder };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/decoders/test',
    summary: 'Try a decoder (stored, or given) on lines or on the stored artifacts of a range: what it claims, the fields it sets, what would change',
    description:
      `Tries a service on the lines given (at most ${MAX_TRIAL_LINES}), or on the newest stored artifacts of [start, end) (default the last ${TRIAL_HOURS} hours; source and query narrow them; at most limit, ${MAX_TRIAL_ARTIFACTS} at most). ` +
      "Each line is parsed as today (the organization's stored decoders) and with the tried service: with `decoder`, in place of the stored one of the same id (or service name), else added; with `id` alone, the stored decoder against the others without it. " +
      'Counts the lines read, claimed (decoded by the service) and changed, the fields set and removed, and answers samples before and after. A pattern over the time budget or that does not compile is 400; failing test lines are listed in problems.',
    tag: 'Decoders',
    permission: 'signals:read',
    audit: false,
    body: TrialBody,
    yamlBody: true,
    response: TrialResult,
    errors: [404],
    async handler({ body, auth, deps }) {
      const started = performance.now();
      const stored = await orgDecoders(deps.store, auth.orgId);
      const tried = body.id ? await findDecoder(deps, auth.orgId, body.id) : undefined;
      const spec = body.decoder ?? ServiceSpec.parse(tried!.spec);
      const problems = checkUserService(spec, { stored, id: body.id, receivedAt: Date.now(), timezone: deps.config.logTimezone });
      // A pattern that does not compile or is over budget cannot be run; failing test lines are only reported.
      const blocking = problems.filter((p) => p.test === undefined);
      if (blocking.length > 0) throw refused(blocking);
      // With `decoder`: today's decoders against them with it in place. With an id alone: the others against all of them.
      const today = body.decoder ? stored : stored.filter((d) => d.id !== body.id);
      const before = withCandidate(today, { spec }).before;
      const after = withCandidate(stored, { id: body.id, spec }).after;
      const { lines, range } = await trialLines(deps, auth.orgId, body, spec);
      let counts;
      try {
        counts = await tryUserService(lines, {
          service: spec.service,
          before: before.length > 0 ? new DecoderIndex(before) : undefined,
          after: new DecoderIndex(after),
          timezone: deps.config.logTimezone,
          samples: body.samples,
        });
      } catch (err) {
        if (err instanceof TrialTooSlow) throw badRequest(`decoder refused: ${err.message}`);
        throw err;
      }
      const took = Math.round(performance.now() - started);
      return {
        message: `${counts.lines_claimed} of ${counts.lines_read} line(s) claimed, ${counts.lines_changed} changed, in ${took} ms`,
        data: {
          service: spec.service,
          start: range?.start ?? null,
          end: range?.end ?? null,
          artifacts_in_range: range?.total ?? null,
          artifacts_in_range_exact: range?.exact ?? null,
          ...counts,
          problems,
          took_ms: took,
        },
      };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/decoders/:id',
    summary: 'Replace a decoder with a new version of its service (checked as on create); applies without a restart',
    description: 'The body is the whole service, as for POST (JSON or YAML); it keeps its place in the order decoders are tried.',
    tag: 'Decoders',
    permission: 'signals:manage',
    params: IdParams,
    body: DecoderBody,
    yamlBody: true,
    response: DecoderSchema,
    errors: [404, 409, 413],
    async handler({ params, body, auth, deps }) {
      const current = await findDecoder(deps, auth.orgId, params.id);
      await checkedSpec(deps, auth.orgId, body, current);
      const updated: StoredDecoder = { ...current, service: body.service, spec: body, updated_at: new Date().toISOString() };
      await storeDecoder(deps, updated);
      return { message: `Decoder "${updated.service}" updated`, data: updated, audit: { before: current } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/decoders/:id',
    summary: 'Delete a decoder; lines parse as without it from the next batch',
    tag: 'Decoders',
    permission: 'signals:manage',
    params: IdParams,
    response: z.null(),
    errors: [404],
    async handler({ params, auth, deps }) {
      const decoder = await findDecoder(deps, auth.orgId, params.id);
      await storeDecoder(deps, decoder, { deleted: true });
      return { message: `Decoder "${decoder.service}" deleted`, data: null, audit: { before: decoder, after: null } };
    },
  }),
];
