// The services ("containers") of a deployment as the API sees them, from the
// heartbeats every process leaves in hot state: each cairn service (the API,
// each pipeline stage) with its instances, and the store, bus and hot state
// as the processes that use them report them.
import type { Config } from '../../config/env.js';
import type { RecentError } from '../../lib/recent-errors.js';
import type { HotState } from '../../pipeline/state/types.js';
import { dependencyNames, HEARTBEAT_KEEP_MS, heartbeatKey, HEARTBEATS_KEY, type Heartbeat, type ServiceKind } from './process-health.js';

export type ServiceStatus = 'up' | 'degraded' | 'down';
export type ContainerKind = ServiceKind | 'dependency';

export interface InstanceView {
  instance: string;
  host: string;
  pid: number;
  status: 'up' | 'down';
  version: string;
  started_at: string;
  last_heartbeat: string;
  cpu_ratio: number;
  memory_bytes: number;
  resource_source: 'cgroup' | 'process';
  event_loop_lag_seconds: number;
  lag: number | null;
  throughput: number;
}

export interface ContainerView {
  name: string;
  kind: ContainerKind;
  status: ServiceStatus;
  /** Why it is degraded or down, in a few words; null when up. */
  reason: string | null;
  instances_up: number;
  instances_total: number;
  last_heartbeat: string | null;
  cpu_ratio: number;
  memory_bytes: number;
  event_loop_lag_seconds: number;
  lag: number | null;
  throughput: number;
}

export interface ContainerDetail extends ContainerView {
  instances: InstanceView[];
  errors: (RecentError & { instance: string })[];
  /** For a dependency: what each process reports about it. */
  reports: { instance: string; up: boolean; latency_ms: number; error: string | null; at: string }[];
}

/** An instance is live while its heartbeats keep coming: three missed intervals make it down. */
export function liveWindowMs(config: Config): number {
  return config.operations.heartbeatMs * 3 + 1000;
}

async function readHeartbeats(state: HotState): Promise<Heartbeat[]> {
  const now = Date.now();
  const members = await state.windowMembers(HEARTBEATS_KEY, now - HEARTBEAT_KEEP_MS, now + 60_000);
  const beats: Heartbeat[] = [];
  for (const member of members) {
    const [service, instance] = member.split('|') as [string, string];
    const text = await state.get(heartbeatKey(service, instance));
    if (text) beats.push(JSON.parse(text) as Heartbeat);
  }
  return beats;
}

function instanceView(beat: Heartbeat, live: boolean): InstanceView {
  return {
    instance: beat.instance,
    host: beat.host,
    pid: beat.pid,
    status: live ? 'up' : 'down',
    version: beat.version,
    started_at: beat.started_at,
    last_heartbeat: beat.at,
    cpu_ratio: beat.cpu_ratio,
    memory_bytes: beat.memory_bytes,
    resource_source: beat.resource_source,
    event_loop_lag_seconds: beat.event_loop_lag_seconds,
    lag: beat.lag,
    throughput: beat.throughput,
  };
}

const latest = (times: string[]): string | null => (times.length ? times.reduce((a, b) => (a > b ? a : b)) : null);

/** Every service and dependency, by name. */
export async function readContainers(state: HotState, config: Config): Promise<ContainerDetail[]> {
  const now = Date.now();
  const beats = await readHeartbeats(state);
  const isLive = (beat: Heartbeat) => now - Date.parse(beat.at) <= liveWindowMs(config);
  const byService = new Map<string, Heartbeat[]>();
  for (const beat of beats) byService.set(beat.service, [...(byService.get(beat.service) ?? []), beat]);

  const containers: ContainerDetail[] = [];
  for (const [name, serviceBeats] of byService) {
    const live = serviceBeats.filter(isLive);
    const instances = serviceBeats.map((b) => instanceView(b, isLive(b))).sort((a, b) => b.last_heartbeat.localeCompare(a.last_heartbeat));
    const failing = live.flatMap((b) => Object.entries(b.dependencies).filter(([, d]) => !d.up).map(([dep]) => dep));
    const status: ServiceStatus = live.length === 0 ? 'down' : failing.length > 0 ? 'degraded' : 'up';
    const lags = live.map((b) => b.lag).filter((l): l is number => l !== null);
    containers.push({
      name,
      kind: serviceBeats[0]!.kind,
      status,
      reason: status === 'down' ? `no heartbeat for ${Math.round((now - Date.parse(latest(serviceBeats.map((b) => b.at))!)) / 1000)} s` : status === 'degraded' ? `cannot reach ${[...new Set(failing)].join(', ')}` : null,
      instances_up: live.length,
      instances_total: serviceBeats.length,
      last_heartbeat: latest(serviceBeats.map((b) => b.at)),
      cpu_ratio: Number(live.reduce((sum, b) => sum + b.cpu_ratio, 0).toFixed(4)),
      memory_bytes: live.reduce((sum, b) => sum + b.memory_bytes, 0),
      event_loop_lag_seconds: Math.max(0, ...live.map((b) => b.event_loop_lag_seconds)),
      lag: lags.length ? Math.max(...lags) : null,
      throughput: Number(live.reduce((sum, b) => sum + b.throughput, 0).toFixed(2)),
      instances,
      errors: serviceBeats
        .flatMap((b) => b.errors.map((e) => ({ ...e, instance: b.instance })))
        .sort((a, b) => b.at.localeCompare(a.at))
        .slice(0, 20),
      reports: [],
    });
  }

  // Dependencies, as the live processes report them (one report per process: the first service's heartbeat carries it).
  const reporters = new Map<string, Heartbeat>();
  for (const beat of beats.filter(isLive)) if (!reporters.has(beat.instance)) reporters.set(beat.instance, beat);
  for (const name of Object.values(dependencyNames(config))) {
    const reports = [...reporters.values()].flatMap((b) => (b.dependencies[name] ? [{ instance: b.instance, ...b.dependencies[name], at: b.at }] : []));
    const upCount = reports.filter((r) => r.up).length;
    const status: ServiceStatus = reports.length === 0 ? 'down' : upCount === reports.length ? 'up' : upCount > 0 ? 'degraded' : 'down';
    const error = reports.find((r) => !r.up)?.error ?? null;
    containers.push({
      name,
      kind: 'dependency',
      status,
      reason: reports.length === 0 ? 'no live cairn process reports it' : status === 'up' ? null : error,
      instances_up: upCount,
      instances_total: reports.length,
      last_heartbeat: latest(reports.map((r) => r.at)),
      cpu_ratio: 0,
      memory_bytes: 0,
      event_loop_lag_seconds: 0,
      lag: null,
      throughput: 0,
      instances: [],
      errors: reports.filter((r) => !r.up).map((r) => ({ at: r.at, message: r.error ?? 'probe failed', instance: r.instance })),
      reports,
    });
  }
  const order: Record<ContainerKind, number> = { api: 0, stage: 1, dependency: 2 };
  return containers.sort((a, b) => order[a.kind] - order[b.kind] || a.name.localeCompare(b.name));
}

export function summary(detail: ContainerDetail): ContainerView {
  const { instances: _i, errors: _e, reports: _r, ...view } = detail;
  return view;
}
