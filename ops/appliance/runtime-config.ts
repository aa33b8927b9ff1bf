// The runtime settings an operator tunes without a restart (SPEC 4.11
// appliance config; docs/operations.md). The environment gives the defaults;
// what an operator sets through PUT /v1/appliance/config is stored (settings
// table, "appliance") and every process applies it within one heartbeat
// interval by writing it into its live configuration, which the code reads
// at use (ingest limit per request, correlation bounds per lead, rule
// refresh per wait, graph scopes per read, retention as the tables' TTL).
import { z } from 'zod';
import { frameworkScopes, frameworkScopesText, scopeList, scopeListText, type Config } from '../../config/env.js';
import type { Store } from '../../clickhouse/client.js';
import { applyRetention } from '../../clickhouse/retention.js';
import { readSetting, writeSetting } from '../../clickhouse/tables/settings.js';
import { DURATION_PATTERN, formatDuration, parseDuration } from '../../lib/duration.js';
import type { Logger } from '../../lib/logger.js';

const SETTING = 'appliance';

const Duration = z.string().regex(DURATION_PATTERN, 'must be a duration such as 30m, 1h or 1d');

/** Each field as an operator writes it (the same forms as the environment variables). */
export const ApplianceSettings = z.object({
  artifact_retention_days: z.int().min(1).max(36_500).describe('CAIRN_ARTIFACT_RETENTION_DAYS: days artifacts and events are kept'),
  ingest_max_lag: z.int().min(1).max(1_000_000_000).describe('CAIRN_INGEST_MAX_LAG: ingest answers 429 while a stage is further behind than this'),
  correlation_window: Duration.describe('CAIRN_CORRELATION_WINDOW: leads sharing a node this close in time join one incident'),
  rule_refresh_ms: z.int().min(100).max(600_000).describe('CAIRN_RULE_REFRESH_MS: how often lead rules are reloaded'),
  internal_networks: z.string().max(20_000).describe('CAIRN_INTERNAL_NETWORKS: CIDRs, *.domain suffixes and names, comma-separated'),
  managed: z.string().max(20_000).describe('CAIRN_MANAGED'),
  trusted: z.string().max(20_000).describe('CAIRN_TRUSTED'),
  infrastructure: z.string().max(20_000).describe('CAIRN_INFRASTRUCTURE'),
  framework_scopes: z.string().max(20_000).describe('CAIRN_FRAMEWORK_SCOPES: "index=scope list;..."'),
  cert_expiry_warn_days: z.int().min(1).max(365).describe('CAIRN_CERT_EXPIRY_WARN_DAYS: days before expiry a certificate raises system.cert_expiring'),
});
export type ApplianceSettings = z.infer<typeof ApplianceSettings>;
export type ApplianceField = keyof ApplianceSettings;

/** A change: any subset; null returns a field to its environment default. */
export const ApplianceChange = ApplianceSettings.partial()
  .extend(Object.fromEntries(Object.keys(ApplianceSettings.shape).map((k) => [k, ApplianceSettings.shape[k as ApplianceField].nullable().optional()])) as {
    [K in ApplianceField]: z.ZodOptional<z.ZodNullable<(typeof ApplianceSettings.shape)[K]>>;
  })
  .strict()
  .refine((c) => Object.values(c).some((v) => v !== undefined), 'give at least one setting to change')
  .superRefine((c, ctx) => {
    for (const field of ['internal_networks', 'managed', 'trusted', 'infrastructure'] as const) {
      const value = c[field];
      if (typeof value === 'string' && !scopeList.safeParse(value).success) ctx.addIssue({ code: 'custom', path: [field], message: `${field} must be a comma-separated list of CIDRs, *.domain suffixes and names` });
    }
    if (typeof c.framework_scopes === 'string' && !frameworkScopes.safeParse(c.framework_scopes).success) {
      ctx.addIssue({ code: 'custom', path: ['framework_scopes'], message: 'framework_scopes must be "index=entries;..." e.g. 1=10.20.0.0/16,*.pay.example.com' });
    }
  });
