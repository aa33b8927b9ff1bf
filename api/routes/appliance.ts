// The appliance (SPEC 2.13, 4.11; docs/operations.md): its health in one
// line, what it holds and how fast it works, and the runtime settings an
// operator changes without a restart.
import { register } from 'prom-client';
import { z } from 'zod';
import { orgTotals, tableSizes } from '../../clickhouse/tables/appliance-stats.js';
import { isEmbedded } from '../../config/env.js';
import { VERSION } from '../../lib/version.js';
import { ApplianceChange, ApplianceSettings, readStored, saveStored, type ApplianceField } from '../../ops/appliance/runtime-config.js';
import { readContainers } from '../../ops/health/services.js';
import { findStage } from '../../pipeline/stages.js';
import { TOPOLOGY_STAGES } from '../../pipeline/topologies.js';
import type { ApiDeps } from '../deps.js';
import { apiMetrics } from '../metrics.js';
import { defineRoute } from '../route.js';
import { raiseConfigChanged } from '../system-events.js';
import { Timestamp } from '../schemas.js';
import { STATUS_NAMES } from './incidents.js';

/** "3d 4h 12m": days and hours only when there are any, minutes always. */
export function humanUptime(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  const [d, h, m] = [Math.floor(minutes / 1440), Math.floor((minutes % 1440) / 60), minutes % 60];
  return [d ? `${d}d` : '', d || h ? `${h}h` : '', `${m}m`].filter(Boolean).join(' ');
}

async function counterTotal(name: 'ingested' | 'throttled', label?: string): Promise<number> {
  const values = (await apiMetrics[name].get()).values;
  return values.filter((v) => !label || v.labels.outcome === label).reduce((sum, v) => sum + v.value, 0);
}

/** A counter of the default registry summed by one label (the syslog listeners' counters, ingest/syslog/metrics.ts). */
async function totalsBy(metricName: string, label: string): Promise<Record<string, number>> {
  const metric = register.getSingleMetric(metricName);
  const totals: Record<string, number> = {};
  if (!metric) return totals;
  for (const v of (await metric.get()).values) {
    const key = String(v.labels[label]);
    totals[key] = (totals[key] ?? 0) + v.value;
  }
  return totals;
}

async function gaugeValue(metricName: string): Promise<number> {
  const metric = register.getSingleMetric(metricName);
  return metric ? (await metric.get()).values.reduce((sum, v) => sum + v.value, 0) : 0;
}

const ConfigAnswer = ApplianceSettings.extend({
  stored: z.array(z.string()).describe('the settings an operator set; the others are the environment\'s'),
  updated_at: Timestamp.nullable(),
  updated_by: z.string().nullable(),
});

async function configAnswer(deps: ApiDeps): Promise<z.input<typeof ConfigAnswer>> {
  const stored = await readStored(deps.store, deps.config);
  return { ...deps.appliance.environment(), ...stored.values, stored: Object.keys(stored.values), updated_at: stored.updated_at, updated_by: stored.updated_by };
}

