// The reports (SPEC 2.11, 4.10; docs/reports.md): executive, compliance,
// tool effectiveness, cost and savings. Every figure is an aggregation in
// ClickHouse over the period [start, end) (and the period before it, of the
// same length, where a report compares); Node only shapes the answer. Each
// report also gives its rows for CSV (one table per report).
import type { GraphScopes } from '../config/env.js';
import type { Store } from '../clickhouse/client.js';
import { toClickHouseTime } from '../clickhouse/client.js';
import { nodeQuery } from '../clickhouse/tables/nodes.js';
import { queryRows, SqlParams } from '../clickhouse/sql.js';

export interface Period {
  start: string;
  end: string;
}

export const FRAMEWORKS: Record<number, string> = { 1: 'PCI DSS', 2: 'HIPAA', 3: 'SOC 2', 4: 'ISO/IEC 27001', 5: 'NIST SP 800-53', 6: 'GDPR', 7: 'NIS2', 8: 'CIS Controls' };
const STATUS_NAMES: Record<number, string> = { 1: 'New', 2: 'Investigating', 3: 'Resolved', 4: 'Closed', 5: 'Disrupted' };
const SEVERITIES = ['low', 'medium', 'high', 'critical'] as const;

/** A CSV table: the same columns in every row. */
export type Row = Record<string, string | number | null>;

export interface ReportContext {
  store: Store;
  orgId: string;
  scopes: GraphScopes;
}

const DAY_MS = 86_400_000;
/** A report covers at most this many days. */
const MAX_PERIOD_DAYS = 400;

/** [start, end) as asked, by default the 30 days before end, and end by default now (the report routes and the AI tool). */
export function defaultPeriod(start: string | undefined, end: string | undefined): Period {
  const to = end ? new Date(end).toISOString() : new Date().toISOString();
  return { start: start ? new Date(start).toISOString() : new Date(Date.parse(to) - 30 * DAY_MS).toISOString(), end: to };
}

/** What is wrong with a period a report is asked for, or null. */
export function periodProblem(period: Period): string | null {
  if (period.start < '1970' || period.end > '2200') return 'start and end must fall between 1970 and 2200';
  if (period.start >= period.end) return 'start must be before end';
  if (Date.parse(period.end) - Date.parse(period.start) > MAX_PERIOD_DAYS * DAY_MS) return `the period is at most ${MAX_PERIOD_DAYS} days`;
  return null;
}

export function previousPeriod({ start, end }: Period): Period {
  const length = Date.parse(end) - Date.parse(start);
  return { start: new Date(Date.parse(start) - length).toISOString(), end: start };
}

const num = (v: unknown): number => (v === null || v === undefined || v === '' ? 0 : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined || Number.isNaN(Number(v)) ? null : Number(v));
const ratio = (a: number, b: number): number | null => (b > 0 ? Number((a / b).toFixed(4)) : null);

/** Incidents of the org with their current status, when they were first resolved (status 3, 4 or 5), and their leads. */
function incidentsSql(params: SqlParams, org: string, from: string, to: string): string {
  return `SELECT i.id AS id, i.severity AS severity, i.created_at AS created_at, i.first_seen AS first_seen, i.node_ids AS node_ids,
            if(s.status = 0, 1, s.status) AS status, r.has_resolution AS resolved, r.resolved_at AS resolved_at
     FROM (SELECT id, severity, created_at, first_seen, node_ids FROM incidents FINAL
           WHERE org_id = ${org} AND created_at >= ${params.add(toClickHouseTime(from), 'DateTime64(3)')} AND created_at < ${params.add(toClickHouseTime(to), 'DateTime64(3)')}) AS i
     LEFT JOIN (SELECT incident_id, status FROM incident_status FINAL WHERE org_id = ${org}) AS s ON s.incident_id = i.id
     LEFT JOIN (SELECT incident_id, min(changed_at) AS resolved_at, 1 AS has_resolution FROM incident_status_changes
                WHERE org_id = ${org} AND to_status IN (3, 4, 5) GROUP BY incident_id) AS r ON r.incident_id = i.id`;
}

