// What one cairn process says about itself, every CAIRN_HEARTBEAT_MS: a
// heartbeat per service it runs (the API, each pipeline stage) with CPU,
// memory, event loop lag, the stage's consumer lag and throughput, the state
// of the store, bus and hot state as it sees them, and its Prometheus
// metrics, all into hot state, where the API of any process reads them
// (docs/operations.md). The same numbers feed this process's svc_container_*
// and svc_appliance_* metrics.
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Counter, Gauge, register } from 'prom-client';
import type { Config } from '../../config/env.js';
import type { Store } from '../../clickhouse/client.js';
import type { Logger } from '../../lib/logger.js';
import { recentErrors, type RecentError } from '../../lib/recent-errors.js';
import { VERSION } from '../../lib/version.js';
import type { Bus } from '../../pipeline/bus/index.js';
import { pipelineMetrics } from '../../pipeline/metrics.js';
import type { HotState } from '../../pipeline/state/types.js';
import { findStage } from '../../pipeline/stages.js';
import { HealthMonitor } from './monitor.js';
import { readResources, type Resources } from './resources.js';

export type ServiceKind = 'api' | 'stage';

export interface DependencyState {
  up: boolean;
  latency_ms: number;
  error: string | null;
}

/** One service of one process at one moment, as published to hot state. */
export interface Heartbeat {
  service: string;
  kind: ServiceKind;
  instance: string;
  host: string;
  pid: number;
  version: string;
  started_at: string;
  at: string;
  cpu_ratio: number;
  cpu_seconds: number;
  memory_bytes: number;
  resource_source: Resources['source'];
  event_loop_lag_seconds: number;
  /** A stage's messages waiting on its input topic; null for the API. */
  lag: number | null;
  /** Messages a stage finished (or requests the API answered) per second over the last interval. */
  throughput: number;
  dependencies: Record<string, DependencyState>;
  errors: RecentError[];
}

/** The store, bus and hot state under the names an operator knows them by. */
export function dependencyNames(config: Config): { store: string; bus: string; state: string } {
  return {
    store: config.clickhouse.url ? 'clickhouse' : 'clickhouse-embedded',
    bus: config.kafka ? 'kafka' : 'bus-embedded',
    state: config.redisUrl ? 'redis' : 'state-embedded',
  };
}

export const HEARTBEATS_KEY = 'health:heartbeats';
export const heartbeatKey = (service: string, instance: string) => `health:heartbeat:${service}|${instance}`;
export const metricsKey = (instance: string) => `health:metrics:${instance}`;
export const METRIC_INSTANCES_KEY = 'health:metric-instances';
/** How long a process's last word is kept once it stops talking: down services stay listed this long. */
export const HEARTBEAT_KEEP_MS = 24 * 3_600_000;

const serviceLabels = ['service'] as const;
const containerMetrics = {
  cpu: new Counter({ name: 'svc_container_cpu_seconds_total', help: 'CPU time of the process running the service (user + system)', labelNames: serviceLabels }),
  memory: new Gauge({ name: 'svc_container_memory_bytes', help: 'Resident memory of the process (or its cgroup) running the service', labelNames: serviceLabels }),
  eventLoopLag: new Gauge({ name: 'svc_container_event_loop_lag_seconds', help: 'Event loop delay, 99th percentile over the last interval', labelNames: serviceLabels }),
  restarts: new Counter({ name: 'svc_container_restarts_total', help: 'Times the service started again after its first start (as hot state remembers)', labelNames: serviceLabels }),
  up: new Gauge({ name: 'svc_container_up', help: '1 while the service runs in this process', labelNames: serviceLabels }),
  lag: new Gauge({ name: 'svc_pipeline_consumer_lag_messages', help: 'Messages waiting for a stage on its input topic', labelNames: ['group', 'topic'] as const }),
  dependencyUp: new Gauge({ name: 'svc_dependency_up', help: '1 when the last probe of the dependency succeeded', labelNames: ['dependency'] as const }),
  dependencySeconds: new Gauge({ name: 'svc_dependency_probe_duration_seconds', help: 'Time the last probe of the dependency took', labelNames: ['dependency'] as const }),
};
const applianceMetrics = {
  uptime: new Gauge({ name: 'svc_appliance_uptime_seconds', help: 'Seconds since this cairn process started' }),
  info: new Gauge({ name: 'svc_appliance_info', help: 'Version and mode of this cairn process (always 1)', labelNames: ['version', 'mode', 'topology'] as const }),
  dataDirBytes: new Gauge({ name: 'svc_appliance_data_dir_bytes', help: 'Bytes under the data dir (embedded store, bus, hot state)' }),
  diskFree: new Gauge({ name: 'svc_appliance_disk_free_bytes', help: 'Bytes free on the file system of the data dir' }),
  diskSize: new Gauge({ name: 'svc_appliance_disk_size_bytes', help: 'Size of the file system of the data dir' }),
};

