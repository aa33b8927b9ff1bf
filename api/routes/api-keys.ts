// API keys (docs/identity.md) for sensors and scripts: an admin manages
// anyone's, a user their own. The secret is in the answer to the create
// request and nowhere else; a key's permissions are never wider than its
// creator's.
import { z } from 'zod';
import { getApiKey, listApiKeys, type ApiKey } from '../../clickhouse/tables/api-keys.js';
import { getUser } from '../../clickhouse/tables/users.js';
import { createApiKey, revokeApiKey } from '../../identity/api-keys.js';
import { PERMISSIONS } from '../../identity/permissions.js';
import { findRole } from '../../identity/roles.js';
import type { AuthContext } from '../auth.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, QueryBoolean, Timestamp } from '../schemas.js';

const ApiKeySchema = z.object({
  id: z.string(),
  user_id: z.string(),
  name: z.string(),
  permissions: z.array(z.string()),
  expires_at: Timestamp.nullable(),
  revoked_at: Timestamp.nullable(),
  created_at: Timestamp,
  last_used_at: Timestamp.nullable().describe('updated at most once a minute'),
});

function publicKey(key: ApiKey): z.input<typeof ApiKeySchema> {
  const { secret_hash: _hash, org_id: _org, ...visible } = key;
  return visible;
}

const isAdmin = (auth: AuthContext) => auth.permissions.has('admin');

/** The key if the caller may manage it (an admin, or its owner); 404 otherwise, so ids of others' keys are not confirmed. */
async function findKey(deps: ApiDeps, auth: AuthContext, id: string): Promise<ApiKey> {
  const key = await getApiKey(deps.store, auth.orgId, id);
  if (!key || (!isAdmin(auth) && key.user_id !== auth.userId)) throw notFound('API key');
  return key;
}

const CreateKey = z.object({
  name: z.string().trim().min(1, 'name is required').max(200),
  permissions: z
    .array(z.enum(PERMISSIONS, { message: `each permission must be one of: ${PERMISSIONS.join(', ')}` }))
    .min(1, 'give at least one permission')
    .transform((p) => [...new Set(p)]),
  expires_at: Timestamp.optional().refine((t) => t === undefined || Date.parse(t) > Date.now(), 'expires_at must be in the future'),
  user_id: z.uuid('user_id must be a UUID').optional().describe('the owner (admins only; default: the caller)'),
});

export const apiKeyRoutes = [
  defineRoute({
    method: 'post',
    path: '/v1/api-keys',
    summary: 'Create an API key; its token (cairn_<id>_<secret>) is in this answer only',
    description: 'Permissions must be within the creator\'s own, and the key never does more than its owner\'s current role allows. Send the token as "Authorization: Bearer <token>".',
    tag: 'API keys',
    permission: 'authenticated',
    body: CreateKey,
    response: ApiKeySchema.extend({ token: z.string().describe('shown once; only a hash is stored') }),
    successStatus: 201,
    errors: [403, 404],
    async handler({ body, auth, deps }) {
      const ownerId = body.user_id ?? auth.userId;
      if (!ownerId) throw badRequest('user_id is required: this token stands for no user');
      if (ownerId !== auth.userId && !isAdmin(auth)) throw new HttpError(403, 'forbidden', 'only an admin may create keys for another user');
      const beyond = body.permissions.filter((p) => !auth.permissions.has(p));
      if (beyond.length) throw new HttpError(403, 'forbidden', `a key cannot have permissions its creator lacks: ${beyond.join(', ')}`);
      const owner = await getUser(deps.store, auth.orgId, ownerId);
      if (!owner?.active) throw notFound('user');
      const role = await findRole(deps.store, auth.orgId, owner.role_id);
      const ownerLacks = body.permissions.filter((p) => !role?.permissions.includes(p));
      if (ownerLacks.length) throw badRequest(`the key's owner lacks: ${ownerLacks.join(', ')}`);
      const { key, token } = await createApiKey(deps.store, { orgId: auth.orgId, userId: owner.id, name: body.name, permissions: body.permissions, expiresAt: body.expires_at ?? null });
      return { message: 'API key created: store the token now, it is not shown again', data: { ...publicKey(key), token }, audit: { after: publicKey(key) } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/api-keys',
    summary: 'List API keys, newest first: an admin sees everyone\'s (filter user_id), others their own',
    tag: 'API keys',
    permission: 'authenticated',
    query: Pagination.extend({ user_id: z.uuid('user_id must be a UUID').optional(), revoked: QueryBoolean.optional().describe('include revoked keys') }),
    response: listData('api_keys', ApiKeySchema),
    async handler({ query, auth, deps }) {
      const userId = isAdmin(auth) ? query.user_id : (auth.userId ?? '00000000-0000-0000-0000-000000000000');
      const { keys, total } = await listApiKeys(deps.store, auth.orgId, { ...query, userId });
      return { message: `${total} API key(s)`, data: { api_keys: keys.map(publicKey), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/api-keys/:id',
    summary: 'Revoke an API key: it fails at once, on every API process',
    tag: 'API keys',
    permission: 'authenticated',
    params: IdParams,
    response: z.null(),
    errors: [404],
    async handler({ params, auth, deps }) {
      const key = await findKey(deps, auth, params.id);
      const revoked = key.revoked_at ? key : await revokeApiKey(deps.store, deps.state, key);
      return { message: 'API key revoked', data: null, audit: { before: publicKey(key), after: publicKey(revoked) } };
    },
  }),
];
