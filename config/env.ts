// The one place that reads process.env. Every variable is parsed by zod at
// start; a bad value stops the process with a message naming the variable.
import os from 'node:os';
import path from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { DURATION_PATTERN, parseDuration } from '../lib/duration.js';
import { outboundPolicy, type OutboundPolicy } from '../lib/outbound/client.js';
import { LOG_FORMATS, type LogFormat } from '../lib/logger.js';

/** Empty strings count as unset, so `FOO=` in a compose file means "default". */
function optional<T extends z.ZodType>(schema: T) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.optional());
}

/** The default goes through the schema too, so a default list is parsed like a set one. */
/** Pipeline topologies (pipeline/stages.ts says what each runs). */
export const TOPOLOGIES = ['fused', 'staged'] as const;
export type Topology = (typeof TOPOLOGIES)[number];

/** Analysis worker threads: one per core beyond the main thread's (the main thread and the embedded engine keep one busy). */
const DEFAULT_WORKERS = Math.max(1, os.availableParallelism() - 1);

function withDefault<T extends z.ZodType>(schema: T, fallback: z.input<T>) {
  return z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), schema.prefault(fallback as never));
}

/** "false" is a truthy string, so booleans are parsed explicitly. */
const booleanString = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const port = z.coerce.number().int().min(0).max(65535);
const positiveInt = z.coerce.number().int().min(1);
const url = z.string().url();

const brokerList = z
  .string()
  .transform((v) => v.split(',').map((b) => b.trim()).filter(Boolean))
  .pipe(z.array(z.string().regex(/^[^:\s]+:\d+$/, 'each broker must be host:port')).min(1));

const jwtSecret = z.string().min(32, 'must be at least 32 characters (HS256 needs a long random secret)');

/** 32 bytes, written as 64 hex characters or as base64. */
const masterKey = z.string().transform((v, ctx) => {
  const key = /^[0-9a-fA-F]{64}$/.test(v) ? Buffer.from(v, 'hex') : Buffer.from(v, 'base64');
  if (key.length !== 32) {
    ctx.addIssue({ code: 'custom', message: 'must be 32 bytes as 64 hex characters or base64' });
    return z.NEVER;
  }
  return key;
});

/** One entry of a scope list: a CIDR, a domain suffix (*.example.com) or an exact name. */
export type ScopeEntry = { kind: 'cidr'; cidr: string } | { kind: 'suffix'; domain: string } | { kind: 'name'; name: string };

function parseScopeEntry(text: string): ScopeEntry {
  const entry = text.trim().toLowerCase();
  if (entry.includes('/')) {
    const [address, bits] = ipaddr.parseCIDR(entry); // throws on a malformed CIDR
    return { kind: 'cidr', cidr: `${address.toString()}/${bits}` };
  }
  if (entry.startsWith('*.')) return { kind: 'suffix', domain: entry.slice(2) };
  return { kind: 'name', name: entry };
}

/** A scope list as written in the environment (and in the appliance config). */
export const scopeList = z.string().transform((v, ctx) => {
  try {
    return v.split(',').map((e) => e.trim()).filter(Boolean).map(parseScopeEntry);
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of CIDRs, *.domain suffixes and names (${(err as Error).message})` });
    return z.NEVER;
  }
});

/** "1=10.20.0.0/16,db01;3=*.pay.example.com": framework index = scope list, separated by semicolons. */
export const frameworkScopes = z.string().transform((v, ctx) => {
  const scopes: { index: number; entries: ScopeEntry[] }[] = [];
  for (const part of v.split(';').map((p) => p.trim()).filter(Boolean)) {
    const match = /^(\d{1,3})\s*=\s*(.+)$/.exec(part);
    const entries = match ? scopeList.safeParse(match[2]) : null;
    if (!match || !entries?.success) {
      ctx.addIssue({ code: 'custom', message: `"${part}" is not index=entries (e.g. 1=10.20.0.0/16,*.pay.example.com)` });
      return z.NEVER;
    }
    scopes.push({ index: Number(match[1]), entries: entries.data });
  }
  return scopes;
});

/** A scope list written back as text, e.g. for the appliance config. */
export function scopeListText(entries: ScopeEntry[]): string {
  return entries.map((e) => (e.kind === 'cidr' ? e.cidr : e.kind === 'suffix' ? `*.${e.domain}` : e.name)).join(',');
}

export function frameworkScopesText(scopes: GraphScopes['frameworks']): string {
  return scopes.map((s) => `${s.index}=${scopeListText(s.entries)}`).join(';');
}

/** A duration such as 30m, 1h or 1d (lib/duration.ts), checked here so a bad value names its variable. */
const duration = z.string().regex(DURATION_PATTERN, 'must be a duration such as 30m, 1h or 1d').transform(parseDuration);

/** Hosts and CIDRs the guarded outbound client may reach although private or loopback. */
const outboundAllow = z.string().transform((v, ctx) => {
  try {
    return outboundPolicy(v.split(','));
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of host names and CIDRs (${(err as Error).message})` });
    return z.NEVER;
  }
});