// ---------------------------------------------------------------- executive

export interface Compared {
  current: number | null;
  previous: number | null;
}

export interface ExecutiveReport {
  period: Period;
  previous_period: Period;
  incidents: Compared;
  by_severity: Record<string, Compared>;
  by_status: Record<string, Compared>;
  true_positives: Compared;
  false_positives: Compared;
  precision: Compared;
  time_to_detect_seconds: { mean: Compared; p90: Compared };
  time_to_resolve_seconds: { mean: Compared; p90: Compared };
  artifacts_by_source: { source: string; current: number; previous: number }[];
  top_attacking_addresses: { value: string; node_id: string; incidents: number; previous_incidents: number }[];
  most_targeted_nodes: { type: string; value: string; node_id: string; incidents: number; previous_incidents: number }[];
}

export async function executiveReport(ctx: ReportContext, period: Period): Promise<{ report: ExecutiveReport; rows: Row[] }> {
  const previous = previousPeriod(period);
  const params = new SqlParams();
  const org = params.add(ctx.orgId, 'String');
  const split = params.add(toClickHouseTime(period.start), 'DateTime64(3)');
  const severityColumns = SEVERITIES.map((s) => `countIf(severity = '${s}') AS sev_${s}`).join(', ');
  const statusColumns = Object.keys(STATUS_NAMES).map((s) => `countIf(status = ${s}) AS status_${s}`).join(', ');
  const figures = await queryRows(
    ctx.store,
    `SELECT created_at >= ${split} AS is_current, count() AS incidents, ${severityColumns}, ${statusColumns},
            countIf(status IN (3, 5)) AS tp, countIf(status = 4) AS fp,
            avg(dateDiff('millisecond', first_seen, created_at)) / 1000 AS ttd_mean,
            quantileExact(0.9)(dateDiff('millisecond', first_seen, created_at)) / 1000 AS ttd_p90,
            avgIf(dateDiff('millisecond', created_at, resolved_at), resolved = 1) / 1000 AS ttr_mean,
            quantileExactIf(0.9)(dateDiff('millisecond', created_at, resolved_at), resolved = 1) / 1000 AS ttr_p90,
            countIf(resolved = 1) AS resolved_count
     FROM (${incidentsSql(params, org, previous.start, period.end)}) GROUP BY is_current`,
    params,
  );
  const of = (current: boolean) => (figures.find((f) => Boolean(num((f as Record<string, unknown>).is_current)) === current) ?? {}) as Record<string, unknown>;
  const [cur, prev] = [of(true), of(false)];
  const compared = (key: string): Compared => ({ current: num(cur[key]), previous: num(prev[key]) });
  // A mean or quantile of nothing is no figure, not zero.
  const timing = (key: string, countKey: string): Compared => ({ current: num(cur[countKey]) ? numOrNull(cur[key]) : null, previous: num(prev[countKey]) ? numOrNull(prev[key]) : null });

  const sources = await queryRows(
    ctx.store,
    `SELECT source, countIf(created_at >= ${split}) AS current, countIf(created_at < ${split}) AS previous FROM artifacts
     WHERE org_id = ${org} AND created_at >= ${params.add(toClickHouseTime(previous.start), 'DateTime64(3)')} AND created_at < ${params.add(toClickHouseTime(period.end), 'DateTime64(3)')}
     GROUP BY source ORDER BY current DESC, source`,
    params,
  );

  // Nodes of the period's incidents with their effective flags (internal from CAIRN_INTERNAL_NETWORKS and overrides).
  const nodeParams = new SqlParams();
  const nodeOrg = nodeParams.add(ctx.orgId, 'String');
  const nodeSplit = nodeParams.add(toClickHouseTime(period.start), 'DateTime64(3)');
  const touched = await queryRows(
    ctx.store,
    `SELECT n.id AS node_id, n.type AS type, n.value AS value, n.internal AS internal,
            uniqExactIf(t.incident_id, t.created_at >= ${nodeSplit}) AS incidents, uniqExactIf(t.incident_id, t.created_at < ${nodeSplit}) AS previous_incidents
     FROM (SELECT arrayJoin(node_ids) AS node_id, id AS incident_id, created_at FROM incidents FINAL
           WHERE org_id = ${nodeOrg} AND created_at >= ${nodeParams.add(toClickHouseTime(previous.start), 'DateTime64(3)')} AND created_at < ${nodeParams.add(toClickHouseTime(period.end), 'DateTime64(3)')}) AS t
     INNER JOIN (${nodeQuery(ctx.orgId, ctx.scopes, { flags: {} }, nodeParams)}) AS n ON n.id = t.node_id
     GROUP BY node_id, type, value, internal HAVING incidents > 0 ORDER BY incidents DESC, value LIMIT 1000`,
    nodeParams,
    { join_use_nulls: 0 },
  );
  const rowsOf = touched.map((r) => r as Record<string, unknown>);
  const attackers = rowsOf.filter((r) => r.type === 'IP' && !num(r.internal)).slice(0, 10);
  const targets = rowsOf.filter((r) => !(r.type === 'IP' && !num(r.internal))).slice(0, 10);

  const report: ExecutiveReport = {
    period,
    previous_period: previous,
    incidents: compared('incidents'),
    by_severity: Object.fromEntries(SEVERITIES.map((s) => [s, compared(`sev_${s}`)])),
    by_status: Object.fromEntries(Object.entries(STATUS_NAMES).map(([id, name]) => [name, compared(`status_${id}`)])),
    true_positives: compared('tp'),
    false_positives: compared('fp'),
    precision: { current: ratio(num(cur.tp), num(cur.tp) + num(cur.fp)), previous: ratio(num(prev.tp), num(prev.tp) + num(prev.fp)) },
    time_to_detect_seconds: { mean: timing('ttd_mean', 'incidents'), p90: timing('ttd_p90', 'incidents') },
    time_to_resolve_seconds: { mean: timing('ttr_mean', 'resolved_count'), p90: timing('ttr_p90', 'resolved_count') },
    artifacts_by_source: sources.map((r) => {
      const s = r as Record<string, unknown>;
      return { source: String(s.source), current: num(s.current), previous: num(s.previous) };
    }),
    top_attacking_addresses: attackers.map((r) => ({ value: String(r.value), node_id: String(r.node_id), incidents: num(r.incidents), previous_incidents: num(r.previous_incidents) })),
    most_targeted_nodes: targets.map((r) => ({ type: String(r.type), value: String(r.value), node_id: String(r.node_id), incidents: num(r.incidents), previous_incidents: num(r.previous_incidents) })),
  };

  const rows: Row[] = [];
  const add = (section: string, metric: string, c: Compared) => rows.push({ section, metric, current: c.current, previous: c.previous });
  add('incidents', 'opened', report.incidents);
  for (const [s, c] of Object.entries(report.by_severity)) add('incidents by severity', s, c);
  for (const [s, c] of Object.entries(report.by_status)) add('incidents by status', s, c);
  add('outcomes', 'true positives', report.true_positives);
  add('outcomes', 'false positives', report.false_positives);
  add('outcomes', 'precision', report.precision);
  add('time to detect (s)', 'mean', report.time_to_detect_seconds.mean);
  add('time to detect (s)', 'p90', report.time_to_detect_seconds.p90);
  add('time to resolve (s)', 'mean', report.time_to_resolve_seconds.mean);
  add('time to resolve (s)', 'p90', report.time_to_resolve_seconds.p90);
  for (const s of report.artifacts_by_source) add('artifacts by source', s.source, s);
  for (const a of report.top_attacking_addresses) add('top attacking addresses (incidents)', a.value, { current: a.incidents, previous: a.previous_incidents });
  for (const t of report.most_targeted_nodes) add('most targeted nodes (incidents)', `${t.type} ${t.value}`, { current: t.incidents, previous: t.previous_incidents });
  return { report, rows };
}

