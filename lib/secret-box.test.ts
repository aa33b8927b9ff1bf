import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { isSealed, SecretBox } from './secret-box.js';

describe('SecretBox', () => {
  const box = new SecretBox(randomBytes(32));

  it('seals to text that does not contain the secret and opens back to it', () => {
    const sealed = box.seal('hunter2 bind password');
    expect(sealed).not.toContain('hunter2');
    expect(isSealed(sealed)).toBe(true);
    expect(box.open(sealed)).toBe('hunter2 bind password');
    expect(box.seal('same')).not.toBe(box.seal('same')); // a fresh IV each time
  });

  it('refuses a value changed after sealing, or sealed under another key', () => {
    const sealed = box.seal('secret');
    const parts = sealed.split(':');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join(':'))).toThrow();
    expect(() => new SecretBox(randomBytes(32)).open(sealed)).toThrow();
    expect(() => box.open('plain text')).toThrow(/not a sealed secret/);
  });
});
