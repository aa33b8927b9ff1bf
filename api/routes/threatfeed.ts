// Threat intelligence (SPEC 4.11 threatfeed rows; docs/threat-intel.md):
// feed subscriptions, sync jobs, the indicator library and its search, and
// publications of cairn's own indicators (served over TAXII by
// api/routes/taxii.ts). Feed credentials are sealed at rest and redacted in
// answers. A feed that cannot be reached fails its job; it is never an
// error of these routes.
import { z } from 'zod';
import { LIBRARY_STATUSES, listLibrary, recentSightings, type LibraryFilter, type LibraryRow } from '../../clickhouse/tables/threatfeed-indicators.js';
import { JOB_STATUSES, listJobs, type SyncJob } from '../../clickhouse/tables/threatfeed-jobs.js';
import { getPublication, listPublications, objectCounts, savePublication, truePositiveIndicators, type StoredPublication } from '../../clickhouse/tables/threatfeed-publications.js';
import { deleteSubscription, getSubscription, listSubscriptions, saveSubscription, subscriptionsOf, type StoredSubscription } from '../../clickhouse/tables/threatfeed-subscriptions.js';
import { DURATION_PATTERN, formatDuration, parseDuration } from '../../lib/duration.js';
import { newId } from '../../lib/ids.js';
import { canonicalIp } from '../../pipeline/parser/ip.js';
import { FEED_KINDS, feedSettings, feedUrlProblem, redactFeedSettings, sealFeedSettings, SETTINGS_SCHEMAS } from '../../threatintel/feeds.js';
import { INDICATOR_TYPES, readValue, type ValueType } from '../../threatintel/indicator.js';
import { bundleOf, refreshPublication } from '../../threatintel/publications.js';
import { dryRun } from '../../threatintel/dry-run.js';
import { queueSync } from '../../threatintel/schedule.js';
import { STIX_MEDIA_TYPE } from '../../threatintel/stix.js';
import { API_ROOT_NAME, TAXII_ROOT_PATH } from '../../threatintel/taxii-server.js';
import { withdrawSubscription, type IntelDeps } from '../../threatintel/sync.js';
import type { ApiDeps } from '../deps.js';
import { HttpError, notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, QueryBoolean, Timestamp } from '../schemas.js';
import { redactUrl } from '../../lib/redact.js';

const TAG = 'Threat intelligence';

export function intelDeps(deps: ApiDeps): IntelDeps {
  return { config: deps.config, store: deps.store, bus: deps.bus, state: deps.state, logger: deps.logger, outbound: deps.outbound, box: deps.identity.box };
}

function invalid(path: string, message: string): HttpError {
  return new HttpError(400, 'validation_error', `invalid body: ${path}: ${message}`, [{ in: 'body', path, message }]);
}

const Duration = (name: string, min: number) =>
  z
    .string({ message: `${name} must be a duration such as 15m, 1h or 30d` })
    .regex(DURATION_PATTERN, `${name} must be a duration such as 15m, 1h or 30d`)
    .transform(parseDuration)
    .refine((ms) => ms >= min, `${name} must be at least ${formatDuration(min)}`);

const Confidence = z.int('confidence must be an integer from 0 to 100').min(0, 'confidence must be from 0 to 100').max(100, 'confidence must be from 0 to 100');

const SubscriptionBody = z.strictObject({
  name: z.string({ message: 'name is required' }).trim().min(1, 'name is required').max(200, 'name must be at most 200 characters'),
  kind: z.enum(FEED_KINDS, { message: `kind must be one of: ${FEED_KINDS.join(', ')}` }),
  url: z.string({ message: 'url is required' }).max(2048, 'url must be at most 2048 characters'),
  settings: z.record(z.string(), z.unknown(), { message: 'settings must be an object' }).default({}),
  enabled: z.boolean({ message: 'enabled must be true or false' }).default(true),
  poll_interval: Duration('poll_interval', 60_000).prefault('1h'),
  confidence: Confidence.default(50),
  lifetime: Duration('lifetime', 60_000).prefault('30d'),
  decay_speed: z.number({ message: 'decay_speed must be a number' }).min(0.1, 'decay_speed must be from 0.1 to 10').max(10, 'decay_speed must be from 0.1 to 10').default(1),
  score_threshold: z.int('score_threshold must be an integer from 0 to 100').min(0, 'score_threshold must be from 0 to 100').max(100, 'score_threshold must be from 0 to 100').default(20),
  dry_run: z.boolean({ message: 'dry_run must be true or false' }).default(false),
});

