// Operations tables: the service metrics history and the health alert rules.
import { z } from 'zod';
import { toClickHouseTime, toIsoTimestamp, type Store } from '../client.js';
import { queryRows, SqlParams } from '../sql.js';
import { nextVersion } from '../version.js';

export interface ServiceSample {
  at: string;
  service: string;
  instance: string;
  up: boolean;
  cpu_ratio: number;
  memory_bytes: number;
  event_loop_lag: number;
  lag: number | null;
  throughput: number;
}

export async function recordSamples(store: Store, samples: ServiceSample[]): Promise<void> {
  if (samples.length === 0) return;
  await store.insert({ table: 'service_metrics', format: 'JSONEachRow', values: samples.map((s) => ({ ...s, up: s.up ? 1 : 0 })) });
}

export interface HistoryPoint {
  at: string;
  up_ratio: number;
  instances: number;
  cpu_ratio: number;
  memory_bytes: number;
  event_loop_lag_seconds: number;
  lag: number | null;
  throughput: number;
}

const HistoryRow = z.object({
  at: z.string(),
  up_ratio: z.coerce.number(),
  instances: z.coerce.number(),
  cpu_ratio: z.coerce.number(),
  memory_bytes: z.coerce.number(),
  event_loop_lag_seconds: z.coerce.number(),
  lag: z.coerce.number().nullable(),
  throughput: z.coerce.number(),
});

/**
 * One point per `stepSeconds` over [start, end): per instance the mean in the
 * step, then summed over instances (CPU, memory, throughput) or the worst
 * (lag, event loop lag); up_ratio is the share of samples that were up.
 */
export async function serviceHistory(store: Store, service: string, start: string, end: string, stepSeconds: number): Promise<HistoryPoint[]> {
  const params = new SqlParams();
  const step = params.add(stepSeconds, 'UInt32');
  const rows = await queryRows(
    store,
    `SELECT bucket AS at, avg(up_mean) AS up_ratio, uniqExact(instance) AS instances, sum(cpu) AS cpu_ratio, toUInt64(sum(memory)) AS memory_bytes,
            max(loop_lag) AS event_loop_lag_seconds, max(lag_max) AS lag, sum(rate) AS throughput
     FROM (
       SELECT toStartOfInterval(at, toIntervalSecond(${step})) AS bucket, instance, avg(up) AS up_mean, avg(cpu_ratio) AS cpu, avg(memory_bytes) AS memory,
              max(event_loop_lag) AS loop_lag, max(lag) AS lag_max, avg(throughput) AS rate
       FROM service_metrics
       WHERE service = ${params.add(service, 'String')} AND at >= ${params.add(toClickHouseTime(start), 'DateTime64(3)')} AND at < ${params.add(toClickHouseTime(end), 'DateTime64(3)')}
       GROUP BY bucket, instance
     )
     GROUP BY bucket ORDER BY bucket LIMIT 10000`,
    params,
  );
  return rows.map((row) => {
    const r = HistoryRow.parse(row);
    return { ...r, at: toIsoTimestamp(r.at) };
  });
}

export const COMPARISONS = ['>', '>=', '<', '<=', '==', '!='] as const;
export type Comparison = (typeof COMPARISONS)[number];
export const ALERT_SEVERITIES = ['info', 'warning', 'critical'] as const;

export interface AlertRule {
  id: string;
  name: string;
  metric: string;
  comparison: Comparison;
  threshold: number;
  for_seconds: number;
  severity: (typeof ALERT_SEVERITIES)[number];
  /** Empty: every service the metric applies to. */
  service: string;
  enabled: boolean;
  created_at: string;
  updated_at: string;
}

const AlertRuleRow = z.object({
  id: z.string(),
  name: z.string(),
  metric: z.string(),
  comparison: z.enum(COMPARISONS),
  threshold: z.coerce.number(),
  for_seconds: z.coerce.number(),
  severity: z.enum(ALERT_SEVERITIES),
  service: z.string(),
  enabled: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
});

async function insertRule(store: Store, rule: AlertRule, isDeleted: boolean): Promise<void> {
  await store.insert({ table: 'health_alert_rules', format: 'JSONEachRow', values: [{ ...rule, version: nextVersion(), is_deleted: isDeleted ? 1 : 0 }] });
}

export async function saveAlertRule(store: Store, rule: AlertRule): Promise<void> {
  await insertRule(store, rule, false);
}

export async function deleteAlertRule(store: Store, rule: AlertRule): Promise<void> {
  await insertRule(store, { ...rule, updated_at: new Date().toISOString() }, true);
}

export async function listStoredAlertRules(store: Store): Promise<AlertRule[]> {
  const rows = await queryRows(store, 'SELECT id, name, metric, comparison, threshold, for_seconds, severity, service, enabled, created_at, updated_at FROM health_alert_rules FINAL ORDER BY created_at, id', new SqlParams());
  return rows.map((row) => {
    const r = AlertRuleRow.parse(row);
    return { ...r, created_at: toIsoTimestamp(r.created_at), updated_at: toIsoTimestamp(r.updated_at) };
  });
}
