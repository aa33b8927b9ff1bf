// The read-only ClickHouse HTTP interface (docs/reporting.md): BI tools and
// ClickHouse clients query the read views of the caller's organization on
// the store cairn holds, the embedded one included, which no other process
// can open while cairn runs. Opt-in (CAIRN_CLICKHOUSE_HTTP_PORT), on
// 127.0.0.1 unless CAIRN_CLICKHOUSE_HTTP_HOST says otherwise.
//
// It sits beside the REST API (api/), not inside it: another protocol on
// another port, with ClickHouse's own request and error conventions instead
// of cairn's envelope, and no /api routes. It uses the same identity (users,
// API keys, the login guard) and the same store client.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import type { Store } from '../../clickhouse/client.js';
import { readOnlyStatement, RefusedQuery } from '../../clickhouse/read-only-sql.js';
import type { ClickHouseHttpConfig, Config } from '../../config/env.js';
import type { Identity } from '../../identity/index.js';
import type { Logger } from '../../lib/logger.js';
import { VERSION } from '../../lib/version.js';
import { ReportingAuth } from './auth.js';
import { ClickHouseHttpError, clientSettings, contentTypeOf, credentialsOf, ErrorCode, fromEngineError, queryParams, queryText } from './protocol.js';
import { ReportingScope } from './scope.js';

/** Larger query texts are refused (ClickHouse's max_query_size is 256 KiB; a body may hold more in ClickHouse, not here: nothing is inserted). */
const MAX_QUERY_BYTES = 1024 * 1024;
const SERVER_VERSION = `cairn ${VERSION}`;
const DEFAULT_FORMAT = 'TabSeparated';

export interface ClickHouseHttpDeps {
  store: Store;
  identity: Identity;
  config: Config;
  logger: Logger;
}

export interface ClickHouseHttpServer {
  server: http.Server;
  port: number;
  close(): Promise<void>;
}

const DECOMPRESS: Record<string, (body: Buffer) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

async function readBody(req: http.IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_QUERY_BYTES) throw new ClickHouseHttpError(ErrorCode.QUERY_IS_TOO_LARGE, `Query is too large (more than ${MAX_QUERY_BYTES} bytes)`);
    chunks.push(chunk as Buffer);
  }
  let body: Buffer = Buffer.concat(chunks);
  const encoding = String(req.headers['content-encoding'] ?? '').toLowerCase();
  if (encoding && encoding !== 'identity') {
    const decompress = DECOMPRESS[encoding];
    if (!decompress) throw new ClickHouseHttpError(ErrorCode.BAD_ARGUMENTS, `Unknown Content-Encoding of HTTP request: ${encoding}`);
    body = await decompress(body);
    if (body.length > MAX_QUERY_BYTES) throw new ClickHouseHttpError(ErrorCode.QUERY_IS_TOO_LARGE, `Query is too large (more than ${MAX_QUERY_BYTES} bytes)`);
  }
  return body.toString('utf8');
}

function refusal(err: RefusedQuery): ClickHouseHttpError {
  // What ClickHouse answers a read-only user: writes are READONLY; two statements or none are syntax errors.
  const write = /^(only read-only|INTO OUTFILE)/.test(err.message);
  return new ClickHouseHttpError(write ? ErrorCode.READONLY : ErrorCode.SYNTAX_ERROR, write ? `Cannot execute query in readonly mode: ${err.message}` : err.message);
}

