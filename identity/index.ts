// Identity and access for a cairn process: one object holding the user
// directory, sessions, the login guard, API key checks and the sealed auth
// settings, made once beside the store and hot state (docs/identity.md).
import type { Config } from '../config/env.js';
import type { Store } from '../clickhouse/client.js';
import { SecretBox } from '../lib/secret-box.js';
import type { HotState } from '../pipeline/state/types.js';
import { ApiKeyVerifier } from './api-keys.js';
import { loadAuthSettings, type AuthSettings } from './auth-settings.js';
import { LoginGuard } from './login-guard.js';
import { Sessions } from './sessions.js';
import type { Directory } from './users.js';

export class Identity {
  readonly sessions: Sessions;
  readonly guard: LoginGuard;
  readonly keys: ApiKeyVerifier;
  readonly box: SecretBox;
  readonly directory: Directory;

  constructor(
    readonly store: Store,
    readonly state: HotState,
    readonly config: Config,
  ) {
    if (!config.masterKey) throw new Error('identity needs a master key (CAIRN_MASTER_KEY) to seal secrets');
    this.box = new SecretBox(config.masterKey);
    this.sessions = new Sessions(state, config.identity);
    this.guard = new LoginGuard(state, config.identity);
    this.keys = new ApiKeyVerifier(store, state);
    this.directory = { store, state, sessions: this.sessions, kdfCost: config.identity.passwordKdfCost };
  }

  settings(orgId: string): Promise<AuthSettings> {
    return loadAuthSettings(this.store, this.box, orgId);
  }
}