/** CIDRs, each checked (the syslog listeners' allow list). */
const cidrList = z.string().transform((v, ctx) => {
  try {
    return v.split(',').map((e) => e.trim()).filter(Boolean).map((entry) => {
      const [address, bits] = ipaddr.parseCIDR(entry);
      return `${address.toString()}/${bits}`;
    });
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: `must be a comma-separated list of CIDRs (${(err as Error).message})` });
    return z.NEVER;
  }
});

/** One rule of CAIRN_SYSLOG_SOURCES: messages from a CIDR, or with a syslog app-name, get a source name. */
export type SyslogSourceRule = { kind: 'cidr'; cidr: string; source: string } | { kind: 'app'; app: string; source: string };

/** "10.1.0.0/16=firewall,suricata=suricata": the first rule that matches a message names its source. */
const syslogSources = z.string().transform((v, ctx) => {
  const rules: SyslogSourceRule[] = [];
  for (const part of v.split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^([^=\s]+)\s*=\s*([A-Za-z0-9._-]{1,128})$/.exec(part);
    if (!match) {
      ctx.addIssue({ code: 'custom', message: `"${part}" is not cidr=source or app-name=source (e.g. 10.1.0.0/16=firewall,suricata=suricata)` });
      return z.NEVER;
    }
    const [, key, source] = match as unknown as [string, string, string];
    if (key.includes('/')) {
      try {
        const [address, bits] = ipaddr.parseCIDR(key);
        rules.push({ kind: 'cidr', cidr: `${address.toString()}/${bits}`, source });
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: `"${key}" is not a CIDR (${(err as Error).message})` });
        return z.NEVER;
      }
    } else {
      rules.push({ kind: 'app', app: key, source });
    }
  }
  return rules;
});

const timezoneOffset = z.string().regex(/^(Z|UTC|[+-]\d{2}:\d{2})$/, 'must be an offset such as +02:00, or UTC');

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