function header(req: http.IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function clickHouseHttpHandler({ store, identity, config, logger }: ClickHouseHttpDeps, settings: ClickHouseHttpConfig) {
  const auth = new ReportingAuth(identity, config.orgId);
  const database = config.clickhouse.database;
  const limits = { maxExecutionSeconds: settings.maxExecutionSeconds, maxMemoryBytes: settings.maxMemoryBytes };

  async function answer(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const queryId = url.searchParams.get('query_id') || randomUUID();
    res.setHeader('X-ClickHouse-Server-Display-Name', 'cairn');
    res.setHeader('X-ClickHouse-Query-Id', queryId);
    res.setHeader('X-ClickHouse-Timezone', 'UTC');
    if (url.pathname === '/ping' && (req.method === 'GET' || req.method === 'HEAD')) {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n');
      return;
    }
    if (url.pathname !== '/') {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=UTF-8' }).end(`There is no handle ${url.pathname}\n\nUse / or /ping for health checks.\n`);
      return;
    }
    if (req.method !== 'GET' && req.method !== 'POST') throw new ClickHouseHttpError(ErrorCode.BAD_ARGUMENTS, `HTTP method ${req.method} is not supported: use GET or POST`);
    const text = queryText(url.searchParams, req.method === 'POST' ? await readBody(req) : '');
    if (!text.trim()) {
      // GET / without a query is ClickHouse's health answer.
      if (req.method === 'GET') {
        res.writeHead(200, { 'Content-Type': 'text/html; charset=UTF-8' }).end('Ok.\n');
        return;
      }
      throw new ClickHouseHttpError(ErrorCode.SYNTAX_ERROR, 'Empty query');
    }
    const caller = await auth.authenticate(credentialsOf(req.headers, url.searchParams), req.socket.remoteAddress ?? '');
    if (!caller.permissions.has('reports:read')) throw new ClickHouseHttpError(ErrorCode.ACCESS_DENIED, `${caller.who}: Not enough privileges: reports:read is required`);
    const asked = url.searchParams.get('database') ?? header(req, 'x-clickhouse-database');
    // BI tools start in "default": the views are what there is to see.
    if (asked && asked !== database && asked !== 'default') throw new ClickHouseHttpError(ErrorCode.UNKNOWN_DATABASE, `Database ${asked} does not exist`);

    let read;
    try {
      read = readOnlyStatement(text, 'take');
    } catch (err) {
      throw err instanceof RefusedQuery ? refusal(err) : err;
    }
    const format = read.format ?? url.searchParams.get('default_format') ?? header(req, 'x-clickhouse-format') ?? DEFAULT_FORMAT;
    if (!/^[A-Za-z]\w*$/.test(format)) throw new ClickHouseHttpError(ErrorCode.UNKNOWN_FORMAT, `Unknown format ${format}`);
    const params = queryParams(read.statement, url.searchParams);
    const scope = new ReportingScope(database, caller.orgId);
    const started = process.hrtime.bigint();
    await scope.check(store, read.statement, read.keyword, params, limits);
    const settled = scope.settle(read.statement, limits, clientSettings(url.searchParams));
    const result = await store.exec({ query: `${settled} FORMAT ${format}`, query_params: params, query_id: queryId });
    const elapsed = process.hrtime.bigint() - started;
    const summary = { read_rows: '0', read_bytes: '0', written_rows: '0', written_bytes: '0', total_rows_to_read: '0', result_rows: '0', result_bytes: '0', ...(result.summary ?? {}), elapsed_ns: String(elapsed) };
    res.writeHead(200, {
      'Content-Type': contentTypeOf(format),
      'X-ClickHouse-Format': format,
      'X-ClickHouse-Summary': JSON.stringify(summary),
    });
    logger.debug({ who: caller.who, org: caller.orgId, query_id: queryId, format }, 'clickhouse http query');
    for await (const chunk of result.stream) {
      if (!res.write(chunk)) await new Promise((resolve) => res.once('drain', resolve));
    }
    res.end();
  }

  return (req: http.IncomingMessage, res: http.ServerResponse) => {
    answer(req, res).catch((err: unknown) => {
      const known = err instanceof ClickHouseHttpError ? err : fromEngineError(err);
      if (!known) logger.error({ err }, 'clickhouse http interface: unexpected error');
      const answerWith = known ?? new ClickHouseHttpError(1002, 'Internal error (see the cairn log)', 'UNKNOWN_EXCEPTION');
      if (res.headersSent) {
        // Mid-stream, as ClickHouse does: the error text ends the body.
        res.end(`\n${answerWith.body(SERVER_VERSION)}`);
        return;
      }
      res.writeHead(answerWith.status, {
        'Content-Type': 'text/plain; charset=UTF-8',
        'X-ClickHouse-Exception-Code': String(answerWith.code),
        ...(answerWith.status === 401 ? { 'WWW-Authenticate': 'Basic realm="cairn ClickHouse HTTP interface"' } : {}),
      });
      res.end(answerWith.body(SERVER_VERSION));
    });
  };
}

/** Starts the interface when CAIRN_CLICKHOUSE_HTTP_PORT is set; null otherwise. */
export async function startClickHouseHttp(deps: ClickHouseHttpDeps): Promise<ClickHouseHttpServer | null> {
  const settings = deps.config.reports.clickhouseHttp;
  if (!settings) return null;
  const server = http.createServer(clickHouseHttpHandler(deps, settings));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : settings.port;
  deps.logger.info({ port, host: settings.host }, `ClickHouse HTTP interface (read-only reporting) listening on http://${settings.host}:${port}`);
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
