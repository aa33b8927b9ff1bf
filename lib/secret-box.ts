// Secrets at rest (LDAP bind passwords, SAML keys, channel passwords and
// tokens, feed credentials, AI keys): AES-256-GCM under CAIRN_MASTER_KEY.
// A sealed value is "v1:<iv>:<tag>:<ciphertext>" (base64url parts), so a
// stored row never holds plaintext and a tampered value fails to open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;

/** What responses and logs show instead of a secret; a write sending it back keeps the stored value. */
export const REDACTED = '[redacted]';

export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('the master key must be 32 bytes');
  }

  seal(plaintext: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join(':');
  }

  /** Opens a sealed value; throws when it was sealed under another key or changed since. */
  open(sealed: string): string {
    const [version, iv, tag, body] = sealed.split(':');
    if (version !== VERSION || iv === undefined || tag === undefined || body === undefined) throw new Error('not a sealed secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8');
  }
}

export function isSealed(value: string): boolean {
  return value.startsWith(`${VERSION}:`) && value.split(':').length === 4;
}

/** A copy of `values` with every set secret among `fields` passed through `map` (seal, open or redact). */
export function mapSecrets<T extends Record<string, unknown>>(values: T, fields: readonly string[], map: (value: string) => string): T {
  const copy: Record<string, unknown> = { ...values };
  for (const field of fields) if (typeof copy[field] === 'string' && copy[field] !== '') copy[field] = map(copy[field] as string);
  return copy as T;
}

/** `change` over `current`, where a secret the change leaves out or sends as the placeholder keeps its current value. */
export function keepSecrets<T extends Record<string, unknown>>(current: T, change: Partial<T> | undefined, fields: readonly string[]): T {
  const kept: Record<string, unknown> = { ...change };
  for (const field of fields) if (kept[field] === undefined || kept[field] === REDACTED) delete kept[field];
  return { ...current, ...kept } as T;
}
