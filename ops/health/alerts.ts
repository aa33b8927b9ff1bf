// Health alert rules: a metric of a service, a comparison, a threshold and
// how long it must hold (Prometheus `for:`). The built-in rules live here
// with fixed ids; operators add their own and may tune (not delete) the
// built-in ones. The evaluator (monitor.ts) raises an alert once when a rule
// starts firing and forgets it when the condition clears.
import type { Config } from '../../config/env.js';
import type { Store } from '../../clickhouse/client.js';
import { listStoredAlertRules, type AlertRule, type Comparison } from '../../clickhouse/tables/health.js';
import { stableId } from '../../lib/ids.js';
import type { ContainerDetail } from './services.js';

/** What rules can watch, and what each is measured on. */
export const ALERT_METRICS = {
  service_up: { help: '1 while the service (or dependency) is up or degraded, 0 when down', of: 'service' },
  heartbeat_age_seconds: { help: 'seconds since the service last sent a heartbeat', of: 'service' },
  consumer_lag: { help: 'messages waiting for a pipeline stage on its input topic', of: 'stage' },
  cpu_ratio: { help: 'CPU cores the service uses (1 = one core busy)', of: 'service' },
  memory_bytes: { help: 'resident memory of the service, summed over its instances', of: 'service' },
  event_loop_lag_seconds: { help: 'worst event loop delay (p99) of the service', of: 'service' },
  disk_used_ratio: { help: 'share of the data dir file system in use (0 to 1), for the service "appliance"', of: 'appliance' },
} as const;
export type AlertMetric = keyof typeof ALERT_METRICS;
export const ALERT_METRIC_NAMES = Object.keys(ALERT_METRICS) as AlertMetric[];

/** Which system event a firing rule raises: a service or dependency gone is service_down; everything else a capacity warning. */
export function eventTypeOf(metric: string): 'system.service_down' | 'system.capacity_warning' {
  return metric === 'service_up' || metric === 'heartbeat_age_seconds' ? 'system.service_down' : 'system.capacity_warning';
}

const EPOCH = '2026-01-01T00:00:00.000Z';

function builtin(name: string, rule: Omit<AlertRule, 'id' | 'name' | 'created_at' | 'updated_at' | 'enabled' | 'service'>): AlertRule {
  return { id: stableId('health-rule', name), name, service: '', enabled: true, created_at: EPOCH, updated_at: EPOCH, ...rule };
}

/** The rules every deployment starts with (docs/operations.md); their thresholds follow the configuration. */
export function builtinRules(config: Config): AlertRule[] {
  return [
    builtin('stage lag above half the ingest limit', { metric: 'consumer_lag', comparison: '>', threshold: Math.floor(config.ingestMaxLag / 2), for_seconds: 60, severity: 'warning' }),
    builtin('disk above 90%', { metric: 'disk_used_ratio', comparison: '>', threshold: 0.9, for_seconds: 60, severity: 'critical' }),
    builtin('service down', { metric: 'service_up', comparison: '<', threshold: 1, for_seconds: 30, severity: 'critical' }),
  ];
}

export function isBuiltin(config: Config, id: string): boolean {
  return builtinRules(config).some((r) => r.id === id);
}

/** Built-in rules (as tuned, if they were) and the operators' own. */
export async function loadRules(store: Store, config: Config): Promise<(AlertRule & { builtin: boolean })[]> {
  const stored = await listStoredAlertRules(store);
  const tuned = new Map(stored.map((r) => [r.id, r]));
  const builtins = builtinRules(config).map((r) => ({ ...(tuned.get(r.id) ?? r), builtin: true }));
  const custom = stored.filter((r) => !isBuiltin(config, r.id)).map((r) => ({ ...r, builtin: false }));
  return [...builtins, ...custom];
}

export function compare(value: number, comparison: Comparison, threshold: number): boolean {
  switch (comparison) {
    case '>':
      return value > threshold;
    case '>=':
      return value >= threshold;
    case '<':
      return value < threshold;
    case '<=':
      return value <= threshold;
    case '==':
      return value === threshold;
    case '!=':
      return value !== threshold;
  }
}

export interface Observation {
  subject: string;
  value: number;
}

/** The values of a metric now, one per service it applies to. */
export interface Readings {
  /** Share of the data dir's file system in use. */
  diskUsedRatio: number;
  /** Messages waiting per stage of the topology, read from the bus: a stage whose workers are all gone still has a backlog. */
  lags: Record<string, number>;
}

export function observe(metric: string, containers: ContainerDetail[], readings: Readings): Observation[] {
  const now = Date.now();
  switch (metric as AlertMetric) {
    case 'service_up':
      return containers.map((c) => ({ subject: c.name, value: c.status === 'down' ? 0 : 1 }));
    case 'heartbeat_age_seconds':
      return containers.filter((c) => c.last_heartbeat).map((c) => ({ subject: c.name, value: (now - Date.parse(c.last_heartbeat!)) / 1000 }));
    case 'consumer_lag':
      return Object.entries(readings.lags).map(([subject, value]) => ({ subject, value }));
    case 'cpu_ratio':
      return containers.filter((c) => c.kind !== 'dependency').map((c) => ({ subject: c.name, value: c.cpu_ratio }));
    case 'memory_bytes':
      return containers.filter((c) => c.kind !== 'dependency').map((c) => ({ subject: c.name, value: c.memory_bytes }));
    case 'event_loop_lag_seconds':
      return containers.filter((c) => c.kind !== 'dependency').map((c) => ({ subject: c.name, value: c.event_loop_lag_seconds }));
    case 'disk_used_ratio':
      return [{ subject: 'appliance', value: readings.diskUsedRatio }];
    default:
      return [];
  }
}
