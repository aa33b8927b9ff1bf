// Artifacts (SPEC 2.7, 4.7): ingest onto the bus, search in the store.
import { z } from 'zod';
import { newId } from '../../lib/ids.js';
import type { ArtifactPage } from '../../clickhouse/tables/artifacts.js';
import { QuerySyntaxError } from '../../query/parse.js';
import { COUNTED_MATCHES, searchArtifactPage, searchFields, searchFieldValues, searchHistogram } from '../search-sql.js';
import type { RawArtifact } from '../../topics/index.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import { admitAndPublish } from '../ingest.js';
import { MAX_ARTIFACTS_PER_REQUEST, MAX_METADATA_BYTES, MAX_RAW_BYTES } from '../limits.js';
import { apiMetrics } from '../metrics.js';
import { produce } from '../produce.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, QueryBoolean, Timestamp } from '../schemas.js';
import { eventOfArtifact, fieldsOfArtifacts } from '../../clickhouse/tables/events.js';
import { nodeSummaries } from '../../clickhouse/tables/nodes.js';
import { enrichedFromStored } from '../../pipeline/enricher/stored.js';

/** ISO 8601 with an offset, or without one meaning UTC. */
const IngestTimestamp = z.iso.datetime({ offset: true, local: true, message: 'timestamp must be ISO 8601, e.g. 2026-01-02T03:04:05Z' });

const ArtifactInput = z.object({
  source: z.string({ message: 'source is required and must be a string' }).trim().min(1, 'source must not be empty').max(128, 'source must be at most 128 characters'),
  raw: z
    .string({ message: 'raw is required and must be a string' })
    .min(1, 'raw must not be empty')
    .refine((raw) => Buffer.byteLength(raw, 'utf8') <= MAX_RAW_BYTES, `raw must be at most ${MAX_RAW_BYTES} bytes`),
  timestamp: IngestTimestamp.optional(),
  metadata: z
    .record(z.string(), z.unknown(), { message: 'metadata must be an object' })
    .refine((m) => Buffer.byteLength(JSON.stringify(m), 'utf8') <= MAX_METADATA_BYTES, `metadata must be at most ${MAX_METADATA_BYTES} bytes as JSON`)
    .optional(),
});

/** Normalizes an ISO 8601 timestamp to UTC with milliseconds; no zone means UTC. */
function toUtcIso(timestamp: string): string {
  const zoned = /(?:[Zz]|[+-]\d{2}(?::?\d{2})?)$/.test(timestamp) ? timestamp : `${timestamp}Z`;
  return new Date(zoned).toISOString();
}

const IngestBody = z.object({
  artifacts: z.array(z.unknown(), { message: 'artifacts must be an array of artifact objects' }).min(1, 'artifacts must hold at least one artifact'),
});

const Rejection = z.object({ index: z.number().int(), reason: z.string() });

/** An artifact as the API answers it (also the saved searches' results). */
export const ArtifactSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  source: z.string(),
  raw: z.string(),
  timestamp: Timestamp,
  metadata: z.record(z.string(), z.unknown()),
  created_at: Timestamp,
});

// Defined beside the search it bounds; still exported here, where it was first.
export { COUNTED_MATCHES } from '../search-sql.js';

/** Parsed fields a search may answer with each artifact. */
const MAX_CHOSEN_FIELDS = 20;
const FieldList = z
  .string()
  .regex(/^[A-Za-z@][A-Za-z0-9_.@-]*(,[A-Za-z@][A-Za-z0-9_.@-]*)*$/, 'fields must be comma-separated field names, e.g. user.name,source.ip')
  .transform((v) => [...new Set(v.split(','))])
  .refine((names) => names.length <= MAX_CHOSEN_FIELDS, `fields names at most ${MAX_CHOSEN_FIELDS} fields`);

const SearchQuery = Pagination.extend({
  source: z.string().min(1).max(128).optional(),
  start: Timestamp.optional(),
  end: Timestamp.optional(),
  query: z.string().max(2000, 'query must be at most 2000 characters').optional(),
  fields: FieldList.optional().describe(`parsed fields to answer with each artifact (comma-separated, at most ${MAX_CHOSEN_FIELDS}), e.g. user.name,source.ip: a search's chosen columns`),
  exact_total: QueryBoolean.default(false).describe(`count every match; by default counting stops past ${COUNTED_MATCHES.toLocaleString('en')} and total_exact says so`),
}).refine((q) => !q.start || !q.end || Date.parse(q.start) <= Date.parse(q.end), { message: 'start must not be after end', path: ['start'] });

const HistogramQuery = z
  .object({
    source: z.string().min(1).max(128).optional(),
    start: Timestamp.optional(),
    end: Timestamp.optional(),
    query: z.string().max(2000, 'query must be at most 2000 characters').optional(),
    buckets: z.coerce.number({ message: 'buckets must be an integer from 1 to 500' }).int('buckets must be an integer from 1 to 500').min(1, 'buckets must be an integer from 1 to 500').max(500, 'buckets must be an integer from 1 to 500').default(60),
  })
  .refine((q) => !q.start || !q.end || Date.parse(q.start) <= Date.parse(q.end), { message: 'start must not be after end', path: ['start'] });