// ---------------------------------------------------------------- compliance

export interface ComplianceRow {
  framework_id: number;
  framework: string;
  nodes_in_scope: number;
  nodes_reporting: number;
  nodes_silent: number;
  log_coverage: number | null;
  silent_nodes: { node_id: string; type: string; value: string; last_seen: string | null }[];
  incidents: number;
  incidents_by_status: Record<string, number>;
  incidents_by_severity: Record<string, number>;
  open_older_than_7_days: number;
  open_older_than_30_days: number;
}

/** One framework: in-scope nodes, which of them were seen in the period (log coverage), and incidents touching them. */
async function complianceOf(ctx: ReportContext, period: Period, frameworkId: number, now: string): Promise<ComplianceRow> {
  const params = new SqlParams();
  const org = params.add(ctx.orgId, 'String');
  const [from, to] = [params.add(toClickHouseTime(period.start), 'DateTime64(3)'), params.add(toClickHouseTime(period.end), 'DateTime64(3)')];
  const scope = `SELECT id, type, value FROM (${nodeQuery(ctx.orgId, ctx.scopes, { flags: {}, frameworks: [frameworkId] }, params)})`;
  const coverage = await queryRows(
    ctx.store,
    `SELECT s.id AS node_id, s.type AS type, s.value AS value, seen.seen_in_period AS seen_in_period, seen.seen_last AS last_seen
     FROM (${scope}) AS s
     LEFT JOIN (SELECT id, max(last_seen) AS seen_last, countIf(last_seen >= ${from} AND first_seen < ${to}) > 0 AS seen_in_period FROM nodes WHERE org_id = ${org} GROUP BY id) AS seen ON seen.id = s.id
     ORDER BY seen_in_period, value`,
    params,
    { join_use_nulls: 1 },
  );
  const nodes = coverage.map((r) => r as Record<string, unknown>);
  const silent = nodes.filter((n) => !num(n.seen_in_period));
  const incidentParams = new SqlParams();
  const iorg = incidentParams.add(ctx.orgId, 'String');
  const ids = incidentParams.add(nodes.map((n) => String(n.node_id)), 'Array(UUID)');
  const nowAt = incidentParams.add(toClickHouseTime(now), 'DateTime64(3)');
  const figures = (
    await queryRows(
      ctx.store,
      `SELECT count() AS incidents, ${Object.keys(STATUS_NAMES).map((s) => `countIf(status = ${s}) AS status_${s}`).join(', ')},
              ${SEVERITIES.map((s) => `countIf(severity = '${s}') AS sev_${s}`).join(', ')},
              countIf(status IN (1, 2) AND created_at < ${nowAt} - INTERVAL 7 DAY) AS open_7, countIf(status IN (1, 2) AND created_at < ${nowAt} - INTERVAL 30 DAY) AS open_30
       FROM (${incidentsSql(incidentParams, iorg, period.start, period.end)}) WHERE hasAny(node_ids, ${ids})`,
      incidentParams,
    )
  )[0] as Record<string, unknown>;
  return {
    framework_id: frameworkId,
    framework: FRAMEWORKS[frameworkId]!,
    nodes_in_scope: nodes.length,
    nodes_reporting: nodes.length - silent.length,
    nodes_silent: silent.length,
    log_coverage: ratio(nodes.length - silent.length, nodes.length),
    silent_nodes: silent.slice(0, 100).map((n) => ({ node_id: String(n.node_id), type: String(n.type), value: String(n.value), last_seen: n.last_seen ? String(n.last_seen) : null })),
    incidents: num(figures.incidents),
    incidents_by_status: Object.fromEntries(Object.entries(STATUS_NAMES).map(([id, name]) => [name, num(figures[`status_${id}`])])),
    incidents_by_severity: Object.fromEntries(SEVERITIES.map((s) => [s, num(figures[`sev_${s}`])])),
    open_older_than_7_days: num(figures.open_7),
    open_older_than_30_days: num(figures.open_30),
  };
}

