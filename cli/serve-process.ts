// The long-running processes `cairn start`, `cairn api` and `cairn worker <stage>`
// run (cli/commands/serve.ts declares them): loaded only when one runs.
import http from 'node:http';
import { apiDeps, createApp, createOtlpApp } from '../api/app.js';
import { ConfigError, isEmbedded, loadConfig, type Config } from '../config/env.js';
import { chosenLogFormat, createLogger, type Logger } from '../lib/logger.js';
import { loadGeoIp } from '../pipeline/geoip/geoip.js';
import { TOPOLOGY_STAGES } from '../pipeline/topologies.js';
import { provideEmbeddedSecrets } from './embedded-secrets.js';
import { ensureFirstAdmin } from '../identity/first-admin.js';
import { Identity } from '../identity/index.js';
import { startTls, type TlsServices } from '../ops/tls/index.js';
import { startSnapshotSchedule } from '../reports/snapshots.js';
import { OutboundClient } from '../lib/outbound/client.js';
import { startSyncSchedule } from '../threatintel/schedule.js';
import { announceChange } from '../pipeline/state/index.js';
import { applyPackAtStart, installedBy } from '../rules/pack.js';
import { openRuntime, startStages, type Runtime } from './runtime.js';
import { startClickHouseHttp } from '../api/clickhouse-http/server.js';
import { startSyslogListeners, type SyslogListeners } from '../ingest/syslog/index.js';
import { IngestLag } from '../pipeline/ingest-lag.js';
import { consumersOf } from '../pipeline/stages.js';
import { artifactsRaw } from '../topics/index.js';
import { activeCertificate } from '../clickhouse/tables/tls-certificates.js';
import { consoleBuild } from '../console/serve.js';

export type Kind = 'start' | 'api' | 'worker';

/** An HTTP server for `app` on host:port; resolves once it listens, with the port bound. */
async function listen(app: ReturnType<typeof createApp>, port: number, host: string): Promise<{ server: http.Server; port: number }> {
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  return { server, port: typeof address === 'object' && address ? address.port : port };
}

async function serve(runtime: Runtime, identity: Identity): Promise<{ servers: http.Server[]; tls: TlsServices }> {
  const deps = apiDeps({ ...runtime });
  const app = createApp({ ...runtime }, deps);
  const api = await listen(app, runtime.config.port, runtime.config.host);
  runtime.logger.info({ port: api.port }, `API listening on http://${runtime.config.host}:${api.port}/api`);
  // The console is built from its sources now, in memory, so the first visitor does not wait and no stale build exists.
  consoleBuild().then(
    (built) => runtime.logger.info({ ms: built.buildMs, initialJsGzipBytes: built.initialJsGzipBytes }, `console at http://${runtime.config.host}:${api.port}/`),
    (err: unknown) => runtime.logger.error({ err }, 'could not build the console (docs/console.md)'),
  );
  const servers = [api.server];
  // OTLP/HTTP's standard path on a port of its own, for collectors configured with host and port only (docs/otlp.md).
  if (runtime.config.otlp.port !== undefined) {
    const otlp = await listen(createOtlpApp(deps), runtime.config.otlp.port, runtime.config.host);
    runtime.logger.info({ port: otlp.port }, `OTLP/HTTP logs on http://${runtime.config.host}:${otlp.port}/v1/logs`);
    servers.push(otlp.server);
  }
  // HTTPS beside HTTP, the same app: on CAIRN_TLS_PORT once a certificate is active (docs/tls.md).
  const tls = await startTls({ app, ...runtime, box: identity.box });
  return { servers, tls };
}

