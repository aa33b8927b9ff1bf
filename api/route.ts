// One declaration per route: method, path, permission, zod schemas for
// params, query and body, the response data schema, and the handler.
// Validation, auth, the envelope and the OpenAPI document all come from it.
import type { Readable } from 'node:stream';
import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import type { ApiDeps } from './deps.js';
import { requirePermission, requireSession, type AuthContext } from './auth.js';
import { recordChange, type AuditNote } from './audit.js';
import { HttpError } from './http-error.js';
import { isYamlRequest, readYamlBody } from './yaml-body.js';
import { readRawBody, type RawBodyOptions, type RawRequestBody } from './raw-body.js';
import type { Permission } from '../identity/permissions.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

type Schema = z.ZodType;
type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  /** The caller; absent only on public routes. */
  auth: AuthContext;
  deps: ApiDeps;
  ctx: Context;
  /** The body as sent (gunzipped), on routes declaring `rawBody`; undefined on the others. */
  rawBody: RawRequestBody | undefined;
}

export interface RouteResult<D> {
  message: string;
  data: D;
  /** Overrides the route's success status (e.g. 202 when work was queued). */
  status?: number;
  /** Answers with this document instead of the JSON envelope (an export the client saves as a file); `data` is then not sent. */
  file?: FileBody;
  /** For the audit log: the resource before and after (redacted there), the target id, or another actor (login). */
  audit?: AuditNote;
  /** Answers 302 to this URL instead of the envelope (browser steps of SAML login). */
  redirect?: string;
  /** Answers with this status, these headers and this body as they are instead of the envelope: server-sent events, the MCP transport's JSON-RPC answer. */
  raw?: RawBody;
}

export interface RawBody {
  status: number;
  headers: Record<string, string>;
  /** A stream is sent as it is written (server-sent events); bytes for binary protocols (OTLP's protobuf). */
  body: string | Buffer | Readable | null;
}

export interface FileBody {
  contentType: string;
  body: string;
  /** Suggested file name, sent in Content-Disposition. */
  filename: string;
}

export interface RouteSpec<P extends Schema | undefined, Q extends Schema | undefined, B extends Schema | undefined, R extends Schema> {
  method: HttpMethod;
  /** Relative to /api, e.g. /v1/lead-rules/:id */
  path: string;
  summary: string;
  /** Longer text for the API document: what an extension does, the formats it answers in. */
  description?: string;
  tag: string;
  /** null for the few public routes (health, API description, login); 'authenticated' for routes any caller may use on their own behalf. */
  permission: Permission | 'authenticated' | null;
  /** Changes are recorded in the audit log (every non-GET route) unless false: ingest and read-only POSTs (searches, rule trials). */
  audit?: false;
  /** Only the session cookie of a login authenticates (SPEC 5.4, the notifications family B): a bearer token alone is 401. */
  session?: true;
  params?: P;
  query?: Q;
  body?: B;
  /** The body may also come as YAML (Content-Type application/yaml, api/yaml-body.ts): the same document, validated by `body` alike. */
  yamlBody?: true;
  /**
   * The body is read as bytes, not parsed as JSON: a protocol of its own (OTLP's protobuf or JSON). Its media types (any
   * other answers 415), gunzipped per Content-Encoding, bounded (413); the handler gets it as `rawBody`. No `body` schema then.
   */
  rawBody?: RawBodyOptions;
  /** Errors answered in the route's own protocol instead of the error envelope (OTLP answers a google.rpc.Status); auth, validation and handler errors alike. */
  errorBody?: ErrorBody;
  /** Schema of `data` in the success envelope. */
  response: R;
  successStatus?: number;
  /** false: the handler's data is the whole response body (e.g. the OpenAPI document). */
  envelope?: boolean;
  /** Extra documented error statuses, besides 400/401/403/500. */
  errors?: number[];
  /** Content types the route may answer with besides JSON (see RouteResult.file), for the API document. */
  fileTypes?: string[];
  /** A multipart/form-data request (the handler reads it): part name to description, for the API document. */
  multipart?: { parts: Record<string, string>; required: string[] };
  handler(input: RouteInput<Infer<P>, Infer<Q>, Infer<B>>): Promise<RouteResult<z.input<R>>>;
}