/** Bytes of the files under `dir`; walked at most once a minute, the data dir of an embedded store has many files. */
async function directoryBytes(dir: string): Promise<number> {
  let total = 0;
  let entries: import('node:fs').Dirent[];
  try {
    entries = await fs.readdir(dir, { withFileTypes: true });
  } catch {
    return 0;
  }
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) total += await directoryBytes(full);
    else if (entry.isFile()) total += await fs.stat(full).then((s) => s.size, () => 0);
  }
  return total;
}

export interface DiskState {
  data_dir_bytes: number;
  free_bytes: number;
  size_bytes: number;
}

/** What health needs of the runtime. */
export interface HealthParts {
  config: Config;
  store: Store;
  bus: Bus;
  state: HotState;
  logger: Logger;
}

export class ProcessHealth {
  readonly instance = `${os.hostname()}:${process.pid}`;
  readonly startedAt = new Date();
  private readonly services = new Map<string, ServiceKind>();
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 20 });
  private timer: NodeJS.Timeout | null = null;
  private last = { at: performance.now(), resources: null as Resources | null, handled: new Map<string, number>() };
  private disk: DiskState = { data_dir_bytes: 0, free_bytes: 0, size_bytes: 0 };
  private diskMeasuredAt = 0;
  private dependencies: Record<string, DependencyState> = {};
  private beating: Promise<void> | null = null;
  private monitor: HealthMonitor | null = null;

  constructor(private readonly parts: HealthParts) {
    const { config } = parts;
    applianceMetrics.info.set({ version: VERSION, mode: config.kafka ? 'distributed' : 'embedded', topology: config.pipeline.topology }, 1);
  }

  /** A service this process runs from now on (the API, a stage). */
  async register(service: string, kind: ServiceKind): Promise<void> {
    this.services.set(service, kind);
    containerMetrics.up.set({ service }, 1);
    const starts = await this.parts.state.increment(`health:starts:${service}`, 1);
    if (starts > 1) containerMetrics.restarts.inc({ service }, 1);
    this.start();
    // The first heartbeat now: a freshly started service shows up without waiting an interval.
    await this.beat();
  }

  unregister(service: string): void {
    this.services.delete(service);
    containerMetrics.up.set({ service }, 0);
  }

  runs(service: string): boolean {
    return this.services.has(service);
  }

  private start(): void {
    if (this.timer) return;
    this.loopDelay.enable();
    this.timer = setInterval(() => void this.beat().catch((err: unknown) => this.parts.logger.warn({ err }, 'heartbeat failed')), this.parts.config.operations.heartbeatMs);
    this.timer.unref();
  }

  /** The API's side: evaluates the health of every service (monitor.ts). */
  startMonitor(): HealthMonitor {
    this.monitor ??= new HealthMonitor({ ...this.parts, disk: () => this.diskState() });
    this.monitor.start();
    return this.monitor;
  }

  /** Alert rules changed through this process: its monitor reads them again now (others within 30 s). */
  rulesChanged(): void {
    this.monitor?.forgetRules();
  }

  async close(): Promise<void> {
    await this.monitor?.stop();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.loopDelay.disable();
    await this.beating;
  }

  /** The disk numbers of this process's data dir (refreshed at most once a minute). */
  async diskState(): Promise<DiskState> {
    if (Date.now() - this.diskMeasuredAt > 60_000) {
      this.diskMeasuredAt = Date.now();
      const { dataDir } = this.parts.config;
      const stats = await fs.statfs(dataDir).catch(() => null);
      this.disk = {
        data_dir_bytes: await directoryBytes(dataDir),
        free_bytes: stats ? stats.bavail * stats.bsize : 0,
        size_bytes: stats ? stats.blocks * stats.bsize : 0,
      };
      applianceMetrics.dataDirBytes.set(this.disk.data_dir_bytes);
      applianceMetrics.diskFree.set(this.disk.free_bytes);
      applianceMetrics.diskSize.set(this.disk.size_bytes);
    }
    return this.disk;
  }

  private async probe(name: string, check: () => Promise<unknown>): Promise<void> {
    const started = performance.now();
    let error: string | null = null;
    try {
      await Promise.race([check(), new Promise((_, reject) => setTimeout(() => reject(new Error('no answer within 5 s')), 5000).unref())]);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const seconds = (performance.now() - started) / 1000;
    this.dependencies[name] = { up: error === null, latency_ms: Math.round(seconds * 1000), error };
    containerMetrics.dependencyUp.set({ dependency: name }, error === null ? 1 : 0);
    containerMetrics.dependencySeconds.set({ dependency: name }, seconds);
  }

  private async probeDependencies(): Promise<void> {
    const { config, store, bus, state } = this.parts;
    const names = dependencyNames(config);
    await this.probe(names.store, () => store.query({ query: 'SELECT 1', format: 'JSONEachRow' }).then((r) => r.json()));
    await this.probe(names.bus, () => bus.lag('health-probe', 'system.events'));
    await this.probe(names.state, () => state.get('health:probe'));
  }

  /** Messages a stage finished (or requests the API answered) since the last beat, per second. */
  private async perSecond(service: string, kind: ServiceKind, seconds: number): Promise<number> {
    const counter = kind === 'stage' ? pipelineMetrics.handled : register.getSingleMetric('svc_http_requests_total');
    if (!counter) return 0;
    const values = (await counter.get()).values.filter((v) => kind !== 'stage' || v.labels.group === service);
    const total = values.reduce((sum, v) => sum + v.value, 0);
    const before = this.last.handled.get(service) ?? total;
    this.last.handled.set(service, total);
    return seconds > 0 ? Math.max(0, total - before) / seconds : 0;
  }

  private async beat(): Promise<void> {
    if (this.services.size === 0) return;
    this.beating = this.publish();
    await this.beating;
  }

  private async publish(): Promise<void> {
    const { state, bus } = this.parts;
    const now = performance.now();
    const seconds = (now - this.last.at) / 1000;
    const resources = await readResources();
    const cpuRatio = this.last.resources && seconds > 0 ? Math.max(0, resources.cpuSeconds - this.last.resources.cpuSeconds) / seconds : 0;
    if (this.last.resources) {
      for (const service of this.services.keys()) containerMetrics.cpu.inc({ service }, Math.max(0, resources.cpuSeconds - this.last.resources.cpuSeconds));
    }
    this.last = { ...this.last, at: now, resources };
    const eventLoopLag = this.loopDelay.percentile(99) / 1e9;
    this.loopDelay.reset();
    await this.probeDependencies();
    await this.diskState();
    applianceMetrics.uptime.set((Date.now() - this.startedAt.getTime()) / 1000);

    const at = new Date().toISOString();
    for (const [service, kind] of this.services) {
      const stage = kind === 'stage' ? findStage(service) : undefined;
      const lag = stage ? await bus.lag(service, stage.input).catch(() => null) : null;
      if (stage && lag !== null) containerMetrics.lag.set({ group: service, topic: stage.input }, lag);
      containerMetrics.memory.set({ service }, resources.memoryBytes);
      containerMetrics.eventLoopLag.set({ service }, eventLoopLag);
      const heartbeat: Heartbeat = {
        service,
        kind,
        instance: this.instance,
        host: os.hostname(),
        pid: process.pid,
        version: VERSION,
        started_at: this.startedAt.toISOString(),
        at,
        cpu_ratio: Number(cpuRatio.toFixed(4)),
        cpu_seconds: Number(resources.cpuSeconds.toFixed(3)),
        memory_bytes: resources.memoryBytes,
        resource_source: resources.source,
        event_loop_lag_seconds: Number(eventLoopLag.toFixed(4)),
        lag,
        throughput: Number((await this.perSecond(service, kind, seconds)).toFixed(2)),
        dependencies: this.dependencies,
        errors: recentErrors(service),
      };
      await state.set(heartbeatKey(service, this.instance), JSON.stringify(heartbeat), HEARTBEAT_KEEP_MS);
      await state.windowAdd(HEARTBEATS_KEY, `${service}|${this.instance}`, Date.now(), HEARTBEAT_KEEP_MS);
    }
    // The metrics of this process, for the API of another process to answer for it; one process (embedded) has no other to tell.
    if (!this.parts.config.redisUrl) return;
    const ttl = this.parts.config.operations.heartbeatMs * 4;
    await state.set(metricsKey(this.instance), JSON.stringify(await register.getMetricsAsJSON()), ttl);
    await state.windowAdd(METRIC_INSTANCES_KEY, this.instance, Date.now(), HEARTBEAT_KEEP_MS);
  }
}