export type ApplianceChange = z.infer<typeof ApplianceChange>;

/** The settings a configuration holds now. */
export function settingsOf(config: Config): ApplianceSettings {
  return {
    artifact_retention_days: config.artifactRetentionDays,
    ingest_max_lag: config.ingestMaxLag,
    correlation_window: formatDuration(config.correlation.windowMs),
    rule_refresh_ms: config.pipeline.ruleRefreshMs,
    internal_networks: scopeListText(config.graph.internal),
    managed: scopeListText(config.graph.managed),
    trusted: scopeListText(config.graph.trusted),
    infrastructure: scopeListText(config.graph.infrastructure),
    framework_scopes: frameworkScopesText(config.graph.frameworks),
    cert_expiry_warn_days: config.operations.certExpiryWarnDays,
  };
}

/** Writes settings into a live configuration (every reader sees them on its next use). */
function apply(config: Config, settings: ApplianceSettings): void {
  config.artifactRetentionDays = settings.artifact_retention_days;
  config.ingestMaxLag = settings.ingest_max_lag;
  config.correlation.windowMs = parseDuration(settings.correlation_window);
  config.pipeline.ruleRefreshMs = settings.rule_refresh_ms;
  config.graph.internal = scopeList.parse(settings.internal_networks);
  config.graph.managed = scopeList.parse(settings.managed);
  config.graph.trusted = scopeList.parse(settings.trusted);
  config.graph.infrastructure = scopeList.parse(settings.infrastructure);
  config.graph.frameworks = frameworkScopes.parse(settings.framework_scopes);
  config.operations.certExpiryWarnDays = settings.cert_expiry_warn_days;
}

export interface StoredAppliance {
  /** Only the fields an operator set. */
  values: Partial<ApplianceSettings>;
  updated_at: string | null;
  updated_by: string | null;
}

export async function readStored(store: Store, config: Config): Promise<StoredAppliance> {
  const stored = await readSetting(store, config.orgId, SETTING);
  if (!stored) return { values: {}, updated_at: null, updated_by: null };
  return { values: ApplianceSettings.partial().parse(stored.value), updated_at: stored.updated_at, updated_by: stored.updated_by };
}

export async function saveStored(store: Store, config: Config, values: Partial<ApplianceSettings>, updatedBy: string): Promise<void> {
  await writeSetting(store, config.orgId, SETTING, values, updatedBy);
}

/** Keeps a process's configuration in step with the stored settings (environment values where none is stored). */
export class ApplianceConfigWatcher {
  private readonly defaults: ApplianceSettings;
  private appliedAt: string | null = null;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly parts: { config: Config; store: Store; logger: Logger },
  ) {
    this.defaults = settingsOf(parts.config);
  }

  /** The environment's value of every field. */
  environment(): ApplianceSettings {
    return { ...this.defaults };
  }

  async start(): Promise<void> {
    await this.sync();
    this.timer = setInterval(() => void this.sync().catch((err: unknown) => this.parts.logger.warn({ err }, 'could not read the appliance config')), this.parts.config.operations.heartbeatMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Applies the stored settings if they changed since the last look. */
  async sync(): Promise<void> {
    const { config, store, logger } = this.parts;
    const stored = await readStored(store, config);
    if (stored.updated_at === this.appliedAt) return;
    const before = settingsOf(config);
    const next = { ...this.defaults, ...stored.values };
    apply(config, next);
    if (before.artifact_retention_days !== next.artifact_retention_days) await applyRetention(store, next.artifact_retention_days);
    if (this.appliedAt !== null || stored.updated_at !== null) logger.info({ updatedBy: stored.updated_by, at: stored.updated_at }, 'appliance config applied');
    this.appliedAt = stored.updated_at;
  }
}
