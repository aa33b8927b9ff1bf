// The Koa application: error envelope, body parsing, request log, the
// routes under /api, JSON 404s, and the unauthenticated /healthz.
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import { bodyParser } from '@koa/bodyparser';
import Koa, { type Middleware } from 'koa';
import { authenticate } from './auth.js';
import { Identity } from '../identity/index.js';
import { OutboundClient } from '../lib/outbound/client.js';
import type { ApiDeps, ApiRuntime } from './deps.js';
import { IngestGate } from './ingest-gate.js';
import { codeForStatus, HttpError } from './http-error.js';
import { MAX_BODY_BYTES } from './limits.js';
import { requestMetrics } from './metrics.js';
import { mountRoutes, type ErrorBody, type Route } from './route.js';
import { artifactRoutes } from './routes/artifacts.js';
import { OTLP_LOGS_PATH, otlpLogsRoute, otlpRoutes } from './routes/otlp.js';
import { graphRoutes } from './routes/graph.js';
import { graphHistoryRoutes } from './routes/graph-history.js';
import { incidentRoutes } from './routes/incidents.js';
import { observationRoutes } from './routes/observations.js';
import { leadRoutes } from './routes/leads.js';
import { leadRulePackRoutes } from './routes/lead-rule-pack.js';
import { leadRuleRoutes } from './routes/lead-rules.js';
import { leadRuleBackfillRoutes } from './routes/lead-rule-backfills.js';
import { decoderRoutes } from './routes/decoders.js';
import { metaRoutes } from './routes/meta.js';
import { apiKeyRoutes } from './routes/api-keys.js';
import { auditLogRoutes } from './routes/audit-log.js';
import { authRoutes, SAML_ACS_PATH, samlRoutes } from './routes/auth.js';
import { settingsRoutes } from './routes/settings.js';
import { tlsRoutes } from './routes/tls.js';
import { healthRoutes } from './routes/health.js';
import { applianceRoutes } from './routes/appliance.js';
import { exporterRoutes } from './routes/exporters.js';
import { taxiiRoutes } from './routes/taxii.js';
import { threatfeedRoutes } from './routes/threatfeed.js';
import { notificationRoutes } from './routes/notifications.js';
import { reportRoutes } from './routes/reports.js';
import { coverageRoutes } from './routes/coverage.js';
import { reprocessRoutes } from './routes/reprocess.js';
import { savedSearchRoutes } from './routes/saved-searches.js';
import { aiRoutes } from './routes/ai.js';
import { mcpRoutes } from './routes/mcp.js';
import { userRoutes } from './routes/users.js';
import { sqlRoutes } from './routes/sql.js';
import { artifactsRaw } from '../topics/index.js';
import { consumersOf } from '../pipeline/stages.js';
import { loneSurrogateAt, MAX_JSON_DEPTH, mayHoldLoneSurrogate, nestsDeeperThan } from '../lib/json-depth.js';
import { noteError } from '../lib/recent-errors.js';
import { consoleRoutes } from '../console/serve.js';


export function allRoutes(): Route[] {
  return [
    ...authRoutes,
    ...samlRoutes,
    ...artifactRoutes,
    ...otlpRoutes,
    ...graphRoutes,
    ...graphHistoryRoutes,
    // Before the lead-rule routes: /v1/lead-rules/pack is not a rule id.
    ...leadRulePackRoutes,
    ...leadRuleRoutes,
    ...leadRuleBackfillRoutes,
    ...decoderRoutes,
    ...observationRoutes,
    ...leadRoutes,
    ...incidentRoutes,
    ...userRoutes,
    ...apiKeyRoutes,
    ...settingsRoutes,
    ...auditLogRoutes,
    ...tlsRoutes,
    ...healthRoutes,
    ...applianceRoutes,
    ...exporterRoutes,
    ...notificationRoutes,
    ...reportRoutes,
    ...coverageRoutes,
    ...sqlRoutes,
    ...savedSearchRoutes,
    ...reprocessRoutes,
    ...aiRoutes,
    ...mcpRoutes,
    ...threatfeedRoutes,
    ...metaRoutes(allRoutes),
  ];
}

function errorEnvelope(deps: ApiDeps): Middleware {
  return async (ctx, next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) {
        throw new HttpError(404, 'not_found', `no route for ${ctx.method} ${ctx.path}`);
      }
    } catch (err) {
      let status = 500;
      let code = 'internal_error';
      let message = 'Internal server error';
      let details: unknown = null;
      if (err instanceof HttpError) {
        ({ status, code, message, details } = err);
        ctx.set(err.headers);
      } else if (isExposedHttpError(err)) {
        status = err.status;
        code = codeForStatus(status);
        message = err.message;
      }
      if (status >= 500 && err instanceof HttpError) {
        // A deliberate answer about another service (an AI provider's 502/504), not a fault of cairn's: no stack, not a recent error.
        deps.logger.warn({ requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status, code, message }, 'request answered with an upstream error');
      } else if (status >= 500) {
        deps.logger.error({ err, requestId: ctx.state.requestId, method: ctx.method, path: ctx.path }, 'request failed');
        noteError('api', `${ctx.method} ${ctx.path}: ${err instanceof Error ? err.message : String(err)}`);
      }
      // A route speaking a protocol of its own (OTLP) answers its errors in that protocol.
      const errorBody = ctx.state.errorBody as ErrorBody | undefined;
      if (errorBody) {
        const answer = errorBody.render({ status, code, message }, ctx);
        ctx.body = answer.body;
        ctx.status = status;
        ctx.set(answer.headers);
        return;
      }
      ctx.status = status;
      ctx.body = { success: false, message, data: null, error: { code, details } };
    }
  };
}

