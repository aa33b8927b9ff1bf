// Artifact exporters (issue 15, point 7; docs/exporters.md): forward the
// artifacts that match a query to a syslog receiver, an HTTP endpoint or a
// Kafka topic. The exporters stage runs them; every change here raises
// system.config_changed, which is also how the stage learns of it at once.
// Secrets (bearer token, Kafka password) are sealed at rest and redacted in
// answers; an update that omits one or sends "[redacted]" keeps it.
import type { Context } from 'koa';
import { z } from 'zod';
import { deleteExporter, EXPORTER_TYPES, getExporter, listExporters, saveExporter, type ExporterType, type StoredExporter } from '../../clickhouse/tables/exporters.js';
import { newId } from '../../lib/ids.js';
import { EXPORTERS_SETTING } from '../../pipeline/exporters/consumer.js';
import {
  destinationOf,
  HttpSettings,
  KafkaSettings,
  mergeSettings,
  openSettings,
  redactSettings,
  refusedAddresses,
  sealSettings,
  SETTINGS_SCHEMAS,
  SyslogSettings,
} from '../../pipeline/exporters/settings.js';
import { MAX_QUERY_LENGTH, parseQuery, QuerySyntaxError } from '../../query/parse.js';
import type { AuthContext } from '../auth.js';
import type { ApiDeps } from '../deps.js';
import { HttpError, notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, Timestamp } from '../schemas.js';
import { raiseConfigChanged } from '../system-events.js';

const DEFAULT_COOLDOWN_MINUTES = 15;

const Fields = {
  name: z.string().trim().min(1, 'name is required').max(200, 'name must be at most 200 characters'),
  enabled: z.boolean({ message: 'enabled must be true or false' }),
  query: z.string({ message: 'query must be a string' }).max(MAX_QUERY_LENGTH, `query must be at most ${MAX_QUERY_LENGTH} characters`),
  source: z.string().trim().min(1, 'source must not be empty; null forwards every source').max(200, 'source must be at most 200 characters').nullable(),
  type: z.enum(EXPORTER_TYPES, { message: `type must be one of: ${EXPORTER_TYPES.join(', ')}` }),
  settings: z.record(z.string(), z.unknown(), { message: 'settings must be an object' }),
  failure_cooldown_minutes: z.int('failure_cooldown_minutes must be an integer').min(1, 'failure_cooldown_minutes must be at least 1').max(1440, 'failure_cooldown_minutes must be at most 1440 (a day)'),
};

const CreateBody = z.strictObject({
  name: Fields.name,
  enabled: Fields.enabled.default(true),
  query: Fields.query.default(''),
  source: Fields.source.default(null),
  type: Fields.type,
  settings: Fields.settings,
  failure_cooldown_minutes: Fields.failure_cooldown_minutes.default(DEFAULT_COOLDOWN_MINUTES),
});