/** The syslog listeners whose ports are set (docs/syslog.md), where ingest runs; TLS serves the TLS settings' certificate. */
async function startSyslog(runtime: Runtime, identity: Identity): Promise<SyslogListeners | null> {
  const { config, bus, store, logger } = runtime;
  const { udpPort, tcpPort, tlsPort, relpPort } = config.syslog;
  if ([udpPort, tcpPort, tlsPort, relpPort].every((p) => p === undefined)) return null;
  return startSyslogListeners({
    config,
    bus,
    lag: new IngestLag(bus, artifactsRaw.name, consumersOf(artifactsRaw.name, config.pipeline.topology), () => runtime.config.ingestMaxLag),
    logger,
    async certificate() {
      const active = await activeCertificate(store, config.orgId);
      return active && { id: `${active.id}/${active.fingerprint_sha256}`, cert: active.chain_pem, key: identity.box.open(active.key_sealed) };
    },
  });
}

/** On an empty user table, makes the first admin and says once how to log in; true when it made one. */
async function announceFirstAdmin(config: Runtime['config'], identity: Identity): Promise<boolean> {
  const admin = await ensureFirstAdmin(identity.directory, config.orgId, config.identity);
  if (!admin) return false;
  const password = admin.generatedPassword ? `password ${admin.generatedPassword}  (shown once; change it, or \`cairn user reset --email ${admin.email}\`)` : 'the password in CAIRN_ADMIN_PASSWORD';
  process.stdout.write(
    `cairn: created the first admin: ${admin.email}, ${password}\n` +
      `  log in with:  curl -s -X POST http://localhost:${config.port}/api/v1/auth/login -H 'content-type: application/json' -d '{"email":"${admin.email}","password":"<password>"}'\n`,
  );
  return true;
}

/**
 * The rule pack (docs/rules.md): enabled with the first admin on an empty
 * store, and brought up to this cairn's pack at every start for the
 * organizations holding it, leaving the rules users changed alone (logged).
 * CAIRN_DEFAULT_RULES=off does neither; `cairn rules pack update` still can.
 */
async function keepRulePackCurrent(runtime: Runtime, firstAdminMade: boolean): Promise<void> {
  const { config, logger } = runtime;
  if (!config.defaultRules) return;
  const done = await applyPackAtStart(runtime.store, firstAdminMade ? [config.orgId] : []);
  if (done.some((d) => d.update.written.length > 0)) await announceChange(runtime.state, 'lead-rules');
  for (const { orgId, update } of done) {
    const counts = { installed: update.installed.length, updated: update.updated.length, retired: update.retired.length, left_alone: update.left_alone.length };
    logger.info({ org: orgId, version: update.version, ...counts }, 'rule pack brought up to date');
    // A pack rule an upgrade adds looks back over the history already stored; a fresh install has none.
    const freshInstall = firstAdminMade && orgId === config.orgId;
    if (!freshInstall) await runtime.backfills.queueOnEnable(installedBy(update), config.backfill.onEnableDays, 'rule pack');
    for (const rule of update.left_alone) logger.info({ org: orgId, pack_id: rule.pack_id, rule_id: rule.rule_id, state: rule.state }, `rule pack: left alone: ${rule.reason}`);
    if (firstAdminMade && orgId === config.orgId && update.installed.length > 0) {
      process.stdout.write(
        `cairn: enabled the rule pack ${update.version}: ${update.installed.length} detection rules (docs/rules.md; \`cairn rules pack status\`, CAIRN_DEFAULT_RULES=off skips this)\n`,
      );
    }
  }
}

/**
 * Runs until SIGINT/SIGTERM, then closes what `started` opened. The handlers go in before start-up does anything:
 * /healthz answers once the server listens, while the stages are still starting, and a signal then must not kill
 * the process half-open (the default action) but wait for start-up and close cleanly. A second signal exits at once.
 */
