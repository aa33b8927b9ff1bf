// Lead rules (SPEC 2.2, 4.2): the criteria that promote matching events into
// observations and leads.
import { z } from 'zod';
import { newId } from '../../lib/ids.js';
import type { Store } from '../../clickhouse/client.js';
import { Severity } from '../../clickhouse/severity.js';
import { deleteLeadRule, getLeadRule, getLeadRules, LeadRuleConditions, listLeadRules, RuleOrigin, saveLeadRule, saveLeadRules, type LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { leadsRaisedByDay } from '../../clickhouse/tables/leads.js';
import { tryRule, type TrialCondition } from '../../clickhouse/tables/rule-trial.js';
import { SqlParams } from '../../clickhouse/sql.js';
import { DURATION_PATTERN, parseDuration } from '../../lib/duration.js';
import { stableId } from '../../lib/ids.js';
import { parseQuery, QuerySyntaxError } from '../../query/parse.js';
import { convertSigma } from '../../query/sigma/convert.js';
import { NotExpressible, sigmaId, toSigma } from '../../query/sigma/export.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import type { ApiDeps } from '../deps.js';
import { defineRoute } from '../route.js';
import { storeCondition } from '../search-sql.js';
import { announceChange, type HotState } from '../../pipeline/state/index.js';
import { suppressedCounts } from '../../pipeline/leads/suppress.js';
import { IdParams, listData, Pagination, QueryBoolean, Timestamp } from '../schemas.js';

export const DEFAULT_SEVERITY = 'medium';
/** Longest threshold window: window state is kept in hot state for this long. */
const MAX_WINDOW_MS = 30 * 86_400_000;

const Window = z
  .string()
  .regex(DURATION_PATTERN, 'window must be a duration such as 30s, 5m, 1h or 7d')
  .refine((w) => !DURATION_PATTERN.test(w) || parseDuration(w) <= MAX_WINDOW_MS, 'window must be at most 30d');

const GroupBy = z.string().regex(/^[A-Za-z_@][A-Za-z0-9_.@-]*$/, 'group_by must be a field name such as source.ip');

/** Longest first-seen memory: values are kept in hot state for this long after they were last seen. */
export const MAX_FIRST_SEEN_DAYS = 90;

const FirstSeen = z
  .strictObject({
    field: z.string().regex(/^[A-Za-z_@][A-Za-z0-9_.@-]*$/, 'first_seen.field must be a field name such as source.geo.country_iso_code'),
    days: z.int('first_seen.days must be an integer').min(1, 'first_seen.days must be at least 1').max(MAX_FIRST_SEEN_DAYS, `first_seen.days must be at most ${MAX_FIRST_SEEN_DAYS}`),
    baseline: z
      .boolean({ message: 'first_seen.baseline must be true or false' })
      .optional()
      .describe('a group the rule remembers nothing of (a new account, a new host) learns its first value without firing; the rule then fires only on values new to groups it knows (default false: every first value fires)'),
  })
  .describe('fire on an event whose value of field was not seen for its group (group_by, or the whole organization) in the last days days of event time');

const Suppress = z
  .string()
  .regex(DURATION_PATTERN, 'suppress must be a duration such as 30m, 1h or 1d')
  .refine((w) => !DURATION_PATTERN.test(w) || parseDuration(w) <= MAX_WINDOW_MS, 'suppress must be at most 30d')
  .describe('after the rule fired for a group, raise no new observation or lead for that group for this long (event time); suppressed firings are counted');

/** A query-language pattern, checked when the rule is written (a 400 says what and where). */
const Pattern = z
  .string()
  .trim()
  .min(1, 'pattern is required')
  .max(16_000, 'pattern must be at most 16000 characters')
  .superRefine((pattern, ctx) => {
    try {
      parseQuery(pattern);
    } catch (err) {
      if (err instanceof QuerySyntaxError) ctx.addIssue({ code: 'custom', message: `pattern: ${err.message}` });
      else throw err;
    }
  });

/** Conditions as a client sends them: unknown keys are refused so typos cannot silently change detection. */
export const Conditions = z
  .strictObject({
    source: z.string().min(1, 'source must not be empty').optional(),
    pattern: Pattern,
    threshold: z.int('threshold must be an integer').min(1, 'threshold must be at least 1').optional(),
    window: Window.optional(),
    group_by: GroupBy.optional(),
    count_distinct: GroupBy.optional(),
    sequence: z.array(Pattern).min(2, 'a sequence needs at least 2 patterns').max(10, 'a sequence has at most 10 patterns').optional(),
    ordered: z.boolean({ message: 'ordered must be true or false' }).optional().describe('with sequence: the patterns must match in their order of event time, the last within window of the first'),
    first_seen: FirstSeen.optional(),
    suppress: Suppress.optional(),
  })
  .refine((c) => c.sequence !== undefined || (c.threshold === undefined) === (c.window === undefined), {
    message: 'threshold and window go together: give both or neither',
    path: ['window'],
  })
  .refine((c) => c.count_distinct === undefined || c.threshold !== undefined, {
    message: 'count_distinct counts distinct values against a threshold: give threshold and window',
    path: ['count_distinct'],
  })
  .refine((c) => c.sequence === undefined || (c.window !== undefined && c.threshold === undefined && c.count_distinct === undefined), {
    message: 'a sequence fires when every pattern matched in one window: give window, without threshold or count_distinct',
    path: ['sequence'],
  })
  .refine((c) => c.ordered === undefined || c.sequence !== undefined, {
    message: 'ordered applies to a sequence: give sequence and window',
    path: ['ordered'],
  })
  .refine((c) => c.first_seen === undefined || (c.threshold === undefined && c.window === undefined && c.sequence === undefined && c.count_distinct === undefined), {
    message: 'first_seen fires on single events: give it without threshold, window, count_distinct or sequence',
    path: ['first_seen'],
  });

const Tags = z.array(z.string().trim().min(1).max(100, 'a tag has at most 100 characters')).max(50, 'at most 50 tags');

const RuleFields = {
  name: z.string().trim().min(1, 'name is required').max(200),
  description: z.string().max(2000),
  enabled: z.boolean({ message: 'enabled must be true or false' }),
  severity: Severity,
  tags: Tags,
};

const CreateBody = z.object({
  name: RuleFields.name,
  description: RuleFields.description.default(''),
  enabled: RuleFields.enabled.default(true),
  conditions: Conditions,
  severity: RuleFields.severity.default(DEFAULT_SEVERITY),
  tags: RuleFields.tags.default([]),
});

/** Partial update: top-level fields replace; `conditions` merges key by key, null removes a key. */
const UpdateBody = z
  .object({
    name: RuleFields.name.optional(),
    description: RuleFields.description.optional(),
    enabled: RuleFields.enabled.optional(),
    severity: RuleFields.severity.optional(),
    tags: RuleFields.tags.optional(),
    conditions: z.record(z.string(), z.unknown().nullable()).optional(),
  })
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

const LeadRuleSchema = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  conditions: LeadRuleConditions,
  severity: Severity,
  tags: z.array(z.string()).describe('ATT&CK techniques and other labels; carried onto the observations the rule writes'),
  origin: RuleOrigin.nullable().describe('for an imported rule, where it came from: a Sigma rule id, author, references, log source (attribution under DRL 1.1)'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** Days of firing counts GET /v1/lead-rules/:id answers. */
const FIRING_DAYS = 30;

const FiringDay = z.object({
  day: z.string().describe('YYYY-MM-DD (UTC)'),
  count: z.number().int().describe('leads the rule raised that day (each on the day it was first written: a window that grew counts once)'),
  suppressed: z.number().int().describe('firings suppress held back that day'),
});

/** The rule's firings per day over the last FIRING_DAYS days (UTC), oldest first, today last. */
async function firingsByDay(store: Store, state: HotState, rule: LeadRule): Promise<z.infer<typeof FiringDay>[]> {
  const today = Date.parse(new Date().toISOString().slice(0, 10));
  const days = Array.from({ length: FIRING_DAYS }, (_, i) => new Date(today - (FIRING_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
  const [raised, suppressed] = await Promise.all([leadsRaisedByDay(store, rule.org_id, rule.id, Date.parse(days[0]!)), suppressedCounts(state, rule.id, days)]);
  return days.map((day, i) => ({ day, count: raised.get(day) ?? 0, suppressed: suppressed[i]! }));
}

/** Largest Sigma text one import takes (a few thousand rules); the CLI sends a folder in pieces below it. */
export const MAX_IMPORT_CHARS = 4_000_000;

const ImportBody = z.object({
  rules: z.string().min(1, 'rules is required: Sigma YAML, one rule or many separated by ---').max(MAX_IMPORT_CHARS, `rules must be at most ${MAX_IMPORT_CHARS} characters; import in pieces`),
  enabled: z.boolean({ message: 'enabled must be true or false' }).optional().describe('for new rules; default true. A rule imported again keeps its enabled state unless this is given.'),
  backfill_days: z
    .int('backfill_days must be an integer')
    .min(0)
    .max(3650, 'backfill_days must be at most 3650')
    .optional()
    .describe('run each rule this import enables (new, or disabled before) over the stored events of the last N days, as a backfill job (docs/backfill.md); default CAIRN_RULES_BACKFILL_DAYS (0: none)'),
});

const ImportOutcome = z.object({
  title: z.string(),
  sigma_id: z.string().nullable(),
  status: z.enum(['imported', 'skipped']),
  /** created, or updated when the same Sigma rule (by id) was imported before. */
  action: z.enum(['created', 'updated']).nullable(),
  rule_id: z.uuid().nullable(),
  reason: z.string().nullable().describe('why a rule was skipped: the construct, modifier, field or log source cairn cannot express'),
  backfill_job_id: z.uuid().nullable().describe('the backfill job queued for the rule (backfill_days), if any'),
});

const ExportQuery = z.object({
  format: z.enum(['json', 'sigma'], { message: 'format must be json or sigma' }).default('json'),
});

/** The default range a rule is tried over. */
const TRIAL_DAYS = 7;
const MAX_TRIAL_SAMPLES = 20;

const TrialBody = z
  .object({
    id: z.uuid({ message: 'id must be a UUID' }).optional().describe('a stored rule to try; `conditions` then changes it (null removes a key)'),
    conditions: z.record(z.string(), z.unknown().nullable()).optional().describe('the conditions to try: a whole new rule, or changes to the stored one'),
    start: Timestamp.optional().describe(`default: ${TRIAL_DAYS} days before end`),
    end: Timestamp.optional().describe('default: now'),
    samples: z.int('samples must be an integer').min(0).max(MAX_TRIAL_SAMPLES, `samples must be at most ${MAX_TRIAL_SAMPLES}`).default(MAX_TRIAL_SAMPLES),
  })
  .refine((b) => b.id !== undefined || b.conditions !== undefined, { message: 'give the rule to try: conditions, or the id of a stored rule', path: ['conditions'] })
  .refine((b) => !b.start || !b.end || Date.parse(b.start) < Date.parse(b.end), { message: 'start must be before end', path: ['start'] });

const TrialResult = z.object({
  start: Timestamp,
  end: Timestamp,
  conditions: LeadRuleConditions,
  events: z.number().int().describe('stored events the rule matches in the range'),
  leads: z.number().int().describe('leads it would have raised: one per matching event, or with a threshold one per window (and group) that reached it'),
  windows: z.number().int().describe('windows (per group) holding matching events, whether or not they reached the threshold'),
  samples: z.array(z.object({ artifact_id: z.string(), timestamp: Timestamp, source: z.string(), raw: z.string() })).describe('newest matching artifacts'),
  took_ms: z.number().int(),
  approximation: z
    .string()
    .nullable()
    .describe('what the counts leave out, for conditions the trial does not evaluate the way the rule stage does (ordered, first_seen, suppress); null when they are exact'),
});

/** What a trial's counts leave out for these conditions, or null: they count like the rule stage. */
function trialApproximation(conditions: LeadRuleConditions): string | null {
  const gaps = [
    conditions.ordered ? 'the sequence is counted in tumbling windows without checking its order: leads may differ from what the rule raises' : null,
    conditions.first_seen ? 'first_seen is not applied: every matching event counts as a lead, an upper bound' : null,
    conditions.suppress ? 'suppress is not applied: leads is before suppression' : null,
  ].filter((g): g is string => g !== null);
  return gaps.length > 0 ? gaps.join('; ') : null;
}

/** A rule's pattern as SQL sharing `params`, as search would run it. */
function conditionSql(pattern: string, scope: { orgId: string; start: string; end: string }, params: SqlParams): TrialCondition {
  const { on, sql } = storeCondition(parseQuery(pattern), scope, params);
  return { on, sql: sql ?? '1' };
}

async function findRule(store: Store, orgId: string, id: string): Promise<LeadRule> {
  const rule = await getLeadRule(store, orgId, id);
  if (!rule) throw notFound('lead rule');
  return rule;
}

function mergeConditions(current: Partial<LeadRule['conditions']>, patch: Record<string, unknown>): z.infer<typeof Conditions> {
  const merged: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  const result = Conditions.safeParse(merged);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw badRequest(`invalid body: conditions.${issue.path.join('.')}: ${issue.message}`.replace('conditions.: ', 'conditions: '), result.error.issues);
  }
  return result.data;
}

/** Saves (or deletes) a rule and announces the change, so the rule stage applies it to every artifact ingested from now on. */
async function storeRule(deps: ApiDeps, rule: LeadRule, { deleted = false } = {}): Promise<void> {
  await (deleted ? deleteLeadRule(deps.store, rule) : saveLeadRule(deps.store, rule));
  await announceChange(deps.state, 'lead-rules');
}

export const leadRuleRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/lead-rules',
    summary: 'List lead rules, newest first',
    tag: 'Lead rules',
    permission: 'signals:read',
    query: Pagination.extend({ enabled: QueryBoolean.optional() }),
    response: listData('rules', LeadRuleSchema),
    async handler({ query, auth, deps }) {
      const { rules, total } = await listLeadRules(deps.store, auth.orgId, query);
      return { message: `${total} lead rule(s)`, data: { rules, total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/lead-rules/:id',
    summary: 'Get one lead rule',
    tag: 'Lead rules',
    permission: 'signals:read',
    description: 'With ?format=sigma the rule is answered as Sigma YAML (application/yaml): a detection rule, or a base rule and a correlation for threshold, count_distinct and sequence rules. An imported rule keeps its Sigma id, author, references and log source. A rule Sigma cannot say (a time range) answers 422.',
    params: IdParams,
    query: ExportQuery,
    response: LeadRuleSchema.extend({
      firings_by_day: z.array(FiringDay).describe(`the rule's firings on each of the last ${FIRING_DAYS} days (UTC), oldest first: noisy rules show here`),
    }),
    fileTypes: ['application/yaml'],
    errors: [404, 422],
    async handler({ params, query, auth, deps }) {
      const rule = await findRule(deps.store, auth.orgId, params.id);
      if (query.format === 'json') return { message: 'Lead rule found', data: { ...rule, firings_by_day: await firingsByDay(deps.store, deps.state, rule) } };
      try {
        const body = toSigma(rule);
        // data is not sent with a file.
        return { message: 'Lead rule as Sigma', data: { ...rule, firings_by_day: [] }, file: { contentType: 'application/yaml; charset=utf-8', body, filename: `${sigmaId(rule)}.yml` } };
      } catch (err) {
        if (err instanceof NotExpressible) throw new HttpError(422, 'not_expressible', `this rule cannot be written as Sigma: ${err.message}`);
        throw err;
      }
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/lead-rules',
    summary: 'Create a lead rule (enabled by default, severity medium by default)',
    tag: 'Lead rules',
    permission: 'signals:manage',
    body: CreateBody,
    response: LeadRuleSchema.pick({ id: true, name: true, enabled: true, created_at: true }),
    successStatus: 201,
    async handler({ body, auth, deps }) {
      const now = new Date().toISOString();
      const rule: LeadRule = { id: newId(), org_id: auth.orgId, ...body, origin: null, created_at: now, updated_at: now };
      await storeRule(deps, rule);
      return { message: 'Lead rule created', data: { id: rule.id, name: rule.name, enabled: rule.enabled, created_at: rule.created_at } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/lead-rules/import',
    summary: 'Import Sigma rules (cairn extension): each becomes a lead rule, or is skipped whole with the reason',
    description:
      'Body: {"rules": "<Sigma YAML, one or many documents>", "enabled"?: bool}. Detection maps and lists, value modifiers, conditions, log sources and field names convert through the tables in docs/sigma.md; correlation rules (event_count, value_count, temporal) become threshold, count_distinct and sequence rules. Importing the same Sigma rule (by its id) again updates the lead rule it made. Level becomes severity; tags, id, author and references are kept.',
    tag: 'Lead rules',
    permission: 'signals:manage',
    body: ImportBody,
    response: z.object({ imported: z.number().int(), skipped: z.number().int(), results: z.array(ImportOutcome) }),
    async handler({ body, auth, deps }) {
      const converted = convertSigma(body.rules);
      const idOf = (sigmaId: string | null, title: string) => stableId('sigma-rule', auth.orgId, sigmaId ?? `title:${title}`);
      const existing = await getLeadRules(deps.store, auth.orgId, converted.flatMap((r) => (r.status === 'imported' ? [idOf(r.sigma_id, r.title)] : [])));
      const now = new Date().toISOString();
      const rules: LeadRule[] = [];
      const results = converted.map((result): z.infer<typeof ImportOutcome> => {
        if (result.status === 'skipped') return { title: result.title, sigma_id: result.sigma_id, status: 'skipped', action: null, rule_id: null, reason: result.reason, backfill_job_id: null };
        const id = idOf(result.sigma_id, result.title);
        const before = existing.get(id);
        rules.push({ id, org_id: auth.orgId, enabled: body.enabled ?? before?.enabled ?? true, ...result.draft, created_at: before?.created_at ?? now, updated_at: now });
        return { title: result.title, sigma_id: result.sigma_id, status: 'imported', action: before ? 'updated' : 'created', rule_id: id, reason: null, backfill_job_id: null };
      });
      await saveLeadRules(deps.store, rules);
      if (rules.length > 0) await announceChange(deps.state, 'lead-rules');
      const enabledNow = rules.filter((r) => r.enabled && !existing.get(r.id)?.enabled);
      const jobs = await deps.backfills.queueOnEnable(enabledNow, body.backfill_days ?? deps.config.backfill.onEnableDays, auth.email ?? auth.subject);
      const skipped = results.length - rules.length;
      const queued = jobs.size > 0 ? `, ${jobs.size} backfill(s) queued` : '';
      return {
        message: `${rules.length} rule(s) imported, ${skipped} skipped${queued}`,
        data: { imported: rules.length, skipped, results: results.map((r) => ({ ...r, backfill_job_id: (r.rule_id && jobs.get(r.rule_id)?.id) || null })) },
      };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/lead-rules/test',
    summary: 'Try a rule on stored events before enabling it (cairn extension): matching events, the leads it would raise, samples',
    description: `Tries a new rule (conditions) or a stored one (id), changed by conditions if given, over [start, end) (default the last ${TRIAL_DAYS} days), in the store: the same query tree the rule stage runs, windows counted as it counts them (tumbling, in event time, per group).`,
    tag: 'Lead rules',
    permission: 'signals:read',
    audit: false,
    body: TrialBody,
    response: TrialResult,
    errors: [404],
    async handler({ body, auth, deps }) {
      const started = performance.now();
      const base = body.id ? (await findRule(deps.store, auth.orgId, body.id)).conditions : {};
      const conditions = mergeConditions(base, body.conditions ?? {});
      const end = body.end ?? new Date().toISOString();
      const start = body.start ?? new Date(Date.parse(end) - TRIAL_DAYS * 86_400_000).toISOString();
      if (Date.parse(start) >= Date.parse(end)) throw badRequest('invalid body: start must be before end');
      const scope = { orgId: auth.orgId, start, end };
      const params = new SqlParams();
      const windowed = conditions.window !== undefined && (conditions.threshold !== undefined || conditions.sequence !== undefined);
      const result = await tryRule(deps.store, {
        ...scope,
        source: conditions.source,
        match: conditionSql(conditions.pattern, scope, params),
        parts: conditions.sequence?.map((part) => conditionSql(part, scope, params)),
        params,
        threshold: conditions.sequence ? conditions.sequence.length : conditions.threshold,
        windowMs: windowed ? parseDuration(conditions.window!) : undefined,
        groupBy: conditions.group_by,
        countDistinct: conditions.count_distinct,
        samples: body.samples,
      });
      const took = Math.round(performance.now() - started);
      return {
        message: `${result.events} matching event(s), ${result.leads} lead(s) in ${took} ms`,
        data: { start, end, conditions, ...result, took_ms: took, approximation: trialApproximation(conditions) },
      };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/lead-rules/:id',
    summary: 'Update a lead rule; only the fields given change',
    tag: 'Lead rules',
    permission: 'signals:manage',
    params: IdParams,
    body: UpdateBody,
    response: LeadRuleSchema,
    errors: [404],
    async handler({ params, body, auth, deps }) {
      const current = await findRule(deps.store, auth.orgId, params.id);
      const { conditions, ...fields } = body;
      const updated: LeadRule = {
        ...current,
        ...Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)),
        conditions: conditions ? mergeConditions(current.conditions, conditions) : current.conditions,
        updated_at: new Date().toISOString(),
      };
      await storeRule(deps, updated);
      // A pack or imported rule switched on may look back over history (CAIRN_RULES_BACKFILL_DAYS, docs/backfill.md).
      const enabledNow = !current.enabled && updated.enabled && updated.origin !== null ? [updated] : [];
      const [job] = (await deps.backfills.queueOnEnable(enabledNow, deps.config.backfill.onEnableDays, auth.email ?? auth.subject)).values();
      return { message: job ? `Lead rule updated; backfill job ${job.id} queued` : 'Lead rule updated', data: updated, audit: { before: current } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/lead-rules/:id',
    summary: 'Delete a lead rule',
    tag: 'Lead rules',
    permission: 'signals:manage',
    params: IdParams,
    response: z.null(),
    errors: [404],
    async handler({ params, auth, deps }) {
      const rule = await findRule(deps.store, auth.orgId, params.id);
      await storeRule(deps, rule, { deleted: true });
      return { message: `Lead rule "${rule.name}" deleted`, data: null, audit: { before: rule, after: null } };
    },
  }),
];