const SubscriptionSchema = z.object({
  id: z.uuid(),
  name: z.string(),
  kind: z.enum(FEED_KINDS).describe('taxii (TAXII 2.1 collection), misp (MISP feed: manifest.json and event files), stix-bundle (a STIX 2.1 bundle), plain (one indicator per line), csv (one column of a CSV)'),
  url: z.string().describe('taxii: the discovery or API-root URL; misp: the feed folder (where manifest.json is); others: the document'),
  settings: z.record(z.string(), z.unknown()).describe('by kind (docs/threat-intel.md); password and token as "[redacted]" when set'),
  enabled: z.boolean().describe('false: no scheduled syncs (POST /v1/threatfeed/sync naming it still runs one)'),
  poll_interval: z.string().describe('how often it is synced, e.g. 1h'),
  confidence: z.number().int().describe('confidence (0-100) of indicators the feed gives none'),
  lifetime: z.string().describe('indicators without valid_until expire this long after the feed last asserted them'),
  decay_speed: z.number().describe('δ of the decay model (1 linear; above 1 fast at first)'),
  score_threshold: z.number().int().describe('indicators whose decayed score falls below this stop matching'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

function presentSubscription(s: StoredSubscription): z.input<typeof SubscriptionSchema> {
  return {
    id: s.id,
    name: s.name,
    kind: s.kind,
    // A key given in the query string is a secret too: shown redacted (docs/threat-intel.md).
    url: redactUrl(s.url),
    settings: redactFeedSettings(s.settings),
    enabled: s.enabled,
    poll_interval: formatDuration(s.poll_interval_seconds * 1000),
    confidence: s.confidence,
    lifetime: formatDuration(s.lifetime_seconds * 1000),
    decay_speed: s.decay_speed,
    score_threshold: s.score_threshold,
    created_at: s.created_at,
    updated_at: s.updated_at,
  };
}

const JobSchema = z.object({
  id: z.uuid(),
  subscription_id: z.uuid(),
  subscription_name: z.string(),
  trigger: z.enum(['schedule', 'manual']),
  status: z.enum(JOB_STATUSES),
  queued_at: Timestamp,
  started_at: Timestamp.nullable(),
  finished_at: Timestamp.nullable(),
  fetched: z.number().int().describe('objects, attributes or lines read'),
  added: z.number().int().describe('indicators new from this feed'),
  updated: z.number().int().describe('indicators the feed changed'),
  expired: z.number().int().describe("the feed's indicators that expired since its previous run"),
  removed: z.number().int().describe('indicators revoked or withdrawn by the feed (or no longer listed by a list or bundle)'),
  rejected: z.number().int().describe('items that are not valid indicators'),
  retro_sightings: z.number().int().describe('sightings in stored events the retro-hunt found for the new and changed indicators'),
  error: z.string().nullable().describe('why the job failed'),
  cursor: z.string().describe('where the next run resumes (TAXII added_after, MISP event timestamp)'),
});

function presentJob(job: SyncJob): z.input<typeof JobSchema> {
  const { org_id: _o, updated_at: _u, ...rest } = job;
  return { ...rest, error: job.error || null };
}

const FeedClaimSchema = z.object({
  subscription_id: z.uuid(),
  name: z.string().describe('the subscription name'),
  confidence: z.number().int(),
  score: z.number().describe('current score of this feed\'s claim'),
  live: z.boolean().describe('this claim matches now'),
  labels: z.array(z.string()),
  valid_from: Timestamp,
  valid_until: Timestamp.nullable().describe('as the feed gave it'),
  expires_at: Timestamp.describe('valid_until, or the feed\'s lifetime after it last asserted the indicator'),
  reference: z.string().describe('the feed\'s own name for it: STIX id, MISP attribute, list value'),
});

const EntrySchema = z.object({
  id: z.uuid(),
  type: z.enum(INDICATOR_TYPES),
  value: z.string(),
  matched_at_ingest: z.boolean().describe('false for STIX patterns cairn keeps but does not match (note says why)'),
  note: z.string().nullable(),
  status: z.enum(LIBRARY_STATUSES).describe('active (matches now), expired, decayed (score below threshold), pending (not valid yet), not_matched'),
  score: z.number().describe('current score: the highest of its feeds'),
  confidence: z.number().int().describe('the highest confidence of its feeds'),
  labels: z.array(z.string()),
  valid_from: Timestamp,
  valid_until: Timestamp.describe('when its last feed claim expires'),
  feeds: z.array(FeedClaimSchema),
  hit_count: z.number().int().describe('artifacts that named it'),
  last_hit_at: Timestamp.nullable(),
  first_seen_at: Timestamp.describe('when cairn first got it'),
  updated_at: Timestamp,
});

function presentEntry(entry: LibraryRow, names: Map<string, string>): z.input<typeof EntrySchema> {
  return {
    id: entry.id,
    type: entry.type as z.input<typeof EntrySchema>['type'],
    value: entry.value,
    matched_at_ingest: entry.matchable,
    note: entry.claims.find((c) => c.note)?.note ?? null,
    status: entry.status,
    score: entry.score,
    confidence: Math.max(...entry.claims.map((c) => c.confidence)),
    labels: [...new Set(entry.claims.flatMap((c) => c.labels))],
    valid_from: entry.claims.map((c) => c.valid_from).sort()[0]!,
    valid_until: entry.claims.map((c) => c.expires_at).sort().at(-1)!,
    feeds: entry.claims.map((c) => ({
      subscription_id: c.subscription_id,
      name: names.get(c.subscription_id) ?? '(deleted)',
      confidence: c.confidence,
      score: c.score,
      live: c.live,
      labels: c.labels,
      valid_from: c.valid_from,
      valid_until: c.valid_until,
      expires_at: c.expires_at,
      reference: c.source_ref,
    })),
    hit_count: entry.hit_count,
    last_hit_at: entry.last_hit_at,
    first_seen_at: entry.first_seen_at,
    updated_at: entry.updated_at,
  };
}

async function feedNames(deps: Pick<ApiDeps, 'store'>, orgId: string): Promise<Map<string, string>> {
  return new Map((await subscriptionsOf(deps.store, orgId)).map((s) => [s.id, s.name]));
}

const LibraryQuery = Pagination.extend({
  type: z.enum(INDICATOR_TYPES, { message: `type must be one of: ${INDICATOR_TYPES.join(', ')}` }).optional(),
  feed: z.uuid({ message: 'feed must be a subscription id (UUID)' }).optional(),
  status: z.enum(LIBRARY_STATUSES, { message: `status must be one of: ${LIBRARY_STATUSES.join(', ')}` }).optional(),
  seen: QueryBoolean.optional(),
});

const SearchQuery = LibraryQuery.extend({
  value: z.string({ message: 'value is required' }).trim().min(1, 'value is required').max(4096, 'value must be at most 4096 characters'),
  match: z.enum(['exact', 'prefix'], { message: 'match must be exact or prefix' }).default('exact'),
});

export type IndicatorSearch = z.output<typeof SearchQuery>;

/** GET /v1/threatfeed/search, also the AI assistant's lookup (api/ai-reads.ts): indicators with their latest 10 sightings each. */
export async function searchIndicators(deps: Pick<ApiDeps, 'store'>, orgId: string, query: IndicatorSearch) {
  const filter = { ...libraryFilter(query), value: searchValue(query.value, query.match) };
  const [{ entries, total }, names] = await Promise.all([listLibrary(deps.store, orgId, filter), feedNames(deps, orgId)]);
  const sightings = await recentSightings(deps.store, orgId, entries.map((e) => e.id), 10);
  const indicators = entries.map((e) => ({ ...presentEntry(e, names), sightings: (sightings.get(e.id) ?? []).map(({ indicator_id: _i, ...s }) => s) }));
  return { indicators, total };
}

const SightingSchema = z.object({ artifact_id: z.uuid(), seen_at: Timestamp, field: z.string(), observation_id: z.uuid(), retrospective: z.boolean() });

function libraryFilter(query: z.output<typeof LibraryQuery>): LibraryFilter {
  return { limit: query.limit, offset: query.offset, type: query.type, subscriptionId: query.feed, status: query.status, seen: query.seen };
}

/** A search value as the library holds it: canonical when it reads as an indicator, lower-case otherwise. */
function searchValue(value: string, match: 'exact' | 'prefix'): LibraryFilter['value'] {
  if (match === 'prefix') return { prefix: value.toLowerCase() };
  const address = canonicalIp(value);
  if (address) return { address };
  return { exact: readValue(value)?.value ?? value.toLowerCase() };
}

const PublicationBody = z.strictObject({
  name: z.string({ message: 'name is required' }).trim().min(1, 'name is required').max(200, 'name must be at most 200 characters'),
  description: z.string().max(2000, 'description must be at most 2000 characters').default(''),
  include_true_positives: z.boolean({ message: 'include_true_positives must be true or false' }).default(true),
  indicators: z
    .array(
      z.strictObject({
        value: z.string({ message: 'value is required' }).max(4096, 'value must be at most 4096 characters'),
        type: z.enum(['ipv4-addr', 'ipv6-addr', 'ipv4-cidr', 'ipv6-cidr', 'domain', 'url', 'md5', 'sha1', 'sha256', 'email'] as const satisfies readonly ValueType[], { message: 'type must be an indicator type' }).optional(),
      }),
      { message: 'indicators must be a list of {value, type?}' },
    )
    .max(10_000, 'indicators may list at most 10000')
    .default([]),
  confidence: Confidence.default(80),
  lifetime: Duration('lifetime', 60_000).nullable().default(null),
});

const PublicationSchema = z.object({
  id: z.uuid().describe('also the TAXII collection id'),
  name: z.string(),
  description: z.string(),
  include_true_positives: z.boolean().describe('addresses and domains of incidents classified true positive join it (internal, managed and trusted ones never)'),
  indicators: z.array(z.object({ type: z.string(), value: z.string() })).describe('hand-picked, canonical'),
  confidence: z.number().int(),
  lifetime: z.string().nullable().describe('published indicators are valid this long after they are added; null: no valid_until'),
  object_count: z.number().int().describe('indicators it publishes now'),
  collection_url: z.string().describe('its TAXII 2.1 collection'),
  bundle_url: z.string().describe('its STIX 2.1 bundle'),
  created_by: z.string(),
  created_at: Timestamp,
  updated_at: Timestamp,
});

function presentPublication(deps: ApiDeps, p: StoredPublication, count: number): z.input<typeof PublicationSchema> {
  const base = deps.config.identity.publicUrl;
  return {
    id: p.id,
    name: p.name,
    description: p.description,
    include_true_positives: p.include_true_positives,
    indicators: p.indicators,
    confidence: p.confidence,
    lifetime: p.lifetime_seconds > 0 ? formatDuration(p.lifetime_seconds * 1000) : null,
    object_count: count,
    collection_url: `${base}${TAXII_ROOT_PATH}${API_ROOT_NAME}/collections/${p.id}/`,
    bundle_url: `${base}/api/v1/threatfeed/publications/${p.id}/bundle`,
    created_by: p.created_by,
    created_at: p.created_at,
    updated_at: p.updated_at,
  };
}

const DryRunSchema = z.object({
  dry_run: z.literal(true),
  fetched: z.number().int(),
  indicators: z.number().int().describe('indicators the feed holds now'),
  matchable: z.number().int().describe('of those, the ones matched at ingest'),
  rejected: z.number().int(),
  matching_events: z.number().int().describe(`stored events of the last CAIRN_RETROHUNT_DAYS days its indicators would match`),
  sightings: z.number().int(),
  days: z.number().int(),
  error: z.string().nullable().describe('why the feed could not be read; the counts are then 0'),
});

export const threatfeedRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/threatfeed/subscriptions',
    summary: 'List threat feed subscriptions, newest first (credentials redacted)',
    tag: TAG,
    permission: 'threatfeed:read',
    query: Pagination,
    response: listData('subscriptions', SubscriptionSchema),
    async handler({ query, auth, deps }) {
      const { subscriptions, total } = await listSubscriptions(deps.store, auth.orgId, query);
      return { message: `${total} subscription(s)`, data: { subscriptions: subscriptions.map(presentSubscription), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/threatfeed/subscriptions',
    summary: 'Subscribe to a feed (201, and its first sync is queued), or with dry_run: true count what its current indicators would match in stored events (200, nothing saved)',
    description:
      'kind: taxii, misp, stix-bundle, plain or csv. settings by kind: taxii: collection_id (required), page_size; csv: column (1-based number or header name), header, delimiter; every kind: auth_type (none, basic, bearer), username, password, token. password and token are sealed at rest and answered as "[redacted]". URLs that are private, loopback or link-local are refused unless CAIRN_OUTBOUND_ALLOW allows them. See docs/threat-intel.md.',
    tag: TAG,
    permission: 'threatfeed:write',
    body: SubscriptionBody,
    response: z.union([SubscriptionSchema.extend({ job_id: z.uuid().nullable().describe('the first sync, queued (null when disabled)') }), DryRunSchema]),
    successStatus: 201,
    async handler({ body, auth, deps }) {
      const problem = feedUrlProblem(body.url, deps.config.outbound);
      if (problem) throw invalid('url', problem);
      const checked = SETTINGS_SCHEMAS[body.kind].safeParse(body.settings);
      if (!checked.success) {
        const issues = checked.error.issues.map((i) => ({ in: 'body', path: ['settings', ...i.path].join('.'), message: i.message }));
        throw new HttpError(400, 'validation_error', `invalid body: ${issues[0]!.path}: ${issues[0]!.message}`, issues);
      }
      const now = new Date().toISOString();
      const subscription: StoredSubscription = {
        id: newId(),
        org_id: auth.orgId,
        name: body.name,
        kind: body.kind,
        url: body.url,
        settings: checked.data as Record<string, unknown>,
        enabled: body.enabled,
        poll_interval_seconds: Math.round(body.poll_interval / 1000),
        confidence: body.confidence,
        lifetime_seconds: Math.round(body.lifetime / 1000),
        decay_speed: body.decay_speed,
        score_threshold: body.score_threshold,
        created_at: now,
        updated_at: now,
      };
      if (body.dry_run) {
        const counted = await dryRun(intelDeps(deps), subscription, feedSettings(body.kind, subscription.settings));
        return { message: counted.error ? 'Dry run: the feed could not be read' : `Dry run: ${counted.matching_events} stored event(s) match`, data: { dry_run: true as const, ...counted }, status: 200 };
      }
      const stored = { ...subscription, settings: sealFeedSettings(deps.identity.box, subscription.settings) };
      await saveSubscription(deps.store, stored);
      const [job] = stored.enabled ? await queueSync(intelDeps(deps), [stored], 'manual') : [];
      return { message: 'Subscribed', data: { ...presentSubscription(stored), job_id: job?.id ?? null } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/threatfeed/subscriptions/:id',
    summary: 'Unsubscribe: the feed stops syncing and its indicators leave the library (those other feeds also give stay)',
    tag: TAG,
    permission: 'threatfeed:write',
    params: IdParams,
    response: z.null(),
    errors: [404],
    async handler({ params, auth, deps }) {
      const subscription = await getSubscription(deps.store, auth.orgId, params.id);
      if (!subscription) throw notFound('subscription');
      await deleteSubscription(deps.store, subscription);
      await withdrawSubscription(deps, subscription);
      return { message: `Unsubscribed from "${subscription.name}"`, data: null, audit: { before: presentSubscription(subscription), after: null } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/threatfeed/jobs',
    summary: 'List sync jobs, newest first: status, times, counts and the error of a failed one',
    tag: TAG,
    permission: 'threatfeed:read',
    query: Pagination.extend({
      subscription_id: z.uuid({ message: 'subscription_id must be a UUID' }).optional(),
      status: z.enum(JOB_STATUSES, { message: `status must be one of: ${JOB_STATUSES.join(', ')}` }).optional(),
    }),
    response: listData('jobs', JobSchema),
    async handler({ query, auth, deps }) {
      const { jobs, total } = await listJobs(deps.store, auth.orgId, { ...query, subscriptionId: query.subscription_id });
      return { message: `${total} job(s)`, data: { jobs: jobs.map(presentJob), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/threatfeed/sync',
    summary: 'Sync now: every enabled subscription, or the one named (202; follow the jobs in GET /v1/threatfeed/jobs)',
    tag: TAG,
    permission: 'threatfeed:write',
    body: z.strictObject({ subscription_id: z.uuid({ message: 'subscription_id must be a UUID' }).optional() }),
    response: z.object({ jobs: z.array(JobSchema) }),
    successStatus: 202,
    errors: [404],
    async handler({ body, auth, deps }) {
      let subscriptions: StoredSubscription[];
      if (body.subscription_id) {
        const one = await getSubscription(deps.store, auth.orgId, body.subscription_id);
        if (!one) throw notFound('subscription');
        subscriptions = [one];
      } else {
        subscriptions = (await subscriptionsOf(deps.store, auth.orgId)).filter((s) => s.enabled);
      }
      const jobs = await queueSync(intelDeps(deps), subscriptions, 'manual');
      return { message: `${jobs.length} sync job(s) queued`, data: { jobs: jobs.map(presentJob) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/threatfeed/library',
    summary: 'The indicator library: every indicator with its feeds, confidence, validity, current score, status and hits; most recently changed first',
    tag: TAG,
    permission: 'threatfeed:read',
    query: LibraryQuery,
    response: listData('indicators', EntrySchema),
    async handler({ query, auth, deps }) {
      const [{ entries, total }, names] = await Promise.all([listLibrary(deps.store, auth.orgId, libraryFilter(query)), feedNames(deps, auth.orgId)]);
      return { message: `${total} indicator(s)`, data: { indicators: entries.map((e) => presentEntry(e, names)), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/threatfeed/search',
    summary: 'Search indicators by value (exact, prefix, or an address inside a CIDR indicator), type, feed and whether our data saw them, with the artifacts that did',
    description: 'match=exact (default): the value as cairn writes it (an address also finds the CIDR indicators holding it); match=prefix: values starting with it. Each indicator lists up to 10 of its latest sightings.',
    tag: TAG,
    permission: 'threatfeed:read',
    query: SearchQuery,
    response: listData('indicators', EntrySchema.extend({ sightings: z.array(SightingSchema) })),
    async handler({ query, auth, deps }) {
      const { indicators, total } = await searchIndicators(deps, auth.orgId, query);
      return { message: `${total} indicator(s)`, data: { indicators, total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/threatfeed/publications',
    summary: "List publications of cairn's own indicators, with their TAXII collection and bundle URLs",
    tag: TAG,
    permission: 'threatfeed:read',
    query: Pagination,
    response: listData('publications', PublicationSchema),
    async handler({ query, auth, deps }) {
      const { publications, total } = await listPublications(deps.store, auth.orgId, query);
      // The organization's true positives, read once for every publication that includes them.
      const truePositives = publications.some((p) => p.include_true_positives) ? await truePositiveIndicators(deps.store, auth.orgId, deps.config.graph) : [];
      for (const publication of publications) await refreshPublication(deps.store, deps.config.graph, publication, truePositives);
      const counts = await objectCounts(deps.store, auth.orgId, publications.map((p) => p.id));
      return { message: `${total} publication(s)`, data: { publications: publications.map((p) => presentPublication(deps, p, counts.get(p.id) ?? 0)), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/threatfeed/publications',
    summary: 'Publish indicators as a TAXII 2.1 collection and STIX 2.1 bundle: hand-picked ones, and (include_true_positives) addresses and domains of incidents classified true positive',
    tag: TAG,
    permission: 'threatfeed:manage',
    body: PublicationBody,
    response: PublicationSchema,
    successStatus: 201,
    async handler({ body, auth, deps }) {
      const indicators = body.indicators.map((item, i) => {
        const value = readValue(item.value, item.type);
        if (!value) throw invalid(`indicators.${i}.value`, `"${item.value.slice(0, 100)}" is not ${item.type ? `a valid ${item.type}` : 'an address, network, domain, URL, hash or email address'}`);
        return value;
      });
      const now = new Date().toISOString();
      const publication: StoredPublication = {
        id: newId(),
        org_id: auth.orgId,
        name: body.name,
        description: body.description,
        include_true_positives: body.include_true_positives,
        indicators: [...new Map(indicators.map((v) => [`${v.type}:${v.value}`, v])).values()],
        confidence: body.confidence,
        lifetime_seconds: body.lifetime === null ? 0 : Math.round(body.lifetime / 1000),
        created_by: auth.email ?? auth.subject,
        created_at: now,
        updated_at: now,
      };
      await savePublication(deps.store, publication);
      const objects = await refreshPublication(deps.store, deps.config.graph, publication);
      const count = objects.filter((o) => !o.revoked && o.origin !== 'identity').length;
      return { message: 'Publication created', data: presentPublication(deps, publication, count) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/threatfeed/publications/:id/bundle',
    summary: 'A publication as a STIX 2.1 bundle (application/stix+json;version=2.1) of its current indicators',
    tag: TAG,
    permission: 'threatfeed:read',
    params: IdParams,
    response: z.null(),
    errors: [404],
    fileTypes: [STIX_MEDIA_TYPE],
    async handler({ params, auth, deps }) {
      const publication = await getPublication(deps.store, auth.orgId, params.id);
      if (!publication) throw notFound('publication');
      const objects = await refreshPublication(deps.store, deps.config.graph, publication);
      return { message: 'bundle', data: null, file: { contentType: STIX_MEDIA_TYPE, body: JSON.stringify(bundleOf(objects)), filename: `${publication.name.replace(/[^A-Za-z0-9._-]+/g, '-')}.stix.json` } };
    },
  }),
];