/** Errors raised by middleware we use (body parser, router) carry a status and `expose`. */
function isExposedHttpError(err: unknown): err is Error & { status: number } {
  const e = err as { status?: unknown; expose?: unknown };
  return err instanceof Error && typeof e.status === 'number' && e.status >= 400 && e.status < 500 && e.expose === true;
}

function requestLog(deps: ApiDeps): Middleware {
  return async (ctx, next) => {
    const started = performance.now();
    ctx.state.requestId = ctx.get('x-request-id') || randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId as string);
    try {
      await next();
    } finally {
      deps.logger.info(
        { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) },
        'request',
      );
    }
  };
}

/** Refuses bodies nested deeper than MAX_JSON_DEPTH before any handler serialises or walks them, and text that is not Unicode. */
const boundedNesting: Middleware = async (ctx, next) => {
  const body = (ctx.request as { body?: unknown }).body;
  if (nestsDeeperThan(body, MAX_JSON_DEPTH)) {
    throw new HttpError(400, 'bad_request', `request body nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
  }
  const rawBody = (ctx.request as { rawBody?: unknown }).rawBody;
  const at = typeof rawBody === 'string' && !mayHoldLoneSurrogate(rawBody) ? null : loneSurrogateAt(body);
  if (at) throw new HttpError(400, 'bad_request', `request body: ${at} is not valid Unicode text (it holds a lone surrogate)`);
  await next();
};

/** What the routes use; one per process, shared by the API app and the OTLP port's (one ingest gate, one identity cache). */
export function apiDeps(runtime: ApiRuntime): ApiDeps {
  return {
    ...runtime,
    ingestGate: new IngestGate(runtime.bus, artifactsRaw.name, consumersOf(artifactsRaw.name, runtime.config.pipeline.topology), () => runtime.config.ingestMaxLag),
    identity: new Identity(runtime.store, runtime.state, runtime.config),
    outbound: new OutboundClient(runtime.config.outbound),
  };
}

export function createApp(runtime: ApiRuntime, deps: ApiDeps = apiDeps(runtime)): Koa {
  if (!runtime.config.jwtSecret) throw new Error('the API needs a JWT secret (CAIRN_JWT_SECRET)');
  const app = new Koa({ proxy: runtime.config.identity.trustProxy });
  runtime.health.register('api', 'api').catch((err: unknown) => runtime.logger.warn({ err }, 'could not register the API for health'));
  runtime.health.startMonitor();
  const router = new Router({ prefix: '/api' });
  const authenticateCaller = authenticate(runtime.config.jwtSecret, deps.identity);
  const routes = allRoutes();
  // Routes reading their body as bytes (OTLP's protobuf and JSON) get it unread by the JSON parser. The router
  // matches paths in any case and with a trailing slash, so the paths are compared so too.
  const rawBodyPath = (path: string) => path.toLowerCase().replace(/\/+$/, '');
  const rawBodyPaths = new Set(routes.filter((r) => r.rawBody).map((r) => rawBodyPath(`/api${r.path}`)));
  mountRoutes(router, routes, {
    deps,
    authenticate: authenticateCaller,
    validateResponses: deps.config.validateResponses,
  });

  app.use(requestLog(deps));
  app.use(requestMetrics);
  app.use(errorEnvelope(deps));
  app.use(async (ctx, next) => {
    if (ctx.path !== '/healthz') return next();
    ctx.body = { status: 'ok' };
  });
  // The analyst's console (docs/console.md): GETs outside /api, /taxii2, /healthz and the like; everything else passes on.
  app.use(consoleRoutes());
  // The SAML assertion consumer takes the IdP's HTML form post; everything else speaks JSON only (a form body elsewhere is a CSRF vector).
  const formParser = bodyParser({ enableTypes: ['form'], formLimit: '1mb' });
  app.use(async (ctx, next) => (ctx.path === SAML_ACS_PATH ? formParser(ctx, next) : next()));
  const jsonParser = bodyParser({
    enableTypes: ['json'],
    jsonLimit: MAX_BODY_BYTES,
    encoding: 'utf-8',
    onError: (err) => {
      const status = (err as { status?: number }).status;
      if (status === 413) throw new HttpError(413, 'payload_too_large', `request body is larger than ${MAX_BODY_BYTES} bytes`);
      throw new HttpError(400, 'bad_request', `request body is not valid JSON: ${err.message}`);
    },
  });
  app.use(async (ctx, next) => (rawBodyPaths.has(rawBodyPath(ctx.path)) ? next() : jsonParser(ctx, next)));
  app.use(boundedNesting);
  // TAXII 2.1 (threat intel publications) at /taxii2/, where TAXII clients look, beside /api.
  app.use(taxiiRoutes(deps, authenticateCaller));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return app;
}

/**
 * The OTLP port's app (CAIRN_OTLP_PORT): only OTLP/HTTP's standard POST /v1/logs, the API's OTLP route
 * itself (same handler, auth and limits), so that a collector's otlphttp exporter needs only host and port.
 */
export function createOtlpApp(deps: ApiDeps): Koa {
  if (!deps.config.jwtSecret) throw new Error('the OTLP listener needs a JWT secret (CAIRN_JWT_SECRET)');
  const app = new Koa({ proxy: deps.config.identity.trustProxy });
  const router = new Router();
  mountRoutes(router, [{ ...otlpLogsRoute, path: OTLP_LOGS_PATH }], {
    deps,
    authenticate: authenticate(deps.config.jwtSecret, deps.identity),
    validateResponses: deps.config.validateResponses,
  });
  app.use(requestLog(deps));
  app.use(requestMetrics);
  app.use(errorEnvelope(deps));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: true }));
  return app;
}
