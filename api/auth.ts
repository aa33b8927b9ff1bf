// Who is calling: a bearer JWT (from login, or minted by `cairn token` for
// operators), a bearer API key, or the session cookie set at login; and
// per-route permission checks. A login token names its session (`sid`) and
// fails as soon as the session ends (logout, deactivation, role or password
// change). Requests that change state on the strength of the cookie alone
// must prove they come from cairn's own pages (docs/identity.md, CSRF).
import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import koaJwt from 'koa-jwt';
import type { Context, Middleware } from 'koa';
import { z } from 'zod';
import { HttpError } from './http-error.js';
import type { Identity } from '../identity/index.js';
import type { Permission } from '../identity/permissions.js';
import { looksLikeApiKey } from '../identity/api-keys.js';
import { keyOfSecret } from '../identity/sessions.js';

export const JWT_ALGORITHM = 'HS256';
export const SESSION_COOKIE = 'cairn_session';
export const CSRF_HEADER = 'x-csrf-token';

const Claims = z.object({
  sub: z.string().min(1),
  org_id: z.string().min(1),
  permissions: z.array(z.string()),
  exp: z.number(),
  /** The login session the token was issued under; absent on operator tokens from `cairn token`. */
  sid: z.string().optional(),
  email: z.string().optional(),
});

export type AuthVia = 'session' | 'token' | 'api_key' | 'service';

export interface AuthContext {
  /** Who: a user id, or the service name of an operator token. */
  subject: string;
  orgId: string;
  permissions: ReadonlySet<string>;
  via: AuthVia;
  /** The user behind the request (null for operator tokens). */
  userId: string | null;
  email: string | null;
  /** The login session, for logout. */
  sessionKey: string | null;
  keyId: string | null;
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Verifies the caller and puts it on `ctx.state.auth`; 401 otherwise. */
export function authenticate(secret: string, identity: Identity): Middleware {
  // A key object made once: given a string, jsonwebtoken parses it again on every request.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const verifyJwt = koaJwt({ secret: key as unknown as koaJwt.Secret, algorithms: [JWT_ALGORITHM], key: 'claims', debug: true });

  async function fromJwt(ctx: Context): Promise<AuthContext> {
    try {
      await verifyJwt(ctx, async () => {});
    } catch (err) {
      throw new HttpError(401, 'unauthorized', describeTokenError(err));
    }
    const claims = Claims.safeParse(ctx.state.claims);
    if (!claims.success) throw new HttpError(401, 'unauthorized', 'token claims are invalid: sub, org_id, permissions and exp are required', z.treeifyError(claims.error));
    const { sub, org_id, permissions, sid, email } = claims.data;
    if (sid === undefined) return { subject: sub, orgId: org_id, permissions: new Set(permissions), via: 'service', userId: null, email: null, sessionKey: null, keyId: null };
    const session = await identity.sessions.resume(sid);
    if (!session || session.user_id !== sub) throw new HttpError(401, 'unauthorized', 'the session of this token has ended: log in again');
    return { subject: sub, orgId: org_id, permissions: new Set(permissions), via: 'token', userId: sub, email: email ?? session.email, sessionKey: sid, keyId: null };
  }

  async function fromApiKey(token: string): Promise<AuthContext> {
    const holder = await identity.keys.verify(token);
    if (!holder) throw new HttpError(401, 'unauthorized', 'invalid, expired or revoked API key');
    return { subject: holder.userId, orgId: holder.orgId, permissions: new Set(holder.permissions), via: 'api_key', userId: holder.userId, email: holder.email, sessionKey: null, keyId: holder.keyId };
  }

  async function fromCookie(ctx: Context, cookie: string): Promise<AuthContext> {
    const session = await identity.sessions.resume(keyOfSecret(cookie));
    if (!session) throw new HttpError(401, 'unauthorized', 'the session has expired or ended: log in again');
    if (!SAFE_METHODS.has(ctx.method) && !sameSite(ctx, session.csrf_token, identity.config.identity.publicUrl)) {
      throw new HttpError(403, 'csrf_refused', `a state-changing request on the session cookie needs an Origin header of this site or the ${CSRF_HEADER} header given at login`);
    }
    return { subject: session.user_id, orgId: session.org_id, permissions: new Set(session.permissions), via: 'session', userId: session.user_id, email: session.email, sessionKey: session.key, keyId: null };
  }

  return async (ctx, next) => {
    const header = ctx.get('authorization');
    const cookie = ctx.cookies.get(SESSION_COOKIE);
    let auth: AuthContext;
    if (header) {
      const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
      if (!bearer) throw new HttpError(401, 'unauthorized', 'the Authorization header must be "Bearer <token>"');
      auth = looksLikeApiKey(bearer) ? await fromApiKey(bearer) : await fromJwt(ctx);
    } else if (cookie) {
      auth = await fromCookie(ctx, cookie);
    } else {
      throw new HttpError(401, 'unauthorized', 'missing bearer token in the Authorization header (or a session cookie)');
    }
    ctx.state.auth = auth;
    await next();
  };
}

/** The CSRF token header matches the session's, or the browser says the request comes from this site. */
function sameSite(ctx: Context, csrfToken: string, publicUrl: string): boolean {
  if (ctx.get(CSRF_HEADER) === csrfToken) return true;
  const origin = ctx.get('origin');
  if (!origin || origin === 'null') return false;
  // Not ctx.origin: Koa 3 answers that with the request's own Origin header.
  return origin === `${ctx.protocol}://${ctx.host}` || origin === new URL(publicUrl).origin;
}

function describeTokenError(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  if (message.includes('expired')) return 'token expired';
  if (message.includes('algorithm')) return `invalid token: only ${JWT_ALGORITHM} is accepted`;
  return `invalid token: ${message || 'verification failed'}`;
}

/** For routes only a logged-in browser session may use. */
export const requireSession: Middleware = async (ctx, next) => {
  if ((ctx.state.auth as AuthContext | undefined)?.via !== 'session') {
    throw new HttpError(401, 'unauthorized', `this route takes the session cookie from POST /api/v1/auth/login (without an Authorization header), not a bearer token`);
  }
  await next();
};

export function requirePermission(permission: Permission): Middleware {
  return async (ctx, next) => {
    const auth = ctx.state.auth as AuthContext | undefined;
    if (!auth?.permissions.has(permission)) {
      throw new HttpError(403, 'forbidden', `this action requires the "${permission}" permission`, { required: permission });
    }
    await next();
  };
}

export interface TokenRequest {
  subject: string;
  orgId: string;
  permissions: readonly string[];
  ttlSeconds: number;
  /** The login session the token belongs to. */
  sessionKey?: string;
  email?: string;
}

export function mintToken(secret: string, request: TokenRequest): string {
  const claims = { org_id: request.orgId, permissions: request.permissions, ...(request.sessionKey ? { sid: request.sessionKey } : {}), ...(request.email ? { email: request.email } : {}) };
  return jwt.sign(claims, secret, { algorithm: JWT_ALGORITHM, subject: request.subject, expiresIn: request.ttlSeconds });
}
