// The lead_rules table: rows, writes and named queries.
import { z } from 'zod';
import { toIsoTimestamp, type Store } from '../client.js';
import { Severity } from '../severity.js';
import { queryPage, SqlParams, whereClause } from '../sql.js';
import { nextVersion } from '../version.js';

export const LeadRuleConditions = z.object({
  source: z.string().optional(),
  pattern: z.string(),
  threshold: z.number().int().optional(),
  window: z.string().optional(),
  group_by: z.string().optional(),
  /** Count distinct values of this field per group instead of events (Sigma value_count). */
  count_distinct: z.string().optional(),
  /** Fire when each of these patterns matched in one window per group (Sigma temporal). */
  sequence: z.array(z.string()).optional(),
  /** With sequence: the patterns must match in this order of event time, the last within `window` of the first (Sigma temporal_ordered). */
  ordered: z.boolean().optional(),
  /**
   * Fire on an event whose value of `field` was not seen for its group in the last `days` days of event time. With
   * `baseline`, a group the rule remembers nothing of learns its first value without firing.
   */
  first_seen: z.object({ field: z.string(), days: z.number().int(), baseline: z.boolean().optional() }).optional(),
  /** After the rule fired for a group, raise nothing more for that group for this long (a duration, event time). */
  suppress: z.string().optional(),
});
export type LeadRuleConditions = z.infer<typeof LeadRuleConditions>;

/** Where an imported rule came from, kept for attribution and export (Sigma rules are DRL 1.1: id and author are the attribution). */
export const SigmaOrigin = z.object({
  format: z.literal('sigma'),
  id: z.string().nullable(),
  title: z.string(),
  author: z.string().nullable(),
  references: z.array(z.string()),
  license: z.string(),
  logsource: z.record(z.string(), z.string()),
  level: z.string().nullable(),
  status: z.string().nullable(),
  date: z.string().nullable(),
  modified: z.string().nullable(),
  falsepositives: z.array(z.string()),
});
export type SigmaOrigin = z.infer<typeof SigmaOrigin>;

/**
 * A rule of the shipped pack (rules/pack, docs/rules.md): which one, from which pack version, and the
 * fingerprint of what the pack wrote, so an update can tell a rule the user changed from one it may replace.
 */
export const PackOrigin = z.object({
  format: z.literal('pack'),
  pack_id: z.string(),
  pack_version: z.string(),
  family: z.string(),
  false_positives: z.array(z.string()),
  fingerprint: z.string(),
});
export type PackOrigin = z.infer<typeof PackOrigin>;

export const RuleOrigin = z.discriminatedUnion('format', [SigmaOrigin, PackOrigin]);
export type RuleOrigin = z.infer<typeof RuleOrigin>;

export interface LeadRule {
  id: string;
  org_id: string;
  name: string;
  description: string;
  enabled: boolean;
  conditions: LeadRuleConditions;
  severity: Severity;
  tags: string[];
  origin: RuleOrigin | null;
  created_at: string;
  updated_at: string;
}

const LeadRuleRow = z.object({
  id: z.string(),
  org_id: z.string(),
  name: z.string(),
  description: z.string(),
  enabled: z.boolean(),
  conditions: z.string(),
  severity: Severity,
  tags: z.array(z.string()),
  origin: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
});

const COLUMNS = 'id, org_id, name, description, enabled, conditions, severity, tags, origin, created_at, updated_at';

function fromRow(row: unknown): LeadRule {
  const r = LeadRuleRow.parse(row);
  return {
    ...r,
    conditions: LeadRuleConditions.parse(JSON.parse(r.conditions)),
    origin: r.origin ? RuleOrigin.parse(JSON.parse(r.origin)) : null,
    created_at: toIsoTimestamp(r.created_at),
    updated_at: toIsoTimestamp(r.updated_at),
  };
}

async function insertVersions(store: Store, rules: LeadRule[], isDeleted: boolean): Promise<void> {
  if (rules.length === 0) return;
  await store.insert({
    table: 'lead_rules',
    format: 'JSONEachRow',
    values: rules.map((rule) => ({ ...rule, conditions: JSON.stringify(rule.conditions), origin: rule.origin ? JSON.stringify(rule.origin) : '', version: nextVersion(), is_deleted: isDeleted ? 1 : 0 })),
  });
}