const FieldsQuery = z.object({
  source: z.string().min(1).max(128).optional(),
  start: Timestamp.optional(),
  end: Timestamp.optional(),
  query: z.string().max(2000, 'query must be at most 2000 characters').optional(),
  field: z.string().min(1).max(256, 'field must be at most 256 characters').optional().describe('a parsed field (e.g. source.ip): its commonest values; without it, the fields the matches hold'),
  limit: z.coerce.number({ message: 'limit must be an integer from 1 to 100' }).int('limit must be an integer from 1 to 100').min(1, 'limit must be an integer from 1 to 100').max(100, 'limit must be an integer from 1 to 100').default(10),
});

/** A query's syntax error as the 400 every search route answers, with the parser's position. */
async function parsedOrBadRequest<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof QuerySyntaxError) throw badRequest(`invalid query: ${err.message}`, { position: err.position, reason: err.reason });
    throw err;
  }
}

export const artifactRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/artifacts',
    summary: `Ingest artifacts (at most ${MAX_ARTIFACTS_PER_REQUEST} per request); answers once the bus holds them`,
    tag: 'Artifacts',
    permission: 'signals:write',
    // Data, not a change of configuration: the store and the bus already say what arrived.
    audit: false,
    body: IngestBody,
    response: z.object({ accepted: z.number().int(), rejected: z.number().int(), ids: z.array(z.string()), rejections: z.array(Rejection) }),
    successStatus: 202,
    errors: [413, 429, 503],
    async handler({ body, auth, deps, ctx }) {
      if (body.artifacts.length > MAX_ARTIFACTS_PER_REQUEST) {
        throw new HttpError(413, 'payload_too_large', `at most ${MAX_ARTIFACTS_PER_REQUEST} artifacts per request; this one has ${body.artifacts.length}`);
      }
      const accepted: RawArtifact[] = [];
      const rejections: z.infer<typeof Rejection>[] = [];
      const receivedAt = new Date().toISOString();
      body.artifacts.forEach((item, index) => {
        const parsed = ArtifactInput.safeParse(item);
        if (!parsed.success) {
          rejections.push({ index, reason: parsed.error.issues.map((i) => i.message).join('; ') });
          return;
        }
        const { source, raw, timestamp, metadata } = parsed.data;
        accepted.push({
          id: newId(),
          org_id: auth.orgId,
          source,
          raw,
          timestamp: timestamp ? toUtcIso(timestamp) : receivedAt,
          metadata: metadata ?? {},
        });
      });
      apiMetrics.ingested.inc({ outcome: 'rejected' }, rejections.length);
      if (accepted.length === 0) {
        throw new HttpError(400, 'validation_error', `no artifact was accepted: ${rejections[0]!.reason} (item ${rejections[0]!.index})`, rejections);
      }
      await admitAndPublish(deps, ctx, accepted);
      const note = rejections.length ? `, ${rejections.length} rejected` : '';
      return {
        message: `${accepted.length} artifact(s) accepted for processing${note}`,
        data: { accepted: accepted.length, rejected: rejections.length, ids: accepted.map((a) => a.id!), rejections },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/artifacts',
    summary: 'Search artifacts, newest first: the query language (docs/query-language.md) over raw text and parsed fields, time range [start, end), source',
    tag: 'Artifacts',
    permission: 'signals:read',
    query: SearchQuery,
    response: listData(
      'artifacts',
      ArtifactSchema.extend({ fields: z.record(z.string(), z.array(z.string())).optional().describe('with `fields`: the chosen parsed fields this artifact has, each a list of values') }),
    ).extend({
      total_exact: z.boolean().describe(`false when more than ${COUNTED_MATCHES.toLocaleString('en')} matched and exact_total was not asked: total is then that many, a lower bound`),
    }),
    async handler({ query, auth, deps }) {
      let page: ArtifactPage;
      try {
        page = await searchArtifactPage(deps.store, { orgId: auth.orgId, source: query.source, start: query.start, end: query.end, query: query.query, limit: query.limit, offset: query.offset, exactTotal: query.exact_total });
      } catch (err) {
        if (err instanceof QuerySyntaxError) throw badRequest(`invalid query: ${err.message}`, { position: err.position, reason: err.reason });
        throw err;
      }
      const { total, totalExact } = page;
      let artifacts: Array<ArtifactPage['artifacts'][number] & { fields?: Record<string, string[]> }> = page.artifacts;
      if (query.fields) {
        const chosen = await fieldsOfArtifacts(deps.store, auth.orgId, page.artifacts, query.fields);
        artifacts = page.artifacts.map((a) => ({ ...a, fields: chosen.get(a.id) ?? {} }));
      }
      return {
        message: `${totalExact ? '' : 'more than '}${total} artifact(s) found`,
        data: { artifacts, total, total_exact: totalExact, limit: query.limit, offset: query.offset },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/artifacts/histogram',
    summary: 'How many artifacts a search matches over time: the same query, source and range as GET /v1/artifacts, counted per bucket (at most `buckets`, widths from 1 second to 1 year, aligned in UTC); an open range runs from the oldest to the newest match',
    tag: 'Artifacts',
    permission: 'signals:read',
    query: HistogramQuery,
    response: z.object({
      start: Timestamp.nullable().describe('the range counted, inclusive; null when nothing is stored in it'),
      end: Timestamp.nullable().describe('exclusive'),
      interval_seconds: z.number().int(),
      buckets: z.array(z.object({ start: Timestamp, count: z.number().int() })).describe('buckets holding matches, oldest first; empty buckets are left out'),
      total: z.number().int().describe('the sum of the buckets: every match, counted exactly'),
    }),
    async handler({ query, auth, deps }) {
      const histogram = await parsedOrBadRequest(() => searchHistogram(deps.store, { orgId: auth.orgId, source: query.source, start: query.start, end: query.end, query: query.query }, query.buckets));
      const total = histogram.buckets.reduce((sum, b) => sum + b.count, 0);
      return {
        message: `${total} artifact(s) in ${histogram.buckets.length} bucket(s) of ${histogram.intervalSeconds} s`,
        data: { start: histogram.start, end: histogram.end, interval_seconds: histogram.intervalSeconds, buckets: histogram.buckets, total },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/artifacts/fields',
    summary: "The parsed fields of a search's matches (same query, source and range as GET /v1/artifacts), most common first, or with `field` that field's commonest values; each with how many matching artifacts hold it",
    tag: 'Artifacts',
    permission: 'signals:read',
    query: FieldsQuery,
    response: z.object({
      field: z.string().nullable(),
      fields: z.array(z.object({ field: z.string(), count: z.number().int() })).describe('without `field`: the fields held, most common first'),
      values: z.array(z.object({ value: z.string(), count: z.number().int() })).describe('with `field`: its values, most common first (a value counts once per artifact)'),
    }),
    async handler({ query, auth, deps }) {
      const scope = { orgId: auth.orgId, source: query.source, start: query.start, end: query.end, query: query.query };
      if (query.field) {
        const field = query.field;
        const values = await parsedOrBadRequest(() => searchFieldValues(deps.store, scope, field, query.limit));
        return { message: `${values.length} value(s) of ${field}`, data: { field, fields: [], values } };
      }
      const fields = await parsedOrBadRequest(() => searchFields(deps.store, scope, query.limit));
      return { message: `${fields.length} field(s)`, data: { field: null, fields, values: [] } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/artifacts/:id/event',
    summary: 'The parsed event of one artifact: the parser that read it and its fields (ECS names, each a list of values); 404 when it has none',
    tag: 'Artifacts',
    permission: 'signals:read',
    params: IdParams,
    response: z.object({ artifact_id: z.string(), parser: z.string(), fields: z.record(z.string(), z.array(z.string())) }),
    errors: [404],
    async handler({ params, auth, deps }) {
      const event = await eventOfArtifact(deps.store, auth.orgId, params.id);
      if (!event) throw notFound('parsed event for this artifact');
      return { message: 'Parsed event found', data: { artifact_id: params.id, parser: event.parser, fields: event.fields } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/artifacts/:id/nodes',
    summary: 'The graph nodes an artifact made: the entities the enricher finds in its parsed event (the same ids), each with the field it came from, those stored in the graph',
    tag: 'Artifacts',
    permission: 'graph:read',
    params: IdParams,
    response: z.object({
      artifact_id: z.string(),
      nodes: z.array(z.object({ id: z.string(), type: z.string(), value: z.string(), field: z.string().describe('the parsed field that named it, e.g. source.ip') })),
    }),
    errors: [404],
    async handler({ params, auth, deps }) {
      const event = await eventOfArtifact(deps.store, auth.orgId, params.id);
      if (!event) throw notFound('parsed event for this artifact');
      // The enricher's own extraction, so the ids are the ones it wrote; only those in the graph are answered (a node is written with its sighting).
      const entities = enrichedFromStored(event).entities;
      const stored = await nodeSummaries(deps.store, auth.orgId, [...new Set(entities.map((e) => e.id))]);
      const seen = new Set<string>();
      const nodes = entities.filter((e) => stored.has(e.id) && !seen.has(e.id) && seen.add(e.id)).map((e) => ({ id: e.id, type: e.type, value: e.value, field: e.role }));
      return { message: `${nodes.length} node(s)`, data: { artifact_id: params.id, nodes } };
    },
  }),
];
