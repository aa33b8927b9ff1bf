// Health and metrics (SPEC 4.11; docs/operations.md): the Prometheus
// exposition of every cairn process, the services ("containers") with their
// heartbeats and history, and the health alert rules with the alerts active now.
import { z } from 'zod';
import { ALERT_SEVERITIES, COMPARISONS, deleteAlertRule, saveAlertRule, serviceHistory, type AlertRule } from '../../clickhouse/tables/health.js';
import { DURATION_PATTERN, parseDuration } from '../../lib/duration.js';
import { newId } from '../../lib/ids.js';
import { ALERT_METRIC_NAMES, ALERT_METRICS, isBuiltin, loadRules } from '../../ops/health/alerts.js';
import { activeAlerts } from '../../ops/health/monitor.js';
import { readContainers, summary, type ContainerDetail } from '../../ops/health/services.js';
import { CONTENT_TYPE, exposition } from '../../ops/metrics/exposition.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Timestamp } from '../schemas.js';

const Status = z.enum(['up', 'degraded', 'down']).describe('up: heartbeats arrive and its dependencies answer; degraded: heartbeats arrive but a dependency fails; down: no heartbeat for 3 intervals (or, for a dependency, every probe fails)');

const ContainerSchema = z.object({
  name: z.string().describe('api, a pipeline stage (store, analysis, parser, ...), or a dependency (clickhouse[-embedded], kafka/bus-embedded, redis/state-embedded)'),
  kind: z.enum(['api', 'stage', 'dependency']),
  status: Status,
  reason: z.string().nullable().describe('why it is degraded or down'),
  instances_up: z.number().int().describe('live processes running it (for a dependency: processes that reach it)'),
  instances_total: z.number().int().describe('processes seen in the last 24 h'),
  last_heartbeat: Timestamp.nullable(),
  cpu_ratio: z.number().describe('CPU cores in use, summed over live instances (the whole process: in the embedded default every service of the process shows the same)'),
  memory_bytes: z.number().describe('resident memory, summed over live instances (cgroup memory when the process runs in its own cgroup v2)'),
  event_loop_lag_seconds: z.number().describe('worst event loop delay (p99 over the last interval)'),
  lag: z.number().nullable().describe('for a stage: messages waiting on its input topic'),
  throughput: z.number().describe('messages finished (a stage) or requests answered (the API) per second'),
});

const InstanceSchema = z.object({
  instance: z.string().describe('host:pid'),
  host: z.string(),
  pid: z.number().int(),
  status: z.enum(['up', 'down']),
  version: z.string(),
  started_at: Timestamp,
  last_heartbeat: Timestamp,
  cpu_ratio: z.number(),
  memory_bytes: z.number(),
  resource_source: z.enum(['cgroup', 'process']),
  event_loop_lag_seconds: z.number(),
  lag: z.number().nullable(),
  throughput: z.number(),
});

const DetailSchema = ContainerSchema.extend({
  instances: z.array(InstanceSchema),
  errors: z.array(z.object({ at: Timestamp, message: z.string(), instance: z.string() })).describe('the latest errors (batch retries, 5xx answers, failed probes), newest first'),
  reports: z.array(z.object({ instance: z.string(), up: z.boolean(), latency_ms: z.number(), error: z.string().nullable(), at: Timestamp })).describe('for a dependency: what each live process reports'),
});

