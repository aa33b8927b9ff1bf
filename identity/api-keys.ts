// API keys for sensors and scripts: `cairn_<key id>_<secret>`, sent as the
// bearer token. Only a SHA-256 of the 256-bit secret is stored. A key acts
// for its owner with at most its own permissions and at most the owner's
// current ones; it stops working when revoked, expired, or when its owner is
// deactivated or deleted. Verified keys are cached in hot state, where a
// revocation leaves a tombstone, so every API process refuses the key at once.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Store } from '../clickhouse/client.js';
import { getApiKey, liveKeysOf, recordKeyUse, saveApiKey, type ApiKey } from '../clickhouse/tables/api-keys.js';
import { getUser } from '../clickhouse/tables/users.js';
import { newId } from '../lib/ids.js';
import type { HotState } from '../pipeline/state/types.js';
import { findRole } from './roles.js';

const PREFIX = 'cairn_';
const TOKEN = /^cairn_([0-9a-f]{32})_([A-Za-z0-9_-]{43})$/;
const CACHE_MS = 5 * 60_000;
const TOMBSTONE_MS = 24 * 3_600_000;
const REVOKED = 'revoked';
/** last_used_at is written at most this often per key, not on every request. */
const USE_RECORD_INTERVAL_MS = 60_000;

export function looksLikeApiKey(token: string): boolean {
  return token.startsWith(PREFIX);
}

const hashSecret = (secret: string) => createHash('sha256').update(secret).digest('hex');
const cacheKey = (id: string) => `api-key:${id}`;

function idOf(compact: string): string {
  return `${compact.slice(0, 8)}-${compact.slice(8, 12)}-${compact.slice(12, 16)}-${compact.slice(16, 20)}-${compact.slice(20)}`;
}

export interface NewApiKey {
  orgId: string;
  userId: string;
  name: string;
  permissions: string[];
  expiresAt: string | null;
}

/** Makes a key; the token (with its secret) is in the answer and nowhere else. */
export async function createApiKey(store: Store, request: NewApiKey): Promise<{ key: ApiKey; token: string }> {
  const id = newId();
  const secret = randomBytes(32).toString('base64url');
  const key: ApiKey = {
    id,
    org_id: request.orgId,
    user_id: request.userId,
    name: request.name,
    permissions: request.permissions,
    secret_hash: hashSecret(secret),
    expires_at: request.expiresAt,
    revoked_at: null,
    created_at: new Date().toISOString(),
    last_used_at: null,
  };
  await saveApiKey(store, key);
  return { key, token: `${PREFIX}${id.replaceAll('-', '')}_${secret}` };
}

export async function revokeApiKey(store: Store, state: HotState, key: ApiKey): Promise<ApiKey> {
  const revoked = { ...key, revoked_at: new Date().toISOString() };
  await saveApiKey(store, revoked);
  await state.set(cacheKey(key.id), REVOKED, TOMBSTONE_MS);
  return revoked;
}

/** Revokes every live key of a user (the user was deactivated or deleted). */
export async function revokeKeysOf(store: Store, state: HotState, orgId: string, userId: string): Promise<number> {
  const keys = await liveKeysOf(store, orgId, userId);
  for (const key of keys) await revokeApiKey(store, state, key);
  return keys.length;
}

/** Drops cached keys of a user so the next use reads the owner's new permissions. */
export async function refreshKeysOf(store: Store, state: HotState, orgId: string, userId: string): Promise<void> {
  for (const key of await liveKeysOf(store, orgId, userId)) await state.delete(cacheKey(key.id));
}

interface CachedKey {
  org_id: string;
  user_id: string;
  email: string;
  permissions: string[];
  secret_hash: string;
  expires_at: number | null;
}

export interface KeyHolder {
  keyId: string;
  orgId: string;
  userId: string;
  email: string;
  permissions: string[];
}

export class ApiKeyVerifier {
  private readonly lastRecorded = new Map<string, number>();

  constructor(
    private readonly store: Store,
    private readonly state: HotState,
  ) {}

  /** Who the token stands for, or null when it is not a live key. */
  async verify(token: string): Promise<KeyHolder | null> {
    const match = TOKEN.exec(token);
    if (!match) return null;
    const id = idOf(match[1]!);
    const cached = await this.load(id);
    if (!cached) return null;
    const given = Buffer.from(hashSecret(match[2]!), 'hex');
    if (!timingSafeEqual(given, Buffer.from(cached.secret_hash, 'hex'))) return null;
    if (cached.expires_at !== null && cached.expires_at <= Date.now()) return null;
    await this.noteUse(cached.org_id, id);
    return { keyId: id, orgId: cached.org_id, userId: cached.user_id, email: cached.email, permissions: cached.permissions };
  }

  private async load(id: string): Promise<CachedKey | null> {
    const text = await this.state.get(cacheKey(id));
    if (text === REVOKED) return null;
    if (text) return JSON.parse(text) as CachedKey;
    const key = await getApiKey(this.store, null, id);
    if (!key || key.revoked_at) return null;
    const owner = await getUser(this.store, key.org_id, key.user_id);
    if (!owner?.active) return null;
    const role = await findRole(this.store, key.org_id, owner.role_id);
    const allowed = new Set<string>(role?.permissions ?? []);
    const entry: CachedKey = {
      org_id: key.org_id,
      user_id: owner.id,
      email: owner.email,
      permissions: key.permissions.filter((p) => allowed.has(p)),
      secret_hash: key.secret_hash,
      expires_at: key.expires_at ? Date.parse(key.expires_at) : null,
    };
    // setIfAbsent: a revocation's tombstone written meanwhile wins over this read.
    await this.state.setIfAbsent(cacheKey(id), JSON.stringify(entry), CACHE_MS);
    return (await this.state.get(cacheKey(id))) === REVOKED ? null : entry;
  }

  private async noteUse(orgId: string, id: string): Promise<void> {
    const now = Date.now();
    if (now - (this.lastRecorded.get(id) ?? 0) < USE_RECORD_INTERVAL_MS) return;
    this.lastRecorded.set(id, now);
    await recordKeyUse(this.store, { org_id: orgId, id }, new Date(now).toISOString());
  }
}
