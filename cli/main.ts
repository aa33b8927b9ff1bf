// The `cairn` command. It wires the parts together; the parts hold the logic.
import http from 'node:http';
import { parseArgs } from 'node:util';
import { createApp } from '../api/app.js';
import { mintToken } from '../api/auth.js';
import { isPermission, PERMISSIONS } from '../api/permissions.js';
import { openStore } from '../clickhouse/client.js';
import { migrate } from '../clickhouse/migrate.js';
import { ConfigError, isEmbedded, loadConfig, type Config } from '../config/env.js';
import { parseDuration } from '../lib/duration.js';
import { createLogger, type Logger } from '../lib/logger.js';
import { findStage, STAGES } from '../pipeline/stages.js';
import { findJwtSecret, provideEmbeddedSecrets } from './embedded-secrets.js';
import { ingestFile } from './ingest.js';
import { openRuntime, startStages, type Runtime } from './runtime.js';

const USAGE = `usage: cairn <command>

  start                 API and every pipeline stage in one process (the embedded default)
  api                   the HTTP API only
  worker <stage>        one pipeline stage (${STAGES.map((s) => s.name).join(', ')})
  migrate               apply ClickHouse migrations and exit
  ingest <file> --source <name> [--url http://127.0.0.1:PORT] [--token T] [--batch-size 5000]
                        load a log file, one artifact per line, through a running cairn's API
                        (token: --token, else CAIRN_TOKEN, else minted with the configured secret)
  token --permissions a,b [--sub name] [--ttl 1h] [--org id]
                        print a bearer token signed with the configured secret
                        (--permissions all grants every permission)
`;

async function serve(runtime: Runtime): Promise<http.Server> {
  const app = createApp({ ...runtime });
  const server = http.createServer(app.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(runtime.config.port, runtime.config.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : runtime.config.port;
  runtime.logger.info({ port }, `API listening on http://${runtime.config.host}:${port}/api`);
  return server;
}

/** Runs until SIGINT/SIGTERM, then stops consumers, the server and the runtime, in that order. */
function closeOnSignal(logger: Logger, close: () => Promise<void>): void {
  let closing = false;
  const onSignal = (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal }, 'shutting down');
    close()
      .then(() => process.exit(0))
      .catch((err: unknown) => {
        logger.error({ err }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

async function run(command: string, args: string[], baseConfig: Config, logger: Logger): Promise<void> {
  switch (command) {
    case 'start':
    case 'api':
    case 'worker': {
      let config = baseConfig;
      if (command !== 'worker') {
        if (!config.jwtSecret && !isEmbedded(config)) throw new ConfigError(['CAIRN_JWT_SECRET: required when cairn runs against external services']);
        const provided = await provideEmbeddedSecrets(config);
        config = provided.config;
        if (provided.createdJwtSecret) {
          process.stdout.write(`cairn: created a JWT secret in ${config.dataDir}/jwt-secret\n  mint a token with:  npx cairn token --permissions all\n  then:               curl -H "Authorization: Bearer <token>" http://localhost:${config.port}/api/v1/lead-rules\n`);
        }
      }
      const stageNames = command === 'start' ? STAGES.map((s) => s.name) : command === 'worker' ? [requireArg(args[0], 'worker needs a stage name')] : [];
      if (command === 'worker' && !findStage(stageNames[0]!)) {
        throw new Error(`unknown stage "${stageNames[0]}"; stages: ${STAGES.map((s) => s.name).join(', ') || 'none'}`);
      }
      const runtime = await openRuntime(config, logger);
      const server = command === 'worker' ? null : await serve(runtime);
      const subscriptions = await startStages(runtime, stageNames);
      closeOnSignal(logger, async () => {
        await Promise.all(subscriptions.map((s) => s.stop()));
        if (server) await new Promise((resolve) => server.close(resolve));
        await runtime.close();
      });
      return;
    }
    case 'migrate': {
      const store = await openStore(baseConfig);
      try {
        const applied = await migrate(store);
        console.log(applied.length ? `applied: ${applied.map((m) => m.id).join(', ')}` : 'schema is up to date');
      } finally {
        await store.close();
      }
      return;
    }
    case 'ingest': {
      const { values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { source: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' }, 'batch-size': { type: 'string', default: '5000' }, org: { type: 'string' } },
      });
      const file = requireArg(positionals[0], 'ingest needs a file: cairn ingest <file> --source <name>');
      const source = requireArg(values.source, 'ingest needs --source <name>, e.g. --source auth');
      let token = values.token ?? process.env.CAIRN_TOKEN;
      if (!token) {
        const secret = await findJwtSecret(baseConfig);
        if (!secret) throw new Error('no token: pass --token or CAIRN_TOKEN, or set CAIRN_JWT_SECRET');
        token = mintToken(secret, { subject: 'cairn-ingest', orgId: values.org ?? baseConfig.orgId, permissions: ['signals:write'], ttlSeconds: 24 * 3600 });
      }
      const batchSize = Number(values['batch-size']);
      if (!Number.isInteger(batchSize) || batchSize < 1) throw new Error('--batch-size must be a positive integer');
      const summary = await ingestFile({ file, source, url: values.url ?? `http://127.0.0.1:${baseConfig.port}`, token, batchSize, progress: true });
      console.log(`${summary.lines} lines in ${summary.seconds.toFixed(1)} s: ${summary.accepted} accepted, ${summary.rejected} rejected`);
      for (const r of summary.rejections) console.log(`  line ${r.line}: ${r.reason}`);
      return;
    }
    case 'token': {
      const { values } = parseArgs({
        args,
        options: { permissions: { type: 'string' }, sub: { type: 'string', default: 'cli' }, ttl: { type: 'string', default: '1h' }, org: { type: 'string' } },
      });
      const requested = requireArg(values.permissions, 'token needs --permissions a,b (or all)')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const permissions = requested.includes('all') ? [...PERMISSIONS] : requested;
      const unknown = permissions.filter((p) => !isPermission(p));
      if (unknown.length) throw new Error(`unknown permission(s): ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}`);
      const secret = await findJwtSecret(baseConfig);
      if (!secret) throw new Error('no JWT secret: set CAIRN_JWT_SECRET, or run `cairn start` once to create one in the data dir');
      const ttlSeconds = Math.floor(parseDuration(values.ttl) / 1000);
      console.log(mintToken(secret, { subject: values.sub, orgId: values.org ?? baseConfig.orgId, permissions, ttlSeconds }));
      return;
    }
    default:
      process.stderr.write(USAGE);
      process.exitCode = command === 'help' || command === '--help' ? 0 : 2;
  }
}

function requireArg(value: string | undefined, message: string): string {
  if (!value) throw new Error(message);
  return value;
}

export async function main(argv: string[]): Promise<void> {
  const [command = 'help', ...args] = argv;
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    process.stderr.write(`cairn: ${(err as Error).message}\n`);
    process.exit(78); // EX_CONFIG
  }
  const logger = createLogger(config.logLevel);
  try {
    await run(command, args, config, logger);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`cairn: ${err.message}\n`);
      process.exit(78);
    }
    logger.error({ err }, `cairn ${command} failed`);
    process.stderr.write(`cairn: ${(err as Error).message}\n`);
    process.exit(1);
  }
}
