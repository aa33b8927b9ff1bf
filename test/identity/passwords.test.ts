// Password hashing: scrypt in PHC form, checked in constant time, and the
// same work done for an account that does not exist.
import { describe, expect, it } from 'vitest';
import { generatePassword, hashPassword, passwordProblem, verifyPassword } from '../../identity/passwords.js';

describe('passwords', () => {
  it('hashes with scrypt in PHC form, salted, and verifies only the right password', async () => {
    const a = await hashPassword('correct horse battery staple', 12);
    const b = await hashPassword('correct horse battery staple', 12);
    expect(a).toMatch(/^\$scrypt\$ln=12,r=8,p=1\$[\w-]{22}\$[\w-]{43}$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('correct horse battery staple', a, 12)).toBe(true);
    expect(await verifyPassword('correct horse battery stapl', a, 12)).toBe(false);
    // A hash made at another cost still verifies: the cost is read from the hash.
    expect(await verifyPassword('correct horse battery staple', a, 14)).toBe(true);
  });

  it('answers false, after the same work, for a missing or unreadable hash', async () => {
    const real = await hashPassword('some password here', 13);
    const timed = async (stored: string | null) => {
      const started = performance.now();
      const ok = await verifyPassword('some password here', stored, 13);
      return { ok, ms: performance.now() - started };
    };
    await timed(null); // the decoy hash is made once
    const [missing, garbage, good] = [await timed(null), await timed('not a hash'), await timed(real)];
    expect(missing.ok).toBe(false);
    expect(garbage.ok).toBe(false);
    expect(good.ok).toBe(true);
    // Same KDF work: within a factor of 3 (scheduling noise), not 0 ms against a real hash.
    expect(missing.ms).toBeGreaterThan(good.ms / 3);
  });

  it('refuses short passwords and generates long random ones', () => {
    expect(passwordProblem('short')).toMatch(/at least 12/);
    expect(passwordProblem('x'.repeat(12))).toBeNull();
    const generated = generatePassword();
    expect(generated).toHaveLength(24);
    expect(generatePassword()).not.toBe(generated);
  });
});