/** Partial: only the fields given change; inside `settings`, only the keys given (a new `type` needs its settings in full). */
const UpdateBody = z
  .strictObject({
    name: Fields.name.optional(),
    enabled: Fields.enabled.optional(),
    query: Fields.query.optional(),
    source: Fields.source.optional(),
    type: Fields.type.optional(),
    settings: Fields.settings.optional(),
    failure_cooldown_minutes: Fields.failure_cooldown_minutes.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

const Common = {
  id: z.uuid().describe('the exporter; its consumer group is exporter-<id>'),
  name: z.string().describe('a name for people'),
  enabled: z.boolean().describe('false: the exporter forwards nothing; enabling it again starts from that moment (active_since)'),
  query: z.string().describe('the search language (docs/query-language.md): only matching artifacts are forwarded; "" forwards every artifact'),
  source: z.string().nullable().describe('only artifacts of this source; null: every source'),
  failure_cooldown_minutes: z.number().int().describe('a failing destination raises exporter.failure at most once in this many minutes (default 15)'),
  active_since: Timestamp.describe('when it was created or last enabled: it forwards the artifacts that reach cairn from then on'),
  created_at: Timestamp.describe('when it was created'),
  updated_at: Timestamp.describe('when it last changed; a change restarts it within seconds'),
};

const ExporterSchema = z.discriminatedUnion('type', [
  z.object({ ...Common, type: z.literal('syslog').describe('RFC 5424 over TCP (or TLS), octet-counting framing, one message per artifact'), settings: SyslogSettings }),
  z.object({ ...Common, type: z.literal('http').describe('each batch POSTed as JSON lines'), settings: HttpSettings }),
  z.object({ ...Common, type: z.literal('kafka').describe('one JSON value per artifact, keyed by its id'), settings: KafkaSettings }),
]);

/** What an answer shows: the stored exporter with its secrets redacted. */
function present(exporter: StoredExporter): z.input<typeof ExporterSchema> {
  const { org_id: _org, settings, ...rest } = exporter;
  return { ...rest, settings: redactSettings(exporter.type, settings) } as z.input<typeof ExporterSchema>;
}

async function findExporter(deps: ApiDeps, orgId: string, id: string): Promise<StoredExporter> {
  const exporter = await getExporter(deps.store, orgId, id);
  if (!exporter) throw notFound('exporter');
  return exporter;
}

function invalid(path: string, message: string, extra: Record<string, unknown> = {}): HttpError {
  return new HttpError(400, 'validation_error', `invalid body: ${path}: ${message}`, [{ in: 'body', path, message, ...extra }]);
}

/** The query must parse: a 400 says what is wrong and at which character. */
function checkQuery(query: string): void {
  try {
    parseQuery(query);
  } catch (err) {
    if (err instanceof QuerySyntaxError) throw invalid('query', err.message, { position: err.position, reason: err.reason });
    throw err;
  }
}

/** Settings (secrets in plain text) checked against their type and the outbound policy; 400 naming the field. */
function checkSettings(deps: ApiDeps, type: ExporterType, settings: Record<string, unknown>): Record<string, unknown> {
  const result = SETTINGS_SCHEMAS[type].safeParse(settings);
  if (!result.success) {
    const issues = result.error.issues.map((i) => ({ in: 'body', path: ['settings', ...i.path].join('.'), message: i.message }));
    throw new HttpError(400, 'validation_error', `invalid body: ${issues[0]!.path}: ${issues[0]!.message}`, issues);
  }
  const checked = result.data as Record<string, unknown>;
  const refused = refusedAddresses(destinationOf(type, checked), deps.config.outbound);
  if (refused.length > 0) throw invalid(`settings.${refused[0]![0]}`, refused[0]![1]);
  return checked;
}

async function announce(deps: ApiDeps, ctx: Context, auth: AuthContext, exporter: StoredExporter, action: string, fields: string[]): Promise<void> {
  await raiseConfigChanged(deps, ctx, auth, {
    setting: EXPORTERS_SETTING,
    summary: `Exporter "${exporter.name}" ${action}`,
    details: { exporter_id: exporter.id, exporter_name: exporter.name, action, fields },
  });
}

/** The names of the fields a change gave (settings key by key), never their values. */
function fieldNames(body: Record<string, unknown>): string[] {
  return Object.entries(body).flatMap(([key, value]) =>
    value === undefined ? [] : key === 'settings' && value !== null && typeof value === 'object' ? Object.keys(value).map((k) => `settings.${k}`) : [key],
  );
}

export const exporterRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/exporters',
    summary: 'List the artifact exporters, newest first',
    tag: 'Exporters',
    permission: 'settings:manage',
    query: Pagination,
    response: listData('exporters', ExporterSchema),
    async handler({ query, auth, deps }) {
      const { exporters, total } = await listExporters(deps.store, auth.orgId, query);
      return { message: `${total} exporter(s)`, data: { exporters: exporters.map(present), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/exporters/:id',
    summary: 'One exporter (secrets redacted)',
    tag: 'Exporters',
    permission: 'settings:manage',
    params: IdParams,
    response: ExporterSchema,
    errors: [404],
    async handler({ params, auth, deps }) {
      const exporter = await findExporter(deps, auth.orgId, params.id);
      return { message: `exporter ${exporter.name}`, data: present(exporter) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/exporters',
    summary: 'Create an exporter: the artifacts matching `query` (and `source`) that reach cairn from now on go to a syslog receiver, an HTTP endpoint or a Kafka topic',
    description:
      'settings by type. syslog: host, port, tls (default false), ca (PEM, optional). http: url, token (bearer, optional). kafka: brokers (host:port list), topic, tls, ca, sasl_mechanism (none, plain, scram-sha-256, scram-sha-512), username, password. Addresses that are private, loopback, link-local or reserved are refused unless CAIRN_OUTBOUND_ALLOW allows them. Delivery is at least once; see docs/exporters.md.',
    tag: 'Exporters',
    permission: 'settings:manage',
    body: CreateBody,
    response: ExporterSchema,
    successStatus: 201,
    errors: [503],
    async handler({ body, auth, deps, ctx }) {
      checkQuery(body.query);
      const settings = checkSettings(deps, body.type, mergeSettings(body.type, {}, body.settings));
      const now = new Date().toISOString();
      const exporter: StoredExporter = {
        id: newId(),
        org_id: auth.orgId,
        name: body.name,
        enabled: body.enabled,
        query: body.query,
        source: body.source,
        type: body.type,
        settings: sealSettings(deps.identity.box, body.type, settings),
        failure_cooldown_minutes: body.failure_cooldown_minutes,
        active_since: now,
        created_at: now,
        updated_at: now,
      };
      await saveExporter(deps.store, exporter);
      await announce(deps, ctx, auth, exporter, 'created', fieldNames(body));
      return { message: 'Exporter created', data: present(exporter) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/exporters/:id',
    summary: 'Change an exporter; only the fields given change (inside settings, only the keys given; a secret omitted or sent as "[redacted]" is kept)',
    description: 'Changing type needs the new type\'s settings in full. Enabling a disabled exporter forwards what reaches cairn from then on (active_since).',
    tag: 'Exporters',
    permission: 'settings:manage',
    params: IdParams,
    body: UpdateBody,
    response: ExporterSchema,
    errors: [404, 503],
    async handler({ params, body, auth, deps, ctx }) {
      const before = await findExporter(deps, auth.orgId, params.id);
      const type = body.type ?? before.type;
      if (type !== before.type && body.settings === undefined) throw invalid('settings', `give the settings of a ${type} destination in full when type changes`);
      const query = body.query ?? before.query;
      checkQuery(query);
      // Secrets are opened to check the whole, then sealed again (a fresh seal each write).
      const current = type === before.type ? openSettings(deps.identity.box, before.type, before.settings) : {};
      const settings = checkSettings(deps, type, mergeSettings(type, current, body.settings ?? {}));
      const enabled = body.enabled ?? before.enabled;
      const now = new Date().toISOString();
      const after: StoredExporter = {
        ...before,
        name: body.name ?? before.name,
        enabled,
        query,
        source: body.source === undefined ? before.source : body.source,
        type,
        settings: sealSettings(deps.identity.box, type, settings),
        failure_cooldown_minutes: body.failure_cooldown_minutes ?? before.failure_cooldown_minutes,
        active_since: enabled && !before.enabled ? now : before.active_since,
        updated_at: now,
      };
      await saveExporter(deps.store, after);
      await announce(deps, ctx, auth, after, 'changed', fieldNames(body));
      return { message: 'Exporter updated', data: present(after), audit: { before: present(before) } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/exporters/:id',
    summary: 'Delete an exporter; it stops forwarding within seconds',
    tag: 'Exporters',
    permission: 'settings:manage',
    params: IdParams,
    response: z.null(),
    errors: [404, 503],
    async handler({ params, auth, deps, ctx }) {
      const exporter = await findExporter(deps, auth.orgId, params.id);
      await deleteExporter(deps.store, exporter);
      await announce(deps, ctx, auth, exporter, 'deleted', []);
      return { message: `Exporter "${exporter.name}" deleted`, data: null, audit: { before: present(exporter), after: null } };
    },
  }),
];
