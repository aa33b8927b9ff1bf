// Lead rules (SPEC 2.2, 4.2): the criteria that promote matching events into
// observations and leads.
import { z } from 'zod';
import { newId } from '../../lib/ids.js';
import type { Store } from '../../clickhouse/client.js';
import { Severity } from '../../clickhouse/severity.js';
import { deleteLeadRule, getLeadRule, LeadRuleConditions, listLeadRules, RuleOrigin, saveLeadRule, type LeadRule } from '../../clickhouse/tables/lead-rules.js';
import { DURATION_PATTERN, parseDuration } from '../../lib/duration.js';
import { parseQuery, QuerySyntaxError } from '../../query/parse.js';
import { badRequest, notFound } from '../http-error.js';
import type { ApiDeps } from '../deps.js';
import { defineRoute } from '../route.js';
import { announceChange } from '../../pipeline/state/index.js';
import { IdParams, listData, Pagination, QueryBoolean, Timestamp } from '../schemas.js';

export const DEFAULT_SEVERITY = 'medium';
/** Longest threshold window: window state is kept in hot state for this long. */
const MAX_WINDOW_MS = 30 * 86_400_000;

const Window = z
  .string()
  .regex(DURATION_PATTERN, 'window must be a duration such as 30s, 5m, 1h or 7d')
  .refine((w) => !DURATION_PATTERN.test(w) || parseDuration(w) <= MAX_WINDOW_MS, 'window must be at most 30d');

const GroupBy = z.string().regex(/^[A-Za-z_@][A-Za-z0-9_.@-]*$/, 'group_by must be a field name such as source.ip');

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

async function findRule(store: Store, orgId: string, id: string): Promise<LeadRule> {
  const rule = await getLeadRule(store, orgId, id);
  if (!rule) throw notFound('lead rule');
  return rule;
}

function mergeConditions(current: LeadRule['conditions'], patch: Record<string, unknown>): z.infer<typeof Conditions> {
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
    params: IdParams,
    response: LeadRuleSchema,
    errors: [404],
    async handler({ params, auth, deps }) {
      return { message: 'Lead rule found', data: await findRule(deps.store, auth.orgId, params.id) };
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
      return { message: 'Lead rule updated', data: updated };
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
      return { message: `Lead rule "${rule.name}" deleted`, data: null };
    },
  }),
];