function closeOnSignal(logger: Logger, started: Promise<() => Promise<void>>): void {
  let closing = false;
  const onSignal = (signal: string) => {
    if (closing) {
      // Start-up may be waiting on a service that does not answer (kafkajs retries for about a minute): a second signal ends it now.
      logger.warn({ signal }, 'second signal: exiting without closing cleanly');
      process.exit(1);
    }
    closing = true;
    logger.info({ signal }, 'shutting down');
    started
      .then((close) => close())
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

export async function runProcess(kind: Kind, stage?: string): Promise<void> {
  const config = loadConfig();
  const { topology } = config.pipeline;
  const stageNames = kind === 'start' ? [...TOPOLOGY_STAGES[topology]] : stage ? [stage] : [];
  if (stage && !TOPOLOGY_STAGES[topology].includes(stage)) {
    // Backpressure and the in-process bus's retention watch the topology's consumer groups: a stage outside it would go unwatched.
    throw new ConfigError([`stage "${stage}" is not part of the ${topology} topology (${TOPOLOGY_STAGES[topology].join(', ')}); set CAIRN_PIPELINE_TOPOLOGY`]);
  }
  const logger = createLogger(config.logLevel, undefined, chosenLogFormat(config.logFormat));
  const started = startProcess(kind, stageNames, config, logger);
  closeOnSignal(logger, started);
  await started;
}

/** Opens everything the process runs, and returns how to close it: consumers, then the server, then the runtime. */
async function startProcess(kind: Kind, stageNames: string[], loaded: Config, logger: Logger): Promise<() => Promise<void>> {
  let config = loaded;
  if (kind !== 'worker') {
    if (!isEmbedded(config)) {
      const missing = [
        ...(config.jwtSecret ? [] : ['CAIRN_JWT_SECRET: required when cairn runs against external services']),
        ...(config.masterKey ? [] : ['CAIRN_MASTER_KEY: required when cairn runs against external services (it seals stored secrets)']),
      ];
      if (missing.length) throw new ConfigError(missing);
    }
    const provided = await provideEmbeddedSecrets(config);
    config = provided.config;
    if (provided.createdJwtSecret) {
      process.stdout.write(
        `cairn: created a JWT secret in ${config.dataDir}/jwt-secret\n  mint a token with:  npx cairn token --permissions all\n  then:               curl -H "Authorization: Bearer <token>" http://localhost:${config.port}/api/v1/lead-rules\n`,
      );
    }
  }
  const runtime = await openRuntime(config, logger);
  // The API shows GeoIP on nodes and the parser adds it to events: load it before the first request or event.
  if (kind !== 'worker' || stageNames.includes('parser') || stageNames.includes('analysis')) loadGeoIp(logger);
  // The API's processes seal and open secrets and hold the users; a worker needs neither.
  const identity = kind === 'worker' ? null : new Identity(runtime.store, runtime.state, config);
  if (identity) await keepRulePackCurrent(runtime, await announceFirstAdmin(config, identity));
  const served = identity ? await serve(runtime, identity) : null;
  // Reporting over ClickHouse's HTTP protocol where the API runs (opt-in: CAIRN_CLICKHOUSE_HTTP_PORT).
  const reporting = identity ? await startClickHouseHttp({ store: runtime.store, identity, config, logger }) : null;
  const subscriptions = await startStages(runtime, stageNames);
  // After the stages: a listener's first messages find the pipeline reading.
  const syslog = identity ? await startSyslog(runtime, identity) : null;
  const stopSnapshots = identity ? startSnapshotSchedule(runtime) : () => {};
  const stopFeeds = identity ? startSyncSchedule({ ...runtime, outbound: new OutboundClient(config.outbound), box: identity.box }) : () => {};
  // Backfill jobs run where the API does; the first check takes up those a restart interrupted.
  if (identity) runtime.backfills.start();
  return async () => {
    stopSnapshots();
    stopFeeds();
    await syslog?.close();
    await Promise.all(subscriptions.map((s) => s.stop()));
    await reporting?.close();
    if (served) {
      await served.tls.close();
      await Promise.all(served.servers.map((server) => new Promise((resolve) => server.close(resolve))));
    }
    await runtime.close();
  };
}

