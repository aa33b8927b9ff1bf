// The embedded default needs no set-up: without CAIRN_JWT_SECRET (or
// CAIRN_MASTER_KEY) it creates one in the data dir on first start, readable
// by the owner only, and uses it from then on.
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config/env.js';

export const JWT_SECRET_FILE = 'jwt-secret';
export const MASTER_KEY_FILE = 'master-key';

async function readSecretFile(file: string): Promise<string | null> {
  try {
    return (await fs.readFile(file, 'utf8')).trim() || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}

async function readOrCreate(file: string, create: () => string): Promise<{ value: string; created: boolean }> {
  const existing = await readSecretFile(file);
  if (existing) return { value: existing, created: false };
  await fs.mkdir(path.dirname(file), { recursive: true });
  const value = create();
  await fs.writeFile(file, `${value}\n`, { mode: 0o600, flag: 'wx' });
  return { value, created: true };
}

/** Fills in missing secrets from (or into) the data dir. Returns whether the JWT secret was just created. */
export async function provideEmbeddedSecrets(config: Config): Promise<{ config: Config; createdJwtSecret: boolean }> {
  let createdJwtSecret = false;
  let { jwtSecret, masterKey } = config;
  if (!jwtSecret) {
    const secret = await readOrCreate(path.join(config.dataDir, JWT_SECRET_FILE), () => randomBytes(48).toString('base64url'));
    jwtSecret = secret.value;
    createdJwtSecret = secret.created;
  }
  if (!masterKey) {
    const key = await readOrCreate(path.join(config.dataDir, MASTER_KEY_FILE), () => randomBytes(32).toString('hex'));
    masterKey = Buffer.from(key.value, 'hex');
  }
  return { config: { ...config, jwtSecret, masterKey }, createdJwtSecret };
}

/** The JWT secret from the environment, else from the data dir of an embedded install. */
export async function findJwtSecret(config: Config): Promise<string | null> {
  return config.jwtSecret ?? (await readSecretFile(path.join(config.dataDir, JWT_SECRET_FILE)));
}