export async function complianceReport(ctx: ReportContext, period: Period, frameworkId: number | undefined, now = new Date().toISOString()): Promise<{ report: { period: Period; frameworks: ComplianceRow[] }; rows: Row[] }> {
  const ids = frameworkId ? [frameworkId] : Object.keys(FRAMEWORKS).map(Number);
  const frameworks: ComplianceRow[] = [];
  for (const id of ids) frameworks.push(await complianceOf(ctx, period, id, now));
  const rows = frameworks.map((f) => ({
    framework_id: f.framework_id,
    framework: f.framework,
    nodes_in_scope: f.nodes_in_scope,
    nodes_reporting: f.nodes_reporting,
    nodes_silent: f.nodes_silent,
    log_coverage: f.log_coverage,
    incidents: f.incidents,
    ...Object.fromEntries(Object.entries(f.incidents_by_status).map(([k, v]) => [`status ${k}`, v])),
    ...Object.fromEntries(Object.entries(f.incidents_by_severity).map(([k, v]) => [`severity ${k}`, v])),
    open_older_than_7_days: f.open_older_than_7_days,
    open_older_than_30_days: f.open_older_than_30_days,
    silent_nodes: f.silent_nodes.map((n) => n.value).join(', '),
  }));
  return { report: { period, frameworks }, rows };
}

