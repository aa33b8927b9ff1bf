// Brute-force defence for login: failures are counted per account and per
// client address in a fixed window (hot state, so every API process shares
// the count); past the limit login answers 429 with Retry-After until the
// window ends. The answer is the same whether the account exists or not.
import type { IdentityConfig } from '../config/env.js';
import type { HotState } from '../pipeline/state/types.js';

type Limits = Pick<IdentityConfig, 'loginMaxFailures' | 'loginMaxFailuresPerAddress' | 'loginFailureWindowMs'>;

interface Counter {
  key: string;
  limit: number;
}

export class LoginGuard {
  constructor(
    private readonly state: HotState,
    private readonly limits: Limits,
  ) {}

  private counters(account: string, address: string): Counter[] {
    return [
      { key: `login-failures:account:${account.toLowerCase()}`, limit: this.limits.loginMaxFailures },
      { key: `login-failures:address:${address}`, limit: this.limits.loginMaxFailuresPerAddress },
    ];
  }

  /** Seconds until login may be tried again, or 0 when it may be tried now. */
  async retryAfter(account: string, address: string): Promise<number> {
    let wait = 0;
    for (const { key, limit } of this.counters(account, address)) {
      const count = Number((await this.state.get(`${key}:count`)) ?? 0);
      if (count < limit) continue;
      const since = Number((await this.state.get(`${key}:since`)) ?? Date.now());
      wait = Math.max(wait, Math.ceil((since + this.limits.loginFailureWindowMs - Date.now()) / 1000));
    }
    return Math.max(0, wait);
  }

  async recordFailure(account: string, address: string): Promise<void> {
    const window = this.limits.loginFailureWindowMs;
    for (const { key } of this.counters(account, address)) {
      // A fixed window from the first failure: later failures count without extending it.
      if (await this.state.setIfAbsent(`${key}:count`, '0', window)) await this.state.set(`${key}:since`, String(Date.now()), window);
      await this.state.increment(`${key}:count`, 1);
    }
  }

  /** A successful login clears the account's count (not the address's: one good account must not reset a spray). */
  async recordSuccess(account: string): Promise<void> {
    const [accountCounter] = this.counters(account, '');
    await this.state.delete(`${accountCounter!.key}:count`);
    await this.state.delete(`${accountCounter!.key}:since`);
  }
}
