// Login sessions in hot state (Redis, or the local journal): idle and
// absolute timeouts, and an index per user so that deactivating a user or
// changing their role or password ends every session at once. Access tokens
// carry their session's key (`sid`) and fail as soon as it is gone.
import { createHash, randomBytes } from 'node:crypto';
import type { IdentityConfig } from '../config/env.js';
import type { HotState } from '../pipeline/state/types.js';

export interface Session {
  /** Hash of the cookie secret: what hot state and tokens hold, so neither reveals a usable cookie. */
  key: string;
  user_id: string;
  org_id: string;
  email: string;
  permissions: string[];
  /** How the user proved who they are: local, ldap or saml. */
  method: string;
  /** Sent with state-changing requests authenticated by the cookie (X-CSRF-Token), besides the Origin check. */
  csrf_token: string;
  created_at: number;
  last_seen: number;
}

/** Hot state is written again on use at most this often, not on every request. */
const TOUCH_INTERVAL_MS = 60_000;

const sessionKey = (key: string) => `session:${key}`;
const userIndexKey = (userId: string) => `user-sessions:${userId}`;

export function keyOfSecret(secret: string): string {
  return createHash('sha256').update(secret).digest('base64url');
}

export class Sessions {
  constructor(
    private readonly state: HotState,
    private readonly config: Pick<IdentityConfig, 'sessionIdleMs' | 'sessionMaxAgeMs'>,
  ) {}

  /** Starts a session; the secret goes in the cookie and nowhere else. */
  async start(fields: Omit<Session, 'key' | 'csrf_token' | 'created_at' | 'last_seen'>): Promise<{ secret: string; session: Session }> {
    const secret = randomBytes(32).toString('base64url');
    const now = Date.now();
    const session: Session = { ...fields, key: keyOfSecret(secret), csrf_token: randomBytes(24).toString('base64url'), created_at: now, last_seen: now };
    await this.state.set(sessionKey(session.key), JSON.stringify(session), this.config.sessionIdleMs);
    await this.state.windowAdd(userIndexKey(session.user_id), session.key, now, this.config.sessionMaxAgeMs);
    return { secret, session };
  }

  /** The live session under `key`, its idle time reset; null when ended or timed out. */
  async resume(key: string): Promise<Session | null> {
    const text = await this.state.get(sessionKey(key));
    if (!text) return null;
    const session = JSON.parse(text) as Session;
    const now = Date.now();
    const endsAt = session.created_at + this.config.sessionMaxAgeMs;
    if (now >= endsAt || now - session.last_seen >= this.config.sessionIdleMs) {
      await this.end(key);
      return null;
    }
    if (now - session.last_seen >= TOUCH_INTERVAL_MS) {
      session.last_seen = now;
      await this.state.set(sessionKey(key), JSON.stringify(session), Math.min(this.config.sessionIdleMs, endsAt - now));
    }
    return session;
  }

  async end(key: string): Promise<void> {
    await this.state.delete(sessionKey(key));
  }

  /** Ends every session of the user (revocation: tokens issued under them fail on their next request). */
  async endAllOf(userId: string): Promise<number> {
    const keys = await this.state.windowMembers(userIndexKey(userId), 0, Number.MAX_SAFE_INTEGER);
    for (const key of keys) await this.end(key);
    await this.state.delete(userIndexKey(userId));
    return keys.length;
  }
}