// ---------------------------------------------------------------- tool effectiveness

/**
 * Every lead of the period with the source of its first event (the sensor
 * that produced what fired; kept on the lead since migration 020, looked up
 * from its first artifact for older leads), its incident, and that
 * incident's status and time to detect.
 */
function leadFactsSql(params: SqlParams, org: string, period: Period): string {
  // A lead's created_at is its first event's time (old logs replayed today are old); the period counts when cairn
  // raised it, which its row version holds (microseconds since the epoch at the write, clickhouse/version.ts).
  const [from, to] = [params.add(Date.parse(period.start) * 1000, 'UInt64'), params.add(Date.parse(period.end) * 1000, 'UInt64')];
  const leadsOfPeriod = `SELECT id, rule_id, rule_name, observation_id, artifact_ids[1] AS first_artifact, source AS lead_source FROM leads FINAL WHERE org_id = ${org} AND version >= ${from} AND version < ${to}`;
  const older = `SELECT first_artifact FROM (${leadsOfPeriod}) WHERE lead_source = ''`;
  return `SELECT l.id AS lead_id, l.rule_id AS rule_id, l.rule_name AS rule_name, l.observation_id AS observation_id, if(l.lead_source != '', l.lead_source, a.source) AS source,
                 il.incident_id AS incident_id, inc.status AS status, inc.ttd AS ttd
          FROM (${leadsOfPeriod}) AS l
          LEFT JOIN (SELECT id, source FROM artifacts WHERE org_id = ${org} AND id IN (${older})) AS a ON a.id = l.first_artifact
          LEFT JOIN (SELECT lead_id, incident_id FROM incident_leads FINAL WHERE org_id = ${org}) AS il ON il.lead_id = l.id
          LEFT JOIN (SELECT i.id AS id, if(s.status = 0, 1, s.status) AS status, dateDiff('millisecond', i.first_seen, i.created_at) / 1000 AS ttd
                     FROM (SELECT id, first_seen, created_at FROM incidents FINAL WHERE org_id = ${org}) AS i
                     LEFT JOIN (SELECT incident_id, status FROM incident_status FINAL WHERE org_id = ${org}) AS s ON s.incident_id = i.id) AS inc ON inc.id = il.incident_id`;
}

/** Per group of leads: how many, their observations and incidents, true and false positives, mean time to detect over those incidents (each once). */
const OUTCOME_COLUMNS = `count() AS leads, uniqExact(observation_id) AS observations, uniqExactIf(incident_id, incident_id IS NOT NULL) AS incidents,
  uniqExactIf(incident_id, status IN (3, 5)) AS tp, uniqExactIf(incident_id, status = 4) AS fp,
  arrayAvg(arrayMap(x -> assumeNotNull(x.2), groupUniqArrayIf((incident_id, ttd), incident_id IS NOT NULL))) AS ttd_mean`;

export interface Effectiveness {
  leads: number;
  observations: number;
  incidents: number;
  true_positives: number;
  false_positives: number;
  precision: number | null;
  mean_time_to_detect_seconds: number | null;
}

