// Runs in every API process, every CAIRN_HEARTBEAT_MS: reads the services'
// heartbeats, writes a history sample per instance, and evaluates the health
// alert rules. A rule whose condition has held for its `for` starts firing:
// it raises system.service_down or system.capacity_warning once (hot state
// makes it once across API processes too) and stays in the active list until
// the condition clears.
import { recordSamples, type AlertRule } from '../../clickhouse/tables/health.js';
import { newId } from '../../lib/ids.js';
import { publish } from '../../pipeline/bus/consume.js';
import type { HotState } from '../../pipeline/state/types.js';
import { systemEvents } from '../../topics/index.js';
import { findStage } from '../../pipeline/stages.js';
import { TOPOLOGY_STAGES } from '../../pipeline/topologies.js';
import { compare, eventTypeOf, loadRules, observe, type Readings } from './alerts.js';
import type { DiskState, HealthParts } from './process-health.js';
import { readContainers, type ContainerDetail } from './services.js';

export interface ActiveAlert {
  rule_id: string;
  rule_name: string;
  metric: string;
  comparison: string;
  threshold: number;
  severity: string;
  /** The service (or dependency, or "appliance") the value is of. */
  subject: string;
  value: number;
  /** pending: the condition holds but not yet for the rule's `for`; firing: it has, and the event was raised. */
  state: 'pending' | 'firing';
  since: string;
  firing_since: string | null;
  event_type: 'system.service_down' | 'system.capacity_warning';
}

const ACTIVE_KEY = 'health:alerts-active';
const alertKey = (ruleId: string, subject: string) => `health:alert:${ruleId}|${subject}`;

interface Parts extends HealthParts {
  disk(): Promise<DiskState>;
}

export async function activeAlerts(state: HotState): Promise<ActiveAlert[]> {
  const text = await state.get(ACTIVE_KEY);
  return text ? (JSON.parse(text) as ActiveAlert[]) : [];
}

/**
 * History samples and the alert rules go to and come from the store at most
 * this often: on the embedded engine every statement waits for the one
 * before it, and these would otherwise sit between the store stage's inserts
 * every heartbeat (ingest-to-searchable p99 rose about 100 ms at 20,000/s).
 */
const STORE_EVERY_MS = 30_000;

export class HealthMonitor {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private lastSampleAt = 0;
  private rules: { at: number; rules: Awaited<ReturnType<typeof loadRules>> } | null = null;

