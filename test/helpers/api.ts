// Runs the real API (store, bus, hot state, HTTP server) for tests, and
// makes requests to it with tokens signed like production ones.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { apiDeps, createApp, createOtlpApp } from '../../api/app.js';
import { mintToken } from '../../api/auth.js';
import { PERMISSIONS } from '../../identity/permissions.js';
import { openRuntime, startStages, type Runtime } from '../../cli/runtime.js';
import { loadConfig } from '../../config/env.js';
import { createLogger } from '../../lib/logger.js';
import { testLogger } from './buses.js';

export const TEST_JWT_SECRET = 'test-secret-that-is-long-enough-for-hs256-0123456789';
export const TEST_MASTER_KEY = '0f1e2d3c4b5a69788796a5b4c3d2e1f00112233445566778899aabbccddeeff0';

export interface TestApiOptions {
  /** Reuse a data dir, e.g. to check what survives a restart. */
  dataDir?: string;
  /** Run on Kafka and Redis from the global setup instead of the embedded bus and state. */
  distributed?: boolean;
  /** Decode artifacts through the schema registry the global setup started. */
  schemaRegistry?: boolean;
  /** Pipeline stages to run beside the API, e.g. ['store']. */
  stages?: string[];
  /** Further environment, e.g. { CAIRN_INGEST_MAX_LAG: '10' }. */
  env?: Record<string, string>;
  /** Also serve the OTLP port's app (as CAIRN_OTLP_PORT does), on a free port: `otlpUrl`. */
  otlp?: boolean;
  /** Keep every log line (debug level and up) here instead of printing them, e.g. to check that none holds a secret. */
  logLines?: string[];
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: { success: boolean; message: string; data: unknown; error?: { code: string; details: unknown } };
  text: string;
}

export interface TestApi {
  url: string;
  /** The OTLP port's base URL (with the `otlp` option). */
  otlpUrl?: string;
  dataDir: string;
  runtime: Runtime;
  /** A token for a fresh organization, so tests do not see each other's data. */
  token(permissions?: readonly string[] | 'all', orgId?: string): string;
  request(method: string, path: string, options?: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<ApiResponse>;
  close(): Promise<void>;
}

export async function startTestApi(options: TestApiOptions = {}): Promise<TestApi> {
  const dataDir = options.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-api-'));
  const config = loadConfig({
    CAIRN_DATA_DIR: dataDir,
    CAIRN_JWT_SECRET: TEST_JWT_SECRET,
    CAIRN_MASTER_KEY: TEST_MASTER_KEY,
    // The cheapest cost the configuration allows: tests hash many passwords; bench/login.ts measures the default.
    CAIRN_PASSWORD_KDF_COST: '10',
    CAIRN_LOG_LEVEL: process.env.CAIRN_LOG_LEVEL ?? 'warn',
    PORT: '0',
    CAIRN_CLICKHOUSE_URL: process.env.CAIRN_TEST_CLICKHOUSE_URL,
    CAIRN_KAFKA_BROKERS: options.distributed ? inject('kafkaBrokers') : undefined,
    // Topics and groups per data dir: a restart on the same dir finds its own.
    CAIRN_KAFKA_TOPIC_PREFIX: `test-${path.basename(dataDir)}.`,
    CAIRN_REDIS_URL: options.distributed ? inject('redisUrl') : undefined,
    CAIRN_SCHEMA_REGISTRY_URL: options.schemaRegistry ? inject('schemaRegistryUrl') : undefined,
    CAIRN_STORE_BATCH_WAIT_MS: '20',
    // The stages given decide the topology: the parser runs apart only in the staged one.
    CAIRN_PIPELINE_TOPOLOGY: options.stages?.includes('parser') ? 'staged' : 'fused',
    ...options.env,
  });
  const logger = options.logLines ? createLogger('debug', { write: (line: string) => void options.logLines!.push(line) }) : testLogger;
  const runtime = await openRuntime(config, logger);
  const subscriptions = await startStages(runtime, options.stages ?? []);
  const deps = apiDeps(runtime);
  const listen = async (server: http.Server) => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  };
  const server = http.createServer(createApp(runtime, deps).callback());
  const url = await listen(server);
  const otlpServer = options.otlp ? http.createServer(createOtlpApp(deps).callback()) : null;
  const otlpUrl = otlpServer ? await listen(otlpServer) : undefined;

  return {
    url,
    otlpUrl,
    dataDir,
    runtime,
    token(permissions = 'all', orgId = `org-${randomUUID().slice(0, 8)}`) {
      return mintToken(TEST_JWT_SECRET, { subject: 'tester', orgId, permissions: permissions === 'all' ? PERMISSIONS : permissions, ttlSeconds: 600 });
    },
    async request(method, requestPath, { token, body, rawBody, headers = {} } = {}) {
      const response = await fetch(`${url}${requestPath}`, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body !== undefined || rawBody !== undefined ? { 'content-type': 'application/json' } : {}),
          ...headers,
        },
        body: rawBody ?? (body === undefined ? undefined : JSON.stringify(body)),
      });
      const text = await response.text();
      let parsed: ApiResponse['body'];
      // Exports (Sigma YAML, CSV) are documents, not the JSON envelope: `text` has them.
      const json = /json/.test(response.headers.get('content-type') ?? 'application/json');
      if (!json) return { status: response.status, headers: response.headers, body: { success: response.ok, message: '', data: null }, text };
      try {
        parsed = JSON.parse(text) as ApiResponse['body'];
      } catch {
        throw new Error(`${method} ${requestPath} answered ${response.status} with non-JSON: ${text.slice(0, 200)}`);
      }
      return { status: response.status, headers: response.headers, body: parsed, text };
    },
    async close() {
      await Promise.all(subscriptions.map((s) => s.stop()));
      for (const open of otlpServer ? [server, otlpServer] : [server]) {
        open.closeAllConnections();
        await new Promise((resolve) => open.close(resolve));
      }
      await runtime.close();
    },
  };
}