function effectiveness(r: Record<string, unknown>): Effectiveness {
  const [tp, fp] = [num(r.tp), num(r.fp)];
  return {
    leads: num(r.leads),
    observations: num(r.observations),
    incidents: num(r.incidents),
    true_positives: tp,
    false_positives: fp,
    precision: ratio(tp, tp + fp),
    mean_time_to_detect_seconds: num(r.incidents) ? numOrNull(r.ttd_mean) : null,
  };
}

export interface SourceEffectiveness extends Effectiveness {
  source: string;
  artifacts: number;
  parsed: number;
  parse_rate: number | null;
}

export interface RuleEffectiveness extends Effectiveness {
  rule_id: string;
  rule_name: string;
}

async function effectivenessBySourceAndRule(ctx: ReportContext, period: Period): Promise<{ sources: SourceEffectiveness[]; rules: RuleEffectiveness[] }> {
  const params = new SqlParams();
  const org = params.add(ctx.orgId, 'String');
  const [from, to] = [params.add(toClickHouseTime(period.start), 'DateTime64(3)'), params.add(toClickHouseTime(period.end), 'DateTime64(3)')];
  // One pass over the lead facts, grouped both ways.
  const outcomes = await queryRows(
    ctx.store,
    `SELECT grouping(source) = 0 AS by_source, source, toString(rule_id) AS rule, any(rule_name) AS rule_name, ${OUTCOME_COLUMNS}
     FROM (${leadFactsSql(params, org, period)}) GROUP BY GROUPING SETS ((source), (rule_id)) ORDER BY leads DESC, rule_name`,
    params,
    { join_use_nulls: 1 },
  );
  const volumes = await queryRows(
    ctx.store,
    `SELECT a.source AS source, a.artifacts AS artifacts, e.parsed AS parsed
     FROM (SELECT source, count() AS artifacts FROM artifacts WHERE org_id = ${org} AND created_at >= ${from} AND created_at < ${to} GROUP BY source) AS a
     LEFT JOIN (SELECT source, count() AS parsed FROM events WHERE org_id = ${org} AND created_at >= ${from} AND created_at < ${to} GROUP BY source) AS e ON e.source = a.source
     ORDER BY artifacts DESC, source`,
    params,
    { join_use_nulls: 1 },
  );
  const rowsOf = outcomes.map((r) => r as Record<string, unknown>);
  const bySource = new Map(rowsOf.filter((r) => num(r.by_source)).map((r) => [String(r.source), r]));
  return {
    sources: volumes.map((row) => {
      const r = row as Record<string, unknown>;
      return { source: String(r.source), artifacts: num(r.artifacts), parsed: num(r.parsed), parse_rate: ratio(num(r.parsed), num(r.artifacts)), ...effectiveness(bySource.get(String(r.source)) ?? {}) };
    }),
    rules: rowsOf.filter((r) => !num(r.by_source)).map((r) => ({ rule_id: String(r.rule), rule_name: String(r.rule_name), ...effectiveness(r) })),
  };
}

export interface ToolEffectivenessReport {
  period: Period;
  sources: SourceEffectiveness[];
  rules: RuleEffectiveness[];
  rules_never_fired: { rule_id: string; rule_name: string }[];
  sources_without_leads: string[];
}

export async function toolEffectivenessReport(ctx: ReportContext, period: Period): Promise<{ report: ToolEffectivenessReport; rows: Row[] }> {
  const { sources, rules } = await effectivenessBySourceAndRule(ctx, period);
  const params = new SqlParams();
  const fired = new Set(rules.map((r) => r.rule_id));
  const enabled = await queryRows(ctx.store, `SELECT toString(id) AS rule_id, name AS rule_name FROM lead_rules FINAL WHERE org_id = ${params.add(ctx.orgId, 'String')} AND enabled ORDER BY name`, params);
  const report: ToolEffectivenessReport = {
    period,
    sources,
    rules,
    rules_never_fired: enabled.map((r) => r as { rule_id: string; rule_name: string }).filter((r) => !fired.has(r.rule_id)),
    sources_without_leads: sources.filter((s) => s.leads === 0).map((s) => s.source),
  };
  const rows: Row[] = [
    ...sources.map((s) => ({ kind: 'source', name: s.source, artifacts: s.artifacts, parsed: s.parsed, parse_rate: s.parse_rate, ...outcomeColumns(s) })),
    ...rules.map((r) => ({ kind: 'rule', name: r.rule_name, artifacts: null, parsed: null, parse_rate: null, ...outcomeColumns(r) })),
    ...report.rules_never_fired.map((r) => ({ kind: 'rule never fired', name: r.rule_name, artifacts: null, parsed: null, parse_rate: null, ...outcomeColumns(null) })),
  ];
  return { report, rows };
}