const RuleSchema = z.object({
  id: z.string(),
  name: z.string(),
  metric: z.enum(ALERT_METRIC_NAMES as [string, ...string[]]).describe(ALERT_METRIC_NAMES.map((m) => `${m}: ${ALERT_METRICS[m].help}`).join('; ')),
  comparison: z.enum(COMPARISONS),
  threshold: z.number(),
  for_seconds: z.number().int().describe('how long the condition must hold before the rule fires'),
  severity: z.enum(ALERT_SEVERITIES),
  service: z.string().nullable().describe('the one service (or dependency) watched; null: every service the metric applies to'),
  enabled: z.boolean(),
  builtin: z.boolean().describe('built-in rules can be tuned (PUT) and disabled, not deleted'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const AlertSchema = z.object({
  rule_id: z.string(),
  rule_name: z.string(),
  metric: z.string(),
  comparison: z.string(),
  threshold: z.number(),
  severity: z.string(),
  subject: z.string().describe('the service, dependency or "appliance" the value is of'),
  value: z.number(),
  state: z.enum(['pending', 'firing']).describe('pending: the condition holds, not yet for the rule\'s for_seconds; firing: it has, and the system event was raised'),
  since: Timestamp,
  firing_since: Timestamp.nullable(),
  event_type: z.enum(['system.service_down', 'system.capacity_warning']),
});

const ServiceName = z.object({ name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'name must be a service name such as api, store or clickhouse') });

const ForSeconds = z.union([
  z.int().min(0).max(86_400),
  z
    .string()
    .regex(DURATION_PATTERN, 'for must be seconds or a duration such as 30s or 5m')
    .transform((d) => Math.round(parseDuration(d) / 1000))
    .pipe(z.int().max(86_400, 'for must be at most 1d')),
]);

const RuleFields = {
  name: z.string().trim().min(1).max(200),
  metric: z.enum(ALERT_METRIC_NAMES as [string, ...string[]], { message: `metric must be one of: ${ALERT_METRIC_NAMES.join(', ')}` }),
  comparison: z.enum(COMPARISONS, { message: `comparison must be one of: ${COMPARISONS.join(' ')}` }),
  threshold: z.number().finite(),
  for_seconds: ForSeconds,
  severity: z.enum(ALERT_SEVERITIES),
  service: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'service must be a service name such as store').nullable(),
  enabled: z.boolean(),
};

const CreateRule = z.strictObject({
  name: RuleFields.name,
  metric: RuleFields.metric,
  comparison: RuleFields.comparison,
  threshold: RuleFields.threshold,
  for_seconds: RuleFields.for_seconds.default(0),
  severity: RuleFields.severity.default('warning'),
  service: RuleFields.service.default(null),
  enabled: RuleFields.enabled.default(true),
});

const UpdateRule = z
  .strictObject({
    name: RuleFields.name.optional(),
    metric: RuleFields.metric.optional(),
    comparison: RuleFields.comparison.optional(),
    threshold: RuleFields.threshold.optional(),
    for_seconds: RuleFields.for_seconds.optional(),
    severity: RuleFields.severity.optional(),
    service: RuleFields.service.optional(),
    enabled: RuleFields.enabled.optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

function present(rule: AlertRule & { builtin: boolean }): z.input<typeof RuleSchema> {
  return { ...rule, service: rule.service || null };
}

async function findRule(deps: ApiDeps, id: string) {
  const rule = (await loadRules(deps.store, deps.config)).find((r) => r.id === id);
  if (!rule) throw notFound('health alert rule');
  return rule;
}

async function findContainer(deps: ApiDeps, name: string): Promise<ContainerDetail> {
  const container = (await readContainers(deps.state, deps.config)).find((c) => c.name === name);
  if (!container) throw notFound(`service "${name}"`);
  return container;
}

const MAX_POINTS = 10_000;

const HistoryQuery = z
  .object({
    start: Timestamp.optional().describe('default: an hour before end'),
    end: Timestamp.optional().describe('default: now'),
    step: z.string().regex(DURATION_PATTERN, 'step must be a duration such as 10s, 1m or 1h').optional().describe('default 1m'),
  })
  .transform((q) => {
    const end = q.end ? Date.parse(q.end) : Date.now();
    const start = q.start ? Date.parse(q.start) : end - 3_600_000;
    return { start, end, stepSeconds: Math.max(1, Math.round(parseDuration(q.step ?? '1m') / 1000)) };
  })
  .refine((q) => q.start < q.end, { message: 'start must be before end', path: ['start'] })
  .refine((q) => (q.end - q.start) / 1000 / q.stepSeconds <= MAX_POINTS, { message: `at most ${MAX_POINTS} points: widen step or narrow the range`, path: ['step'] });

export const healthRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/metrics',
    summary: 'Prometheus metrics (text exposition 0.0.4) of every cairn process, each sample labelled with its instance',
    description:
      'Families: svc_pipeline_* (per stage: messages, batches, retries, dead letters, consumer lag), svc_http_* (requests and latency by route and status), svc_ingest_* (accepted, rejected, throttled), svc_store_insert_* (rows and time per table), svc_dependency_* (store, bus and hot state probes), svc_container_* (per service: CPU seconds, memory, event loop lag, restarts, up) and svc_appliance_* (uptime, version info, data dir bytes, disk). In distributed mode the answer includes what the other processes published with their heartbeats.',
    tag: 'Health',
    permission: 'metrics:read',
    response: z.string(),
    fileTypes: [CONTENT_TYPE],
    async handler({ deps }) {
      const body = await exposition(deps.state, deps.health.instance, deps.config.operations.heartbeatMs * 4);
      return { message: 'metrics', data: body, file: { contentType: CONTENT_TYPE, body, filename: 'metrics.txt' } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/health/containers',
    summary: 'Every cairn service (API, pipeline stages) and dependency (store, bus, hot state) with its status and latest numbers',
    tag: 'Health',
    permission: 'health:read',
    response: listData('containers', ContainerSchema),
    async handler({ deps }) {
      const containers = (await readContainers(deps.state, deps.config)).map(summary);
      const down = containers.filter((c) => c.status !== 'up').map((c) => `${c.name} ${c.status}`);
      return { message: down.length ? down.join(', ') : 'all services up', data: { containers, total: containers.length, limit: containers.length, offset: 0 } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/health/containers/:name',
    summary: 'One service with its instances, dependency reports and latest errors',
    tag: 'Health',
    permission: 'health:read',
    params: ServiceName,
    response: DetailSchema,
    errors: [404],
    async handler({ params, deps }) {
      const container = await findContainer(deps, params.name);
      return { message: `${container.name} is ${container.status}`, data: container };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/health/containers/:name/history',
    summary: `A service's numbers over time, one point per step (at most ${MAX_POINTS}); kept CAIRN_HEALTH_HISTORY_DAYS`,
    tag: 'Health',
    permission: 'health:read',
    params: ServiceName,
    query: HistoryQuery,
    response: z.object({
      name: z.string(),
      start: Timestamp,
      end: Timestamp,
      step_seconds: z.number().int(),
      points: z.array(
        z.object({
          at: Timestamp.describe('start of the step'),
          up_ratio: z.number().describe('share of samples in the step that were up (0 to 1)'),
          instances: z.number().int(),
          cpu_ratio: z.number(),
          memory_bytes: z.number(),
          event_loop_lag_seconds: z.number(),
          lag: z.number().nullable(),
          throughput: z.number(),
        }),
      ),
    }),
    errors: [404],
    async handler({ params, query, deps }) {
      await findContainer(deps, params.name);
      const [start, end] = [new Date(query.start).toISOString(), new Date(query.end).toISOString()];
      const points = await serviceHistory(deps.store, params.name, start, end, query.stepSeconds);
      return { message: `${points.length} point(s)`, data: { name: params.name, start, end, step_seconds: query.stepSeconds, points } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/health/alerts',
    summary: 'Health alerts active now (pending or firing), and every alert rule',
    tag: 'Health',
    permission: 'health:read',
    response: listData('alerts', AlertSchema).extend({ rules: z.array(RuleSchema) }),
    async handler({ deps }) {
      const alerts = await activeAlerts(deps.state);
      const rules = (await loadRules(deps.store, deps.config)).map(present);
      const firing = alerts.filter((a) => a.state === 'firing').length;
      return { message: `${firing} alert(s) firing, ${alerts.length - firing} pending`, data: { alerts, total: alerts.length, limit: alerts.length, offset: 0, rules } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/health/alerts',
    summary: 'Create a health alert rule: metric, comparison, threshold, how long it must hold (for_seconds, or a duration such as "5m"), severity, optional service',
    tag: 'Health',
    permission: 'health:manage',
    body: CreateRule,
    response: RuleSchema,
    successStatus: 201,
    async handler({ body, deps }) {
      const now = new Date().toISOString();
      const rule: AlertRule = { id: newId(), ...body, service: body.service ?? '', comparison: body.comparison, created_at: now, updated_at: now };
      await saveAlertRule(deps.store, rule);
      deps.health.rulesChanged();
      return { message: 'Alert rule created', data: present({ ...rule, builtin: false }) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/health/alerts/:id',
    summary: 'Change an alert rule (built-in rules too: their threshold, for_seconds, severity, service and enabled); only the fields given change',
    tag: 'Health',
    permission: 'health:manage',
    params: IdParams,
    body: UpdateRule,
    response: RuleSchema,
    errors: [404],
    async handler({ params, body, deps }) {
      const before = await findRule(deps, params.id);
      if (before.builtin && (body.metric !== undefined || body.name !== undefined)) throw badRequest('the name and metric of a built-in rule cannot change; make a new rule instead');
      const { builtin, ...current } = before;
      const after: AlertRule = {
        ...current,
        ...Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)),
        service: body.service === undefined ? current.service : (body.service ?? ''),
        updated_at: new Date().toISOString(),
      };
      await saveAlertRule(deps.store, after);
      deps.health.rulesChanged();
      return { message: 'Alert rule updated', data: present({ ...after, builtin }), audit: { before: present(before) } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/health/alerts/:id',
    summary: 'Delete an alert rule (built-in rules can be disabled with PUT, not deleted)',
    tag: 'Health',
    permission: 'health:manage',
    params: IdParams,
    response: z.null(),
    errors: [404, 409],
    async handler({ params, deps }) {
      const rule = await findRule(deps, params.id);
      if (isBuiltin(deps.config, rule.id)) throw new HttpError(409, 'conflict', `"${rule.name}" is built in: disable it with PUT {"enabled": false} instead`);
      await deleteAlertRule(deps.store, rule);
      deps.health.rulesChanged();
      return { message: 'Alert rule deleted', data: null, audit: { before: present(rule), after: null } };
    },
  }),
];