  constructor(private readonly parts: Parts) {}

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.round()
        .then(() => undefined)
        .catch((err: unknown) => this.parts.logger.warn({ err }, 'health monitor round failed'))
        .finally(() => (this.running = null));
    }, this.parts.config.operations.heartbeatMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }

  /** One look at every service: history samples (every 30 s), then the rules. */
  async round(): Promise<ActiveAlert[]> {
    const { config, state } = this.parts;
    const containers = await readContainers(state, config);
    const now = Date.now();
    if (now - this.lastSampleAt >= Math.min(STORE_EVERY_MS, config.operations.heartbeatMs * 6)) {
      this.lastSampleAt = now;
      await this.recordHistory(containers, now);
    }
    const disk = await this.parts.disk();
    const readings: Readings = { diskUsedRatio: disk.size_bytes > 0 ? 1 - disk.free_bytes / disk.size_bytes : 0, lags: await this.stageLags() };
    const active: ActiveAlert[] = [];
    for (const rule of await this.currentRules(now)) {
      if (!rule.enabled) continue;
      const observations = observe(rule.metric, containers, readings).filter((o) => !rule.service || o.subject === rule.service);
      for (const { subject, value } of observations) {
        const alert = await this.evaluate(rule, subject, value, now);
        if (alert) active.push(alert);
      }
    }
    await state.set(ACTIVE_KEY, JSON.stringify(active), config.operations.heartbeatMs * 10);
    return active;
  }

  /** The rules, read from the store at most every 30 s; a change through the API drops the copy (forgetRules). */
  private async currentRules(now: number) {
    if (!this.rules || now - this.rules.at >= STORE_EVERY_MS) this.rules = { at: now, rules: await loadRules(this.parts.store, this.parts.config) };
    return this.rules.rules;
  }

  /** Rules changed: the next round reads them again. */
  forgetRules(): void {
    this.rules = null;
  }

  /** A sample per instance seen in the last 10 minutes, for the history endpoint. */
  private async recordHistory(containers: ContainerDetail[], now: number): Promise<void> {
    await recordSamples(
      this.parts.store,
      containers.flatMap((c) =>
        c.instances
          .filter((i) => now - Date.parse(i.last_heartbeat) < 10 * 60_000)
          .map((i) => ({
            at: new Date(now).toISOString(),
            service: c.name,
            instance: i.instance,
            up: i.status === 'up',
            cpu_ratio: i.status === 'up' ? i.cpu_ratio : 0,
            memory_bytes: i.status === 'up' ? i.memory_bytes : 0,
            event_loop_lag: i.event_loop_lag_seconds,
            lag: i.lag,
            throughput: i.status === 'up' ? i.throughput : 0,
          })),
      ),
    );
  }

  private async stageLags(): Promise<Record<string, number>> {
    const lags: Record<string, number> = {};
    for (const name of TOPOLOGY_STAGES[this.parts.config.pipeline.topology]) {
      const stage = findStage(name);
      if (stage) lags[name] = await this.parts.bus.lag(name, stage.input);
    }
    return lags;
  }

  private async evaluate(rule: AlertRule, subject: string, value: number, now: number): Promise<ActiveAlert | null> {
    const { state } = this.parts;
    const key = alertKey(rule.id, subject);
    if (!compare(value, rule.comparison, rule.threshold)) {
      if (await state.get(key)) {
        await state.delete(key);
        this.parts.logger.info({ rule: rule.name, subject, value }, 'health alert resolved');
      }
      return null;
    }
    const stored = await state.get(key);
    const since = stored ? (JSON.parse(stored) as { since: number }).since : now;
    if (!stored) await state.set(key, JSON.stringify({ since }), 7 * 86_400_000);
    const firing = now - since >= rule.for_seconds * 1000;
    const alert: ActiveAlert = {
      rule_id: rule.id,
      rule_name: rule.name,
      metric: rule.metric,
      comparison: rule.comparison,
      threshold: rule.threshold,
      severity: rule.severity,
      subject,
      value,
      state: 'pending',
      since: new Date(since).toISOString(),
      firing_since: null,
      event_type: eventTypeOf(rule.metric),
    };
    if (!firing) return alert;
    alert.state = 'firing';
    alert.firing_since = new Date(since + rule.for_seconds * 1000).toISOString();
    // Once per episode (the condition's start), whichever API process gets here first.
    if (await state.setIfAbsent(`health:alert-raised:${rule.id}|${subject}|${since}`, '1', 7 * 86_400_000)) await this.raise(alert);
    return alert;
  }

  private async raise(alert: ActiveAlert): Promise<void> {
    const { bus, config, logger } = this.parts;
    const summary =
      alert.event_type === 'system.service_down'
        ? `${alert.subject} is down (${alert.rule_name})`
        : `${alert.subject}: ${alert.metric} ${alert.comparison} ${alert.threshold} for ${Math.round((Date.parse(alert.firing_since!) - Date.parse(alert.since)) / 1000)} s (now ${alert.value})`;
    await publish(bus, systemEvents, [
      {
        id: newId(),
        type: alert.event_type,
        org_id: config.orgId,
        occurred_at: new Date().toISOString(),
        severity: alert.severity === 'critical' ? 'error' : alert.severity === 'warning' ? 'warning' : 'info',
        summary,
        details: { rule_id: alert.rule_id, rule: alert.rule_name, metric: alert.metric, subject: alert.subject, value: alert.value, threshold: alert.threshold, since: alert.since },
      },
    ]);
    logger.warn({ rule: alert.rule_name, subject: alert.subject, value: alert.value }, 'health alert firing');
  }
}