function outcomeColumns(e: Effectiveness | null): Row {
  return {
    leads: e?.leads ?? 0,
    observations: e?.observations ?? 0,
    incidents: e?.incidents ?? 0,
    true_positives: e?.true_positives ?? 0,
    false_positives: e?.false_positives ?? 0,
    precision: e?.precision ?? null,
    mean_time_to_detect_seconds: e?.mean_time_to_detect_seconds ?? null,
  };
}

// ---------------------------------------------------------------- cost and savings

export interface Prices {
  ingest_per_gb: number;
  storage_per_gb_month: number;
  analyst_minutes_per_lead: number;
  analyst_minutes_per_incident: number;
  analyst_hourly_rate: number;
}

/** Defaults: cloud-SIEM-like ingest and object-storage prices, and a common triage estimate (docs/reports.md). */
export const DEFAULT_PRICES: Prices = { ingest_per_gb: 0.5, storage_per_gb_month: 0.03, analyst_minutes_per_lead: 10, analyst_minutes_per_incident: 30, analyst_hourly_rate: 75 };

const GB = 1024 ** 3;
const money = (v: number) => Number(v.toFixed(4));

export interface CostSavingsReport {
  period: Period;
  prices: Prices;
  sources: {
    source: string;
    ingested_bytes: number;
    stored_bytes: number;
    ingest_cost: number;
    storage_cost: number;
    true_positives: number;
    cost_per_true_positive: number | null;
  }[];
  rules: { rule_id: string; rule_name: string; leads: number; analyst_cost: number; true_positives: number; cost_per_true_positive: number | null }[];
  savings: {
    leads_in_incidents: number;
    incidents: number;
    leads_folded: number;
    analyst_minutes_saved_by_correlation: number;
    false_positive_incidents_closed: number;
    analyst_minutes_saved_by_false_positives_closed: number;
    analyst_cost_saved: number;
  };
  totals: { ingested_bytes: number; stored_bytes: number; ingest_cost: number; storage_cost: number; analyst_cost: number };
}