export const applianceRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/appliance/health',
    summary: 'The appliance in one line: {success, data: {status, role, uptime, version}} (no message)',
    description: 'status: healthy (every service and dependency up), degraded (something degraded, or a service down while the store answers), unhealthy (the store or the API is down). role: standalone (the embedded default, one process) or api (this API process of a distributed deployment). uptime: of this process, e.g. "3d 4h 12m".',
    tag: 'Appliance',
    permission: 'health:read',
    envelope: false,
    response: z.object({
      success: z.literal(true),
      data: z.object({ status: z.enum(['healthy', 'degraded', 'unhealthy']), role: z.enum(['standalone', 'api']), uptime: z.string(), version: z.string() }),
    }),
    async handler({ deps }) {
      const containers = await readContainers(deps.state, deps.config);
      const store = containers.find((c) => c.kind === 'dependency' && c.name.startsWith('clickhouse'));
      const critical = store?.status === 'down' || containers.find((c) => c.name === 'api')?.status === 'down';
      const status = critical ? 'unhealthy' : containers.every((c) => c.status === 'up') ? 'healthy' : 'degraded';
      const data = { status, role: isEmbedded(deps.config) ? 'standalone' : 'api', uptime: humanUptime(Date.now() - deps.health.startedAt.getTime()), version: VERSION } as const;
      return { message: status, data: { success: true as const, data } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/appliance/stats',
    summary: 'What the appliance holds and how fast it works: ingest counts and rates, totals of the caller\'s organization, bytes per table, lag per stage, disk',
    tag: 'Appliance',
    permission: 'metrics:read',
    response: z.object({
      ingest: z.object({
        accepted_total: z.number().describe('artifacts this API process accepted since it started'),
        rejected_total: z.number(),
        throttled_total: z.number().describe('ingest requests answered 429 (pipeline behind)'),
        stored_per_second: z.number().describe('artifacts the store stage made searchable per second over the last heartbeat interval (all instances)'),
        analysed_per_second: z.number().describe('artifacts the analysis (or parser) stage finished per second'),
        syslog: z
          .object({
            messages: z.record(z.string(), z.number()).describe('syslog messages this process read since it started, by outcome: accepted, truncated, dead_lettered, dropped_rate_limit, dropped_lag, dropped_bus_refused, dropped_connection_lost'),
            refused: z.record(z.string(), z.number()).describe('connections (datagrams for UDP) refused or closed, by reason: not_allowed, too_many_connections, idle_timeout, tls_handshake_failed, protocol_error'),
            udp_socket_drops: z.number().describe('datagrams the kernel dropped on the UDP socket because cairn did not read them in time'),
          })
          .describe('the syslog listeners (docs/syslog.md)'),
      }),
      totals: z.object({
        artifacts: z.number(),
        events: z.number().describe('parsed events (a replay not yet merged away may count twice)'),
        nodes: z.number(),
        edges: z.number(),
        observations: z.number(),
        leads: z.number(),
        incidents: z.number(),
        incidents_by_status: z.record(z.string(), z.number()).describe('by status name: New, Investigating, Resolved, Closed, Disrupted'),
      }),
      tables: z.array(z.object({ table: z.string(), rows: z.number().describe('rows in active parts, versions not yet merged included'), bytes_on_disk: z.number() })),
      lag: z.record(z.string(), z.number()).describe('messages waiting per pipeline stage of the topology'),
      disk: z.object({ data_dir_bytes: z.number(), free_bytes: z.number(), size_bytes: z.number(), used_ratio: z.number() }),
    }),
    async handler({ auth, deps }) {
      const containers = await readContainers(deps.state, deps.config);
      const rate = (names: string[]) => containers.filter((c) => names.includes(c.name)).reduce((sum, c) => sum + c.throughput, 0);
      const lag: Record<string, number> = {};
      for (const name of TOPOLOGY_STAGES[deps.config.pipeline.topology]) lag[name] = await deps.bus.lag(name, findStage(name)!.input);
      const totals = await orgTotals(deps.store, auth.orgId);
      const disk = await deps.health.diskState();
      return {
        message: `${totals.artifacts} artifact(s), ${totals.incidents} incident(s)`,
        data: {
          ingest: {
            accepted_total: await counterTotal('ingested', 'accepted'),
            rejected_total: await counterTotal('ingested', 'rejected'),
            throttled_total: await counterTotal('throttled'),
            stored_per_second: rate(['store']),
            analysed_per_second: rate(['analysis', 'parser']),
            syslog: {
              messages: await totalsBy('svc_syslog_messages_total', 'outcome'),
              refused: await totalsBy('svc_syslog_refused_total', 'reason'),
              udp_socket_drops: await gaugeValue('svc_syslog_udp_socket_drops'),
            },
          },
          totals: { ...totals, incidents_by_status: Object.fromEntries(Object.entries(totals.incidents_by_status).map(([status, n]) => [STATUS_NAMES[Number(status)] ?? status, n])) },
          tables: await tableSizes(deps.store),
          lag,
          disk: { ...disk, used_ratio: disk.size_bytes > 0 ? Number((1 - disk.free_bytes / disk.size_bytes).toFixed(4)) : 0 },
        },
      };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/appliance/config',
    summary: 'The runtime settings (retention, ingest limit, correlation window, rule refresh, scopes, certificate warning), with which ones an operator set',
    tag: 'Appliance',
    permission: 'settings:read',
    response: ConfigAnswer,
    async handler({ deps }) {
      return { message: 'Appliance config', data: await configAnswer(deps) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/appliance/config',
    summary: 'Change runtime settings; only the fields given change, null returns one to its environment default. Every process applies the change within one heartbeat interval (CAIRN_HEARTBEAT_MS), without a restart',
    tag: 'Appliance',
    permission: 'settings:manage',
    body: ApplianceChange,
    response: ConfigAnswer,
    errors: [503],
    async handler({ body, auth, deps, ctx }) {
      const before = await configAnswer(deps);
      const stored = { ...(await readStored(deps.store, deps.config)).values } as Record<string, unknown>;
      const fields: string[] = [];
      for (const [field, value] of Object.entries(body) as [ApplianceField, unknown][]) {
        if (value === undefined) continue;
        if (value === null) delete stored[field];
        else stored[field] = value;
        fields.push(field);
      }
      await saveStored(deps.store, deps.config, stored, auth.email ?? auth.subject);
      // This process applies it now; the others on their next look.
      await deps.appliance.sync();
      await raiseConfigChanged(deps, ctx, auth, { setting: 'appliance', summary: `appliance config changed (${fields.join(', ')})`, details: { fields } });
      const after = await configAnswer(deps);
      return { message: `Appliance config changed: ${fields.join(', ')}`, data: after, audit: { before } };
    },
  }),
];
