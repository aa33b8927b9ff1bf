// The login limits on the real local hot state: per account and per client
// address, a fixed window from the first failure, and Retry-After counting
// down to its end.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LoginGuard } from '../../identity/login-guard.js';
import { LocalState } from '../../pipeline/state/local-state.js';

let state: LocalState;
beforeAll(async () => {
  state = await LocalState.open(path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'cairn-guard-')), 'state.journal'));
});
afterAll(async () => state?.close());

describe('LoginGuard', () => {
  it('limits one account, whatever address it is tried from, and a success clears its count', async () => {
    const guard = new LoginGuard(state, { loginMaxFailures: 3, loginMaxFailuresPerAddress: 100, loginFailureWindowMs: 60_000 });
    for (let i = 0; i < 2; i++) await guard.recordFailure('Mallory@Example.com', `10.0.0.${i}`);
    expect(await guard.retryAfter('mallory@example.com', '10.9.9.9')).toBe(0);
    await guard.recordSuccess('mallory@example.com');
    for (let i = 0; i < 3; i++) await guard.recordFailure('mallory@example.com', `10.0.1.${i}`);
    const wait = await guard.retryAfter('mallory@example.com', '10.9.9.9');
    expect(wait).toBeGreaterThan(55);
    expect(wait).toBeLessThanOrEqual(60);
    expect(await guard.retryAfter('someone-else@example.com', '10.9.9.9')).toBe(0);
  });

  it('limits one address spraying many accounts, and a good login elsewhere does not reset it', async () => {
    const guard = new LoginGuard(state, { loginMaxFailures: 100, loginMaxFailuresPerAddress: 5, loginFailureWindowMs: 60_000 });
    for (let i = 0; i < 5; i++) await guard.recordFailure(`user${i}@example.com`, '192.0.2.7');
    await guard.recordSuccess('user0@example.com');
    expect(await guard.retryAfter('fresh@example.com', '192.0.2.7')).toBeGreaterThan(0);
    expect(await guard.retryAfter('fresh@example.com', '192.0.2.8')).toBe(0);
  });

  it('ends the block when the window ends, counted from the first failure', async () => {
    const guard = new LoginGuard(state, { loginMaxFailures: 2, loginMaxFailuresPerAddress: 100, loginFailureWindowMs: 300 });
    await guard.recordFailure('window@example.com', '198.51.100.1');
    await new Promise((r) => setTimeout(r, 150));
    await guard.recordFailure('window@example.com', '198.51.100.1');
    expect(await guard.retryAfter('window@example.com', '198.51.100.1')).toBe(1);
    await new Promise((r) => setTimeout(r, 200)); // 350 ms after the first failure: a sliding window would still block
    expect(await guard.retryAfter('window@example.com', '198.51.100.1')).toBe(0);
  });
});
