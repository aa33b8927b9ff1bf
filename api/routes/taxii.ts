// The TAXII 2.1 server's HTTP side (threatintel/taxii-server.ts has the
// logic): at /taxii2/ beside /api, as TAXII clients expect. It speaks TAXII,
// not cairn's envelope: bodies and errors are TAXII resources in
// application/taxii+json;version=2.1, and an Accept header that asks for
// anything else is a 406. Callers authenticate as on the API (a cairn token
// or API key as the bearer token) and need threatfeed:read.
import Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { HttpError } from '../http-error.js';
import { requirePermission, type AuthContext } from '../auth.js';
import type { ApiDeps } from '../deps.js';
import { TAXII_MEDIA_TYPE } from '../../threatintel/stix.js';
import * as taxii from '../../threatintel/taxii-server.js';

const ROOT = `/taxii2/${taxii.API_ROOT_NAME}`;

/** Whether an Accept header admits TAXII 2.1 JSON. */
function acceptsTaxii(accept: string): boolean {
  if (!accept.trim()) return true;
  return accept.split(',').some((part) => {
    const [type, ...parameters] = part.split(';').map((p) => p.trim().toLowerCase());
    if (type === '*/*' || type === 'application/*') return true;
    if (type !== 'application/taxii+json') return false;
    const version = parameters.find((p) => p.startsWith('version='));
    return !version || version === 'version=2.1';
  });
}

function send(ctx: Context, status: number, body: unknown, headers: Record<string, string> = {}): void {
  ctx.status = status;
  ctx.body = JSON.stringify(body);
  ctx.set(headers);
  ctx.set('Content-Type', TAXII_MEDIA_TYPE);
}

/** Every error inside /taxii2 as a TAXII error message. */
const taxiiErrors: Middleware = async (ctx, next) => {
  try {
    await next();
    if (ctx.body === undefined) throw new taxii.TaxiiError(404, 'Not found', `no TAXII resource at ${ctx.path}`);
  } catch (err) {
    if (err instanceof taxii.TaxiiError) return send(ctx, err.status, err.body());
    // Refusals of the shared middleware (authentication, permission) and of the router (405) as TAXII errors too.
    const status = err instanceof HttpError ? err.status : (err as { status?: unknown; expose?: unknown }).expose === true ? Number((err as { status?: unknown }).status) : 500;
    if (status >= 400 && status < 500) {
      const title = ({ 401: 'Unauthorized', 403: 'Forbidden', 405: 'Method not allowed' } as Record<number, string>)[status] ?? 'Bad request';
      return send(ctx, status, { title, description: (err as Error).message, http_status: String(status) }, err instanceof HttpError ? err.headers : {});
    }
    throw err;
  }
};

const negotiate: Middleware = async (ctx, next) => {
  if (!acceptsTaxii(ctx.get('accept'))) throw new taxii.TaxiiError(406, 'Not acceptable', `this server answers ${TAXII_MEDIA_TYPE}`);
  await next();
};

export function taxiiRoutes(deps: ApiDeps, authenticate: Middleware): Middleware {
  const router = new Router();
  const context = (ctx: Context): taxii.TaxiiContext => ({ store: deps.store, scopes: deps.config.graph, orgId: (ctx.state.auth as AuthContext).orgId, baseUrl: `${ctx.protocol}://${ctx.host}` });
  const answer = (handler: (ctx: Context) => taxii.TaxiiAnswer | Promise<taxii.TaxiiAnswer>): Middleware => async (ctx) => {
    const result = await handler(ctx);
    send(ctx, 200, result.body, result.headers);
  };
  const query = (ctx: Context) => ctx.query as taxii.QueryParams;
  router.get('/taxii2/', answer((ctx) => taxii.discovery(context(ctx))));
  router.get(`${ROOT}/`, answer(() => taxii.apiRoot()));
  router.get(`${ROOT}/collections/`, answer((ctx) => taxii.collections(context(ctx))));
  router.get(`${ROOT}/collections/:id/`, answer((ctx) => taxii.collection(context(ctx), String(ctx.params.id))));
  router.get(`${ROOT}/collections/:id/objects/`, answer((ctx) => taxii.objects(context(ctx), String(ctx.params.id), query(ctx))));
  router.get(`${ROOT}/collections/:id/objects/:objectId/`, answer((ctx) => taxii.object(context(ctx), String(ctx.params.id), String(ctx.params.objectId), query(ctx))));
  router.get(`${ROOT}/collections/:id/objects/:objectId/versions/`, answer((ctx) => taxii.versions(context(ctx), String(ctx.params.id), String(ctx.params.objectId), query(ctx))));
  router.get(`${ROOT}/collections/:id/manifest/`, answer((ctx) => taxii.manifest(context(ctx), String(ctx.params.id), query(ctx))));
  const routes = router.routes() as Middleware;
  const methods = router.allowedMethods({ throw: true }) as Middleware;
  const readers = requirePermission('threatfeed:read');
  return async (ctx, next) => {
    if (ctx.path !== '/taxii2' && !ctx.path.startsWith('/taxii2/')) return next();
    const end = async () => {};
    await taxiiErrors(ctx, () => negotiate(ctx, () => authenticate(ctx, () => readers(ctx, () => routes(ctx, () => methods(ctx, end))))));
  };
}