export async function costSavingsReport(ctx: ReportContext, period: Period, prices: Prices): Promise<{ report: CostSavingsReport; rows: Row[] }> {
  const params = new SqlParams();
  const org = params.add(ctx.orgId, 'String');
  const [from, to] = [params.add(toClickHouseTime(period.start), 'DateTime64(3)'), params.add(toClickHouseTime(period.end), 'DateTime64(3)')];
  // Bytes ingested per source; the compressed bytes of the period's daily partitions of artifacts and events, shared out by them.
  const bytes = await queryRows(
    ctx.store,
    `SELECT source, sum(raw_bytes) AS ingested FROM artifacts WHERE org_id = ${org} AND created_at >= ${from} AND created_at < ${to} GROUP BY source ORDER BY ingested DESC, source`,
    params,
  );
  const stored = num(
    (
      (await queryRows(
        ctx.store,
        `SELECT sum(bytes_on_disk) AS b FROM system.parts WHERE database = currentDatabase() AND active AND table IN ('artifacts', 'events')
           AND partition >= toString(toYYYYMMDD(${from})) AND partition <= toString(toYYYYMMDD(${to}))`,
        params,
      ))[0] as Record<string, unknown>
    ).b,
  );
  const totalIngested = bytes.reduce<number>((sum, r) => sum + num((r as Record<string, unknown>).ingested), 0);
  const months = (Date.parse(period.end) - Date.parse(period.start)) / (30 * 86_400_000);
  const { sources: effectivenessBySource, rules } = await effectivenessBySourceAndRule(ctx, period);
  const tpOf = new Map(effectivenessBySource.map((s) => [s.source, s.true_positives]));
  const sources = bytes.map((row) => {
    const r = row as Record<string, unknown>;
    const ingested = num(r.ingested);
    const storedBytes = totalIngested > 0 ? Math.round((stored * ingested) / totalIngested) : 0;
    const ingestCost = (ingested / GB) * prices.ingest_per_gb;
    const storageCost = (storedBytes / GB) * prices.storage_per_gb_month * months;
    const tp = tpOf.get(String(r.source)) ?? 0;
    return { source: String(r.source), ingested_bytes: ingested, stored_bytes: storedBytes, ingest_cost: money(ingestCost), storage_cost: money(storageCost), true_positives: tp, cost_per_true_positive: tp ? money((ingestCost + storageCost) / tp) : null };
  });
  const perLead = (prices.analyst_minutes_per_lead / 60) * prices.analyst_hourly_rate;
  const ruleCosts = rules.map((r) => ({
    rule_id: r.rule_id,
    rule_name: r.rule_name,
    leads: r.leads,
    analyst_cost: money(r.leads * perLead),
    true_positives: r.true_positives,
    cost_per_true_positive: r.true_positives ? money((r.leads * perLead) / r.true_positives) : null,
  }));

  const folded = (
    await queryRows(
      ctx.store,
      `SELECT count() AS leads, uniqExact(il.incident_id) AS incidents, countIf(s.status = 4) AS fp_leads, uniqExactIf(il.incident_id, s.status = 4) AS fp_incidents
       FROM (SELECT lead_id, incident_id FROM incident_leads FINAL WHERE org_id = ${org}
             AND incident_id IN (SELECT id FROM incidents FINAL WHERE org_id = ${org} AND created_at >= ${from} AND created_at < ${to})) AS il
       LEFT JOIN (SELECT incident_id, status FROM incident_status FINAL WHERE org_id = ${org}) AS s ON s.incident_id = il.incident_id`,
      params,
    )
  )[0] as Record<string, unknown>;
  const leadsInIncidents = num(folded.leads);
  const incidents = num(folded.incidents);
  const correlationMinutes = (leadsInIncidents - incidents) * prices.analyst_minutes_per_lead;
  const fpMinutes = (num(folded.fp_leads) - num(folded.fp_incidents)) * prices.analyst_minutes_per_lead;
  const analystCost = rules.reduce((sum, r) => sum + r.leads * perLead, 0);
  const report: CostSavingsReport = {
    period,
    prices,
    sources,
    rules: ruleCosts,
    savings: {
      leads_in_incidents: leadsInIncidents,
      incidents,
      leads_folded: leadsInIncidents - incidents,
      analyst_minutes_saved_by_correlation: correlationMinutes,
      false_positive_incidents_closed: num(folded.fp_incidents),
      analyst_minutes_saved_by_false_positives_closed: fpMinutes,
      analyst_cost_saved: money((correlationMinutes / 60) * prices.analyst_hourly_rate),
    },
    totals: {
      ingested_bytes: totalIngested,
      stored_bytes: sources.reduce((sum, s) => sum + s.stored_bytes, 0),
      ingest_cost: money(sources.reduce((sum, s) => sum + s.ingest_cost, 0)),
      storage_cost: money(sources.reduce((sum, s) => sum + s.storage_cost, 0)),
      analyst_cost: money(analystCost),
    },
  };
  const rows: Row[] = [
    ...sources.map((s) => ({ kind: 'source', name: s.source, ingested_bytes: s.ingested_bytes, stored_bytes: s.stored_bytes, ingest_cost: s.ingest_cost, storage_cost: s.storage_cost, leads: null, analyst_cost: null, true_positives: s.true_positives, cost_per_true_positive: s.cost_per_true_positive })),
    ...ruleCosts.map((r) => ({ kind: 'rule', name: r.rule_name, ingested_bytes: null, stored_bytes: null, ingest_cost: null, storage_cost: null, leads: r.leads, analyst_cost: r.analyst_cost, true_positives: r.true_positives, cost_per_true_positive: r.cost_per_true_positive })),
  ];
  return { report, rows };
}