async function insertVersion(store: Store, rule: LeadRule, isDeleted: boolean): Promise<void> {
  await insertVersions(store, [rule], isDeleted);
}

/** Writes the rule as its newest version (create and update alike). */
export async function saveLeadRule(store: Store, rule: LeadRule): Promise<void> {
  await insertVersion(store, rule, false);
}

/** Writes many rules in one insert (an import). */
export async function saveLeadRules(store: Store, rules: LeadRule[]): Promise<void> {
  await insertVersions(store, rules, false);
}

/** The stored rules among `ids`, by id. */
export async function getLeadRules(store: Store, orgId: string, ids: string[]): Promise<Map<string, LeadRule>> {
  if (ids.length === 0) return new Map();
  const result = await store.query({
    query: `SELECT ${COLUMNS} FROM lead_rules FINAL WHERE org_id = {orgId:String} AND id IN {ids:Array(UUID)}`,
    query_params: { orgId, ids },
    format: 'JSONEachRow',
  });
  return new Map((await result.json()).map(fromRow).map((rule) => [rule.id, rule]));
}

export async function deleteLeadRule(store: Store, rule: LeadRule): Promise<void> {
  await insertVersion(store, { ...rule, updated_at: new Date().toISOString() }, true);
}

export async function getLeadRule(store: Store, orgId: string, id: string): Promise<LeadRule | null> {
  const result = await store.query({
    query: `SELECT ${COLUMNS} FROM lead_rules FINAL WHERE org_id = {orgId:String} AND id = {id:UUID} LIMIT 1`,
    query_params: { orgId, id },
    format: 'JSONEachRow',
  });
  const rows = await result.json();
  return rows[0] ? fromRow(rows[0]) : null;
}

export interface LeadRuleFilter {
  enabled?: boolean;
  limit: number;
  offset: number;
}

export async function listLeadRules(store: Store, orgId: string, filter: LeadRuleFilter): Promise<{ rules: LeadRule[]; total: number }> {
  const params = new SqlParams();
  const where = [`org_id = ${params.add(orgId, 'String')}`];
  if (filter.enabled !== undefined) where.push(`enabled = ${params.add(filter.enabled, 'Bool')}`);
  const { rows, total } = await queryPage(store, {
    query: `SELECT ${COLUMNS} FROM lead_rules FINAL ${whereClause(where)}`,
    params,
    orderBy: 'created_at DESC, id',
    page: filter,
  });
  return { rules: rows.map(fromRow), total };
}

/** Every enabled rule of every organization, for the rule stage. */
export async function listEnabledLeadRules(store: Store): Promise<LeadRule[]> {
  const result = await store.query({
    query: `SELECT ${COLUMNS} FROM lead_rules FINAL WHERE enabled ORDER BY org_id, id`,
    format: 'JSONEachRow',
  });
  return (await result.json()).map(fromRow);
}

/** An organization's rules that came from the shipped pack (origin format "pack"), disabled ones included. */
export async function listPackLeadRules(store: Store, orgId: string): Promise<LeadRule[]> {
  const result = await store.query({
    query: `SELECT ${COLUMNS} FROM lead_rules FINAL WHERE org_id = {orgId:String} AND JSONExtractString(origin, 'format') = 'pack' ORDER BY id`,
    query_params: { orgId },
    format: 'JSONEachRow',
  });
  return (await result.json()).map(fromRow);
}

/** Organizations holding at least one rule of the shipped pack. */
export async function orgsWithPackLeadRules(store: Store): Promise<string[]> {
  const result = await store.query({
    query: `SELECT DISTINCT org_id FROM lead_rules FINAL WHERE JSONExtractString(origin, 'format') = 'pack' ORDER BY org_id`,
    format: 'JSONEachRow',
  });
  return (await result.json<{ org_id: string }>()).map((r) => r.org_id);
}

/** Which of `ids` were written once and then deleted (their newest version is a delete). */
export async function deletedLeadRuleIds(store: Store, orgId: string, ids: string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const result = await store.query({
    query: `SELECT toString(id) AS rule_id FROM lead_rules WHERE org_id = {orgId:String} AND id IN {ids:Array(UUID)} GROUP BY id HAVING argMax(is_deleted, version) = 1`,
    query_params: { orgId, ids },
    format: 'JSONEachRow',
  });
  return new Set((await result.json<{ rule_id: string }>()).map((r) => r.rule_id));
}