export interface ErrorBody {
  /** What an error answer holds, for the API document. */
  description: string;
  render(error: { status: number; code: string; message: string }, ctx: Context): RawBody;
}

export type Route = RouteSpec<Schema | undefined, Schema | undefined, Schema | undefined, Schema>;

export function defineRoute<P extends Schema | undefined = undefined, Q extends Schema | undefined = undefined, B extends Schema | undefined = undefined, R extends Schema = Schema>(
  spec: RouteSpec<P, Q, B, R>,
): Route {
  return spec as unknown as Route;
}

function parseInput(schema: Schema | undefined, value: unknown, where: 'path' | 'query' | 'body'): unknown {
  if (!schema) return undefined;
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues = result.error.issues.map((i) => ({ in: where, path: i.path.join('.'), message: i.message }));
  const first = issues[0]!;
  const subject = first.path ? `${first.path}: ` : '';
  throw new HttpError(400, 'validation_error', `invalid ${where === 'path' ? 'path parameter' : where}: ${subject}${first.message}`, issues);
}

export interface MountOptions {
  deps: ApiDeps;
  authenticate: Middleware;
  validateResponses: boolean;
}

export function mountRoutes(router: Router, routes: Route[], { deps, authenticate, validateResponses }: MountOptions): void {
  for (const route of routes) {
    const guards: Middleware[] =
      route.permission === null
        ? []
        : [authenticate, ...(route.session ? [requireSession] : []), ...(route.permission === 'authenticated' ? [] : [requirePermission(route.permission)])];
    const audited = route.method !== 'get' && route.audit !== false;
    const handle: Middleware = async (ctx) => {
      const params = parseInput(route.params, ctx.params, 'path');
      const query = parseInput(route.query, ctx.query, 'query');
      const rawBody = route.rawBody ? await readRawBody(ctx, route.rawBody) : undefined;
      const sent = route.yamlBody && isYamlRequest(ctx) ? await readYamlBody(ctx) : (ctx.request as { body?: unknown }).body;
      const body = parseInput(route.body, sent ?? {}, 'body');
      const result = await route.handler({ params, query, body, auth: ctx.state.auth as AuthContext, deps, ctx, rawBody });
      if (audited) await recordChange(deps, ctx, route, params, result);
      if (result.redirect) {
        ctx.redirect(result.redirect);
        return;
      }
      if (result.raw) {
        // Body before status: Koa turns any status into 204 when a null body is set after it.
        ctx.body = result.raw.body;
        ctx.status = result.raw.status;
        ctx.set(result.raw.headers);
        return;
      }
      if (result.file) {
        ctx.status = result.status ?? route.successStatus ?? 200;
        ctx.type = result.file.contentType;
        ctx.attachment(result.file.filename, { type: 'inline' });
        ctx.body = result.file.body;
        return;
      }
      let data: unknown = result.data;
      if (validateResponses) {
        const checked = route.response.safeParse(data);
        if (!checked.success) {
          throw new Error(`response of ${route.method.toUpperCase()} ${route.path} does not match its schema: ${checked.error.message}`);
        }
        data = checked.data;
      }
      ctx.status = result.status ?? route.successStatus ?? 200;
      ctx.body = route.envelope === false ? data : { success: true, message: result.message, data };
    };
    // Set before the guards, so that a 401 or 403 is answered in the route's protocol too (the error middleware reads it).
    const errorBody: Middleware[] = route.errorBody ? [(ctx, next) => ((ctx.state.errorBody = route.errorBody), next())] : [];
    router.register(route.path, [route.method.toUpperCase()], [...errorBody, ...guards, handle]);
  }
}
