// Who is querying: a cairn user (email as user name, their password) or an API
// key (its token as password, any user name), as ClickHouse clients send
// credentials. Failures count against the login guard as logins do, and a
// user's checked password is remembered for a minute, since a dashboard sends
// it with every query and checking it costs a password hash each time.
import { createHash } from 'node:crypto';
import { looksLikeApiKey } from '../../identity/api-keys.js';
import type { Identity } from '../../identity/index.js';
import { checkCredentials } from '../../identity/login.js';
import { findRole } from '../../identity/roles.js';
import { ClickHouseHttpError, ErrorCode, type Credentials } from './protocol.js';

export interface Caller {
  orgId: string;
  /** The user's email, for the log. */
  who: string;
  permissions: ReadonlySet<string>;
}

const REMEMBER_MS = 60_000;

function refused(user: string): ClickHouseHttpError {
  // ClickHouse's words: the same whatever was wrong.
  return new ClickHouseHttpError(ErrorCode.AUTHENTICATION_FAILED, `${user}: Authentication failed: password is incorrect, or there is no user with such name`);
}

export class ReportingAuth {
  private readonly remembered = new Map<string, { caller: Caller; until: number }>();

  constructor(
    private readonly identity: Identity,
    private readonly orgId: string,
  ) {}

  async authenticate({ user, password }: Credentials, address: string): Promise<Caller> {
    if (looksLikeApiKey(password)) {
      const holder = await this.identity.keys.verify(password);
      if (!holder) throw refused(user);
      return { orgId: holder.orgId, who: holder.email, permissions: new Set(holder.permissions) };
    }
    const key = createHash('sha256').update(`${user.toLowerCase()}\0${password}`).digest('hex');
    const known = this.remembered.get(key);
    if (known && known.until > Date.now()) return known.caller;
    this.remembered.delete(key);
    const { guard } = this.identity;
    if ((await guard.retryAfter(user, address)) > 0) throw refused(user);
    const settings = await this.identity.settings(this.orgId);
    const check = await checkCredentials(this.identity.directory, settings, this.orgId, user, password);
    if (!check.ok) {
      await guard.recordFailure(user, address);
      throw refused(user);
    }
    await guard.recordSuccess(user);
    const role = await findRole(this.identity.store, check.user.org_id, check.user.role_id);
    const caller: Caller = { orgId: check.user.org_id, who: check.user.email, permissions: new Set(role?.permissions ?? []) };
    for (const [k, v] of this.remembered) if (v.until <= Date.now()) this.remembered.delete(k);
    this.remembered.set(key, { caller, until: Date.now() + REMEMBER_MS });
    return caller;
  }
}
