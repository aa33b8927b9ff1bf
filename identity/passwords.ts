// Password hashing: scrypt (memory-hard, in Node's crypto, run on the libuv
// pool so a login does not block the event loop), stored as a PHC string so
// the cost can rise later without invalidating existing hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

export const MIN_PASSWORD_LENGTH = 12;
export const MAX_PASSWORD_LENGTH = 1024;

const KEY_BYTES = 32;
const SALT_BYTES = 16;
const BLOCK_SIZE = 8;

function derive(password: string, salt: Buffer, cost: number): Promise<Buffer> {
  const options: ScryptOptions = { N: 2 ** cost, r: BLOCK_SIZE, p: 1, maxmem: 256 * 2 ** cost * BLOCK_SIZE };
  return new Promise((resolve, reject) => scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (err, key) => (err ? reject(err) : resolve(key))));
}

/** `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (base64, no padding). */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const key = await derive(password, salt, cost);
  return `$scrypt$ln=${cost},r=${BLOCK_SIZE},p=1$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

const PHC = /^\$scrypt\$ln=(\d+),r=(\d+),p=(\d+)\$([\w-]+)\$([\w-]+)$/;

// A hash to check against when the account does not exist or has no password,
// so the answer takes as long as for a real account (no user enumeration by timing).
const decoys = new Map<number, Promise<string>>();

function decoyHash(cost: number): Promise<string> {
  let decoy = decoys.get(cost);
  if (!decoy) decoys.set(cost, (decoy = hashPassword(randomBytes(16).toString('hex'), cost)));
  return decoy;
}

/** Constant-time check; a missing or unreadable hash costs the same and answers false. */
export async function verifyPassword(password: string, stored: string | null | undefined, cost: number): Promise<boolean> {
  const match = PHC.exec(stored ?? '') ?? PHC.exec(await decoyHash(cost))!;
  const real = Boolean(stored && PHC.test(stored));
  const [, ln, r, , salt, hash] = match;
  if (Number(r) !== BLOCK_SIZE) return false;
  const expected = Buffer.from(hash!, 'base64url');
  const actual = await derive(password, Buffer.from(salt!, 'base64url'), Number(ln));
  return timingSafeEqual(actual, expected) && real;
}

/** Why a new password is refused, or null when it is acceptable. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `password must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `password must be at most ${MAX_PASSWORD_LENGTH} characters`;
  return null;
}

/** A password for a generated account: 24 characters from 144 random bits. */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}
