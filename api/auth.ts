// Bearer JWT authentication (HS256 pinned, exp required and enforced) and
// per-route permission checks.
import { createSecretKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import koaJwt from 'koa-jwt';
import type { Middleware } from 'koa';
import { z } from 'zod';
import { HttpError } from './http-error.js';
import type { Permission } from './permissions.js';

export const JWT_ALGORITHM = 'HS256';

const Claims = z.object({
  sub: z.string().min(1),
  org_id: z.string().min(1),
  permissions: z.array(z.string()),
  exp: z.number(),
});

export interface AuthContext {
  /** Who: the token's subject (a user id or a service name). */
  subject: string;
  orgId: string;
  permissions: ReadonlySet<string>;
}

/** Verifies the bearer token and puts the caller on `ctx.state.auth`; 401 otherwise. */
export function authenticate(secret: string): Middleware {
  // A key object made once: given a string, jsonwebtoken parses it again on every request.
  const key = createSecretKey(Buffer.from(secret, 'utf8'));
  const verify = koaJwt({ secret: key as unknown as koaJwt.Secret, algorithms: [JWT_ALGORITHM], key: 'claims', debug: true });
  return async (ctx, next) => {
    if (!ctx.get('authorization')) throw new HttpError(401, 'unauthorized', 'missing bearer token in the Authorization header');
    let verified = false;
    try {
      await verify(ctx, async () => {
        verified = true;
        const claims = Claims.safeParse(ctx.state.claims);
        if (!claims.success) {
          throw new HttpError(401, 'unauthorized', 'token claims are invalid: sub, org_id, permissions and exp are required', z.treeifyError(claims.error));
        }
        const auth: AuthContext = { subject: claims.data.sub, orgId: claims.data.org_id, permissions: new Set(claims.data.permissions) };
        ctx.state.auth = auth;
        await next();
      });
    } catch (err) {
      if (verified) throw err; // from the route, not from verification
      throw new HttpError(401, 'unauthorized', describeTokenError(err));
    }
  };
}

function describeTokenError(err: unknown): string {
  const message = err instanceof Error ? err.message : '';
  if (message.includes('expired')) return 'token expired';
  if (message.includes('algorithm')) return `invalid token: only ${JWT_ALGORITHM} is accepted`;
  return `invalid token: ${message || 'verification failed'}`;
}

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
}

export function mintToken(secret: string, request: TokenRequest): string {
  return jwt.sign({ org_id: request.orgId, permissions: request.permissions }, secret, {
    algorithm: JWT_ALGORITHM,
    subject: request.subject,
    expiresIn: request.ttlSeconds,
  });
}