const EnvSchema = z.object({
  PORT: withDefault(port, 8080),
  HOST: withDefault(z.string(), '0.0.0.0'),
  CAIRN_DATA_DIR: withDefault(z.string(), './data'),
  CAIRN_CLICKHOUSE_URL: optional(url),
  CAIRN_CLICKHOUSE_USER: withDefault(z.string(), 'default'),
  CAIRN_CLICKHOUSE_PASSWORD: withDefault(z.string(), ''),
  CAIRN_CLICKHOUSE_DATABASE: withDefault(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier'), 'cairn'),
  CAIRN_KAFKA_BROKERS: optional(brokerList),
  CAIRN_KAFKA_PARTITIONS: withDefault(positiveInt, 3),
  CAIRN_KAFKA_CLIENT_ID: withDefault(z.string(), 'cairn'),
  CAIRN_KAFKA_TOPIC_PREFIX: withDefault(z.string().regex(/^[A-Za-z0-9._-]*$/, 'may hold only letters, digits, dot, underscore and dash'), ''),
  // A broker refuses sessions outside its group.min/max.session.timeout.ms (6 s and 30 min by default).
  CAIRN_KAFKA_SESSION_TIMEOUT_MS: withDefault(z.coerce.number().int().min(6000).max(1_800_000), 30_000),
  CAIRN_REDIS_URL: optional(z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')),
  CAIRN_SCHEMA_REGISTRY_URL: optional(url),
  CAIRN_JWT_SECRET: optional(jwtSecret),
  CAIRN_MASTER_KEY: optional(masterKey),
  CAIRN_ORG_ID: withDefault(z.string().min(1), 'default'),
  CAIRN_LOG_LEVEL: withDefault(logLevel, 'info'),
  CAIRN_LOG_FORMAT: optional(z.enum(LOG_FORMATS, { message: `must be one of: ${LOG_FORMATS.join(', ')}` })),
  CAIRN_VALIDATE_RESPONSES: optional(booleanString),
  CAIRN_BUS_SEGMENT_BYTES: withDefault(positiveInt, 64 * 1024 * 1024),
  CAIRN_ARTIFACT_RETENTION_DAYS: withDefault(positiveInt.max(36500), 90),
  CAIRN_INGEST_MAX_LAG: withDefault(positiveInt, 2_000_000),
  CAIRN_STORE_BATCH_SIZE: withDefault(positiveInt.max(200_000), 20_000),
  // Under load a batch fills while the previous one is written, so a long wait mostly delays search; a short
  // one makes more, smaller inserts, whose engine time the analysis then lacks. 100 ms was the middle of 50, 100
  // and 250 measured (bench/README.md, "Throughput, fourth pass").
  CAIRN_STORE_BATCH_WAIT_MS: withDefault(z.coerce.number().int().min(0).max(60_000), 100),
  CAIRN_LOG_TIMEZONE: withDefault(timezoneOffset, 'UTC'),
  CAIRN_RULE_REFRESH_MS: withDefault(z.coerce.number().int().min(100).max(600_000), 2000),
  CAIRN_DEFAULT_RULES: withDefault(z.enum(['on', 'off'], { message: 'must be on or off' }), 'on'),
  CAIRN_PIPELINE_TOPOLOGY: withDefault(z.enum(TOPOLOGIES), 'fused'),
  CAIRN_PIPELINE_WORKERS: withDefault(z.coerce.number().int().min(0).max(64), DEFAULT_WORKERS),
  CAIRN_REPROCESS_SLICE: withDefault(positiveInt.max(200_000), 10_000),
  CAIRN_OUTBOUND_ALLOW: withDefault(outboundAllow, ''),
  CAIRN_URL: optional(url),
  CAIRN_TOKEN: optional(z.string()),
  CAIRN_CORRELATION_WINDOW: withDefault(duration, '1h'),
  CAIRN_INCIDENT_MAX_SPAN: withDefault(duration, '12h'),
  CAIRN_INCIDENT_MAX_LEADS: withDefault(positiveInt.max(10_000), 100),
  CAIRN_CORRELATION_HUB_LIMIT: withDefault(positiveInt.max(10_000), 10),
  CAIRN_INTERNAL_NETWORKS: withDefault(scopeList, '10.0.0.0/8,172.16.0.0/12,192.168.0.0/16,fc00::/7'),
  CAIRN_MANAGED: withDefault(scopeList, ''),
  CAIRN_TRUSTED: withDefault(scopeList, ''),
  CAIRN_INFRASTRUCTURE: withDefault(scopeList, ''),
  CAIRN_FRAMEWORK_SCOPES: withDefault(frameworkScopes, ''),
  CAIRN_PUBLIC_URL: optional(url),
  CAIRN_TRUST_PROXY: withDefault(booleanString, 'false'),
  CAIRN_ADMIN_EMAIL: optional(z.email('must be an email address')),
  CAIRN_ADMIN_PASSWORD: optional(z.string().min(12, 'must be at least 12 characters')),
  CAIRN_ACCESS_TOKEN_TTL: withDefault(duration, '15m'),
  CAIRN_SESSION_IDLE_TIMEOUT: withDefault(duration, '30m'),
  CAIRN_SESSION_MAX_AGE: withDefault(duration, '12h'),
  CAIRN_LOGIN_MAX_FAILURES: withDefault(positiveInt.max(1000), 5),
  CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS: withDefault(positiveInt.max(100_000), 20),
  CAIRN_LOGIN_FAILURE_WINDOW: withDefault(duration, '15m'),
  CAIRN_PASSWORD_KDF_COST: withDefault(z.coerce.number().int().min(10).max(20), 15),
  CAIRN_TLS_PORT: optional(port),
  CAIRN_OTLP_PORT: optional(port),
  CAIRN_CLICKHOUSE_HTTP_PORT: optional(port),
  CAIRN_CLICKHOUSE_HTTP_HOST: withDefault(z.string().min(1), '127.0.0.1'),
  CAIRN_CLICKHOUSE_HTTP_MAX_EXECUTION_TIME: withDefault(z.coerce.number().int().min(1).max(3600), 60),
  CAIRN_CLICKHOUSE_HTTP_MAX_MEMORY: withDefault(z.coerce.number().int().min(1_000_000), 2_000_000_000),
  CAIRN_SYSLOG_UDP_PORT: optional(port),
  CAIRN_SYSLOG_TCP_PORT: optional(port),
  CAIRN_SYSLOG_TLS_PORT: optional(port),
  CAIRN_SYSLOG_RELP_PORT: optional(port),
  CAIRN_SYSLOG_SOURCE: withDefault(z.string().regex(/^[A-Za-z0-9._-]{1,128}$/, 'must be a source name (letters, digits, dot, underscore, dash)'), 'syslog'),
  CAIRN_SYSLOG_SOURCES: withDefault(syslogSources, ''),
  CAIRN_SYSLOG_ALLOW: withDefault(cidrList, '127.0.0.0/8,::1/128'),
  CAIRN_SYSLOG_TLS_CLIENT_CA: optional(z.string().min(1)),
  CAIRN_SYSLOG_RATE_LIMIT: withDefault(positiveInt, 100_000),
  CAIRN_CERT_EXPIRY_WARN_DAYS: withDefault(z.coerce.number().int().min(1).max(365), 30),
  CAIRN_HEARTBEAT_MS: withDefault(z.coerce.number().int().min(200).max(60_000), 5000),
  CAIRN_HEALTH_HISTORY_DAYS: withDefault(positiveInt.max(365), 7),
  CAIRN_RETROHUNT_DAYS: withDefault(positiveInt.max(3650), 30),
  CAIRN_RULES_BACKFILL_DAYS: withDefault(z.coerce.number().int().min(0).max(3650), 0),
  CAIRN_BACKFILL_PAGE_SIZE: withDefault(positiveInt.max(100_000), 5000),
  CAIRN_REPORT_SNAPSHOTS: withDefault(
    z
      .string()
      .transform((v) => v.split(',').map((t) => t.trim()).filter(Boolean))
      .pipe(z.array(z.enum(['executive', 'compliance', 'tool-effectiveness', 'cost-savings'], { message: 'each must be executive, compliance, tool-effectiveness or cost-savings' }))),
    'executive',
  ),
});

export type Env = z.infer<typeof EnvSchema>;

export interface Config {
  port: number;
  host: string;
  dataDir: string;
  orgId: string;
  logLevel: z.infer<typeof logLevel>;
  /** json or pretty (readable lines); unset: pretty when standard output is a terminal. */
  logFormat: LogFormat | undefined;
  clickhouse: { url?: string; user: string; password: string; database: string };
  /** `topicPrefix` lets several deployments (or test runs) share one cluster: it prefixes topics and consumer groups. */
  kafka?: { brokers: string[]; partitions: number; clientId: string; topicPrefix: string; sessionTimeoutMs: number };
  redisUrl?: string;
  schemaRegistryUrl?: string;
  /** Unset means: embedded mode creates one in the data dir, distributed mode refuses to start. */
  jwtSecret?: string;
  masterKey?: Buffer;
  /** Check every response against its declared schema (on by default outside production). */
  validateResponses: boolean;
  bus: { segmentBytes: number };
  /** Days an artifact is kept after it arrived. */
  artifactRetentionDays: number;
  /** Ingest answers 429 while a stage reading artifacts.raw is further behind than this many messages. */
  ingestMaxLag: number;
  pipeline: {
    storeBatchSize: number;
    storeBatchWaitMs: number;
    /** How often the rule stage reloads lead rules. */
    ruleRefreshMs: number;
    /** Which stages `cairn start` runs, and so which consumer groups read which topics (pipeline/stages.ts). */
    topology: Topology;
    /** Worker threads of the analysis stage (and of the reprocess stage); 0 runs their work on the main thread. */
    workers: number;
    /** Artifacts per slice of a re-parsing job: the unit of its work, its progress and its redelivery. */
    reprocessSlice: number;
  };
  /** How leads join incidents, and the bounds that keep an incident one story (pipeline/correlator). */
  correlation: CorrelationBounds;
  /** Offset assumed for log timestamps that carry no zone. */
  logTimezone: string;
  /** What the guarded outbound client may reach although private (CAIRN_OUTBOUND_ALLOW). */
  outbound: OutboundPolicy;
  /** What CLI commands that talk to a running cairn use: its base URL and a bearer token. */
  cli: { url?: string; token?: string };
  /** What makes a node internal, managed, trusted or infrastructure, and in scope of which frameworks. */
  graph: GraphScopes;
  identity: IdentityConfig;
  otlp: OtlpConfig;
  operations: OperationsConfig;
  /**
   * The shipped lead-rule pack (rules/pack, docs/rules.md): installed when the first admin is made on an
   * empty store, and its rules brought up to date at start where the user has not changed them. Off: neither.
   */
  defaultRules: boolean;
  /** Threat intelligence (docs/threat-intel.md): days of stored events a retro-hunt searches. */
  threatIntel: { retroHuntDays: number };
  /**
   * Lead-rule backfills (docs/backfill.md): days a pack or imported Sigma
   * rule is run over when it is enabled (0: not), and events read per page.
   */
  backfill: { onEnableDays: number; pageSize: number };
  /** Syslog listeners (docs/syslog.md); each runs only when its port is set. */
  syslog: SyslogConfig;
  /** Reports taken as snapshots once a day (empty: none). */
  reports: {
    scheduledSnapshots: ('executive' | 'compliance' | 'tool-effectiveness' | 'cost-savings')[];
    /** The read-only ClickHouse HTTP interface for BI tools (docs/reporting.md); unset: off. */
    clickhouseHttp?: ClickHouseHttpConfig;
  };
}

export interface ClickHouseHttpConfig {
  port: number;
  host: string;
  /** Every query stops after this long (ClickHouse's max_execution_time)... */
  maxExecutionSeconds: number;
  /** ...and at this much memory (max_memory_usage). */
  maxMemoryBytes: number;
}

export interface SyslogConfig {
  udpPort?: number;
  tcpPort?: number;
  /** RFC 5425, with the TLS settings' active certificate (docs/tls.md). */
  tlsPort?: number;
  relpPort?: number;
  /** The source of a message no rule of `sources` names. */
  defaultSource: string;
  sources: SyslogSourceRule[];
  /** Senders outside these CIDRs are refused (TCP) or ignored (UDP), and counted. */
  allow: string[];
  /** A PEM file of CAs: TLS senders must then present a certificate one of them signed. */
  tlsClientCaFile?: string;
  /** Messages per second one sender address may send; past it UDP drops (counted) and streams wait. */
  ratePerSender: number;
}

/** OpenTelemetry logs over OTLP/HTTP (docs/otlp.md). */
export interface OtlpConfig {
  /** Port of the standard OTLP/HTTP listener (POST /v1/logs) on HOST; unset: OTLP only at /api/v1/otlp/v1/logs on the API port. */
  port?: number;
}

/** Health, metrics and TLS (docs/operations.md). */
export interface OperationsConfig {
  /** HTTPS port, served once a certificate is active; unset: no HTTPS listener. */
  tlsPort?: number;
  /** A certificate this close to expiry raises system.cert_expiring once a day. */
  certExpiryWarnDays: number;
  /** How often every process publishes its heartbeat and metrics. */
  heartbeatMs: number;
  /** Days of service metrics history kept (the history table's TTL). */
  historyDays: number;
}

/** Login, sessions and the first admin (docs/identity.md). */
export interface IdentityConfig {
  /** The address users reach cairn at, for SAML (entity id, assertion consumer URL); default http://localhost:PORT. */
  publicUrl: string;
  /** Believe X-Forwarded-For/-Proto (cairn runs behind a reverse proxy); otherwise a client could pick its own address and dodge per-address login limits. */
  trustProxy: boolean;
  /** The first admin, created on an empty user table; without a password one is generated and printed once. */
  adminEmail?: string;
  adminPassword?: string;
  accessTokenTtlMs: number;
  sessionIdleMs: number;
  sessionMaxAgeMs: number;
  /** Failed logins allowed per account, and per client address, in one window before login answers 429. */
  loginMaxFailures: number;
  loginMaxFailuresPerAddress: number;
  loginFailureWindowMs: number;
  /** scrypt cost as log2(N): 15 is 32 MiB of memory per hash. */
  passwordKdfCost: number;
}

export interface CorrelationBounds {
  /** Leads sharing a node join one incident when their event times are at most this far apart, in either order. */
  windowMs: number;
  /** An incident covers at most this much event time, first lead to last; a lead that would stretch it further starts a new one. */
  maxSpanMs: number;
  /** An incident holds at most this many leads. */
  maxLeads: number;
  /** A node shared by leads naming this many other addresses (e.g. a commonly guessed account) no longer joins leads. */
  hubLimit: number;
}

export interface GraphScopes {
  internal: ScopeEntry[];
  managed: ScopeEntry[];
  trusted: ScopeEntry[];
  infrastructure: ScopeEntry[];
  frameworks: { index: number; entries: ScopeEntry[] }[];
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(source);
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${String(i.path[0])}: ${i.message}`));
  }
  const env = parsed.data;
  return {
    port: env.PORT,
    host: env.HOST,
    dataDir: path.resolve(env.CAIRN_DATA_DIR),
    orgId: env.CAIRN_ORG_ID,
    logLevel: env.CAIRN_LOG_LEVEL,
    logFormat: env.CAIRN_LOG_FORMAT,
    clickhouse: {
      url: env.CAIRN_CLICKHOUSE_URL,
      user: env.CAIRN_CLICKHOUSE_USER,
      password: env.CAIRN_CLICKHOUSE_PASSWORD,
      database: env.CAIRN_CLICKHOUSE_DATABASE,
    },
    kafka: env.CAIRN_KAFKA_BROKERS
      ? {
          brokers: env.CAIRN_KAFKA_BROKERS,
          partitions: env.CAIRN_KAFKA_PARTITIONS,
          clientId: env.CAIRN_KAFKA_CLIENT_ID,
          topicPrefix: env.CAIRN_KAFKA_TOPIC_PREFIX,
          sessionTimeoutMs: env.CAIRN_KAFKA_SESSION_TIMEOUT_MS,
        }
      : undefined,
    redisUrl: env.CAIRN_REDIS_URL,
    schemaRegistryUrl: env.CAIRN_SCHEMA_REGISTRY_URL,
    jwtSecret: env.CAIRN_JWT_SECRET,
    masterKey: env.CAIRN_MASTER_KEY,
    validateResponses: env.CAIRN_VALIDATE_RESPONSES ?? source.NODE_ENV !== 'production',
    bus: { segmentBytes: env.CAIRN_BUS_SEGMENT_BYTES },
    artifactRetentionDays: env.CAIRN_ARTIFACT_RETENTION_DAYS,
    ingestMaxLag: env.CAIRN_INGEST_MAX_LAG,
    pipeline: {
      storeBatchSize: env.CAIRN_STORE_BATCH_SIZE,
      storeBatchWaitMs: env.CAIRN_STORE_BATCH_WAIT_MS,
      ruleRefreshMs: env.CAIRN_RULE_REFRESH_MS,
      topology: env.CAIRN_PIPELINE_TOPOLOGY,
      workers: env.CAIRN_PIPELINE_WORKERS,
      reprocessSlice: env.CAIRN_REPROCESS_SLICE,
    },
    correlation: {
      windowMs: env.CAIRN_CORRELATION_WINDOW,
      maxSpanMs: env.CAIRN_INCIDENT_MAX_SPAN,
      maxLeads: env.CAIRN_INCIDENT_MAX_LEADS,
      hubLimit: env.CAIRN_CORRELATION_HUB_LIMIT,
    },
    logTimezone: env.CAIRN_LOG_TIMEZONE,
    outbound: env.CAIRN_OUTBOUND_ALLOW,
    cli: { url: env.CAIRN_URL, token: env.CAIRN_TOKEN },
    graph: {
      internal: env.CAIRN_INTERNAL_NETWORKS,
      managed: env.CAIRN_MANAGED,
      trusted: env.CAIRN_TRUSTED,
      infrastructure: env.CAIRN_INFRASTRUCTURE,
      frameworks: env.CAIRN_FRAMEWORK_SCOPES,
    },
    reports: {
      scheduledSnapshots: env.CAIRN_REPORT_SNAPSHOTS,
      clickhouseHttp: env.CAIRN_CLICKHOUSE_HTTP_PORT === undefined
        ? undefined
        : { port: env.CAIRN_CLICKHOUSE_HTTP_PORT, host: env.CAIRN_CLICKHOUSE_HTTP_HOST, maxExecutionSeconds: env.CAIRN_CLICKHOUSE_HTTP_MAX_EXECUTION_TIME, maxMemoryBytes: env.CAIRN_CLICKHOUSE_HTTP_MAX_MEMORY },
    },
    syslog: {
      udpPort: env.CAIRN_SYSLOG_UDP_PORT,
      tcpPort: env.CAIRN_SYSLOG_TCP_PORT,
      tlsPort: env.CAIRN_SYSLOG_TLS_PORT,
      relpPort: env.CAIRN_SYSLOG_RELP_PORT,
      defaultSource: env.CAIRN_SYSLOG_SOURCE,
      sources: env.CAIRN_SYSLOG_SOURCES,
      allow: env.CAIRN_SYSLOG_ALLOW,
      tlsClientCaFile: env.CAIRN_SYSLOG_TLS_CLIENT_CA,
      ratePerSender: env.CAIRN_SYSLOG_RATE_LIMIT,
    },
    defaultRules: env.CAIRN_DEFAULT_RULES === 'on',
    threatIntel: { retroHuntDays: env.CAIRN_RETROHUNT_DAYS },
    backfill: { onEnableDays: env.CAIRN_RULES_BACKFILL_DAYS, pageSize: env.CAIRN_BACKFILL_PAGE_SIZE },
    otlp: { port: env.CAIRN_OTLP_PORT },
    operations: {
      tlsPort: env.CAIRN_TLS_PORT,
      certExpiryWarnDays: env.CAIRN_CERT_EXPIRY_WARN_DAYS,
      heartbeatMs: env.CAIRN_HEARTBEAT_MS,
      historyDays: env.CAIRN_HEALTH_HISTORY_DAYS,
    },
    identity: {
      trustProxy: env.CAIRN_TRUST_PROXY,
      publicUrl: (env.CAIRN_PUBLIC_URL ?? `http://localhost:${env.PORT}`).replace(/\/+$/, ''),
      adminEmail: env.CAIRN_ADMIN_EMAIL?.toLowerCase(),
      adminPassword: env.CAIRN_ADMIN_PASSWORD,
      accessTokenTtlMs: env.CAIRN_ACCESS_TOKEN_TTL,
      sessionIdleMs: env.CAIRN_SESSION_IDLE_TIMEOUT,
      sessionMaxAgeMs: env.CAIRN_SESSION_MAX_AGE,
      loginMaxFailures: env.CAIRN_LOGIN_MAX_FAILURES,
      loginMaxFailuresPerAddress: env.CAIRN_LOGIN_MAX_FAILURES_PER_ADDRESS,
      loginFailureWindowMs: env.CAIRN_LOGIN_FAILURE_WINDOW,
      passwordKdfCost: env.CAIRN_PASSWORD_KDF_COST,
    },
  };
}

/** Whether CAIRN_LOG_LEVEL asks for debugging detail; read without the rest, so it works even when other variables are bad. */
export function debugRequested(source: NodeJS.ProcessEnv = process.env): boolean {
  return source.CAIRN_LOG_LEVEL === 'debug' || source.CAIRN_LOG_LEVEL === 'trace';
}

/** Embedded mode: no external ClickHouse, Kafka or Redis configured. */
export function isEmbedded(config: Config): boolean {
  return !config.clickhouse.url && !config.kafka && !config.redisUrl;
}
