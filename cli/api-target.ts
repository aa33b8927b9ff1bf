// Where CLI commands that work through a running cairn's API send their
// requests, and with which token: --url / CAIRN_URL / the configured port;
// --token / CAIRN_TOKEN / one minted with the configured JWT secret.
import type { Command } from 'commander';
import { mintToken } from '../api/auth.js';
import type { Permission } from '../identity/permissions.js';
import { loadConfig } from '../config/env.js';
import { findJwtSecret } from './embedded-secrets.js';

export interface ApiTargetOptions {
  url?: string;
  token?: string;
  org?: string;
}

/** The options every command working through the API takes: --url, --token, --org. */
export function withApiTargetOptions(command: Command, permission: Permission): Command {
  return command
    .option('--url <url>', 'base URL of the running cairn (default CAIRN_URL, else http://127.0.0.1:$PORT)')
    .option('--token <token>', `bearer token with ${permission} (default CAIRN_TOKEN, else one minted with the configured secret)`)
    .option('--org <id>', 'organization of a minted token (default CAIRN_ORG_ID)');
}

export interface ApiTarget {
  url: string;
  token: string;
}

export async function apiTarget(options: ApiTargetOptions, minted: { subject: string; permissions: Permission[] }): Promise<ApiTarget> {
  const config = loadConfig();
  let token = options.token ?? config.cli.token;
  if (!token) {
    const secret = await findJwtSecret(config);
    if (!secret) throw new Error('no token: pass --token or set CAIRN_TOKEN, or set CAIRN_JWT_SECRET');
    token = mintToken(secret, { subject: minted.subject, orgId: options.org ?? config.orgId, permissions: minted.permissions, ttlSeconds: 24 * 3600 });
  }
  return { url: options.url ?? config.cli.url ?? `http://127.0.0.1:${config.port}`, token };
}

/** A network failure, said so that the user knows what to check. */
export function unreachable(url: string, err: unknown): Error {
  const cause = (err as Error).cause;
  return new Error(`cannot reach ${url}: ${cause instanceof Error ? cause.message : (err as Error).message} (is cairn running there? set --url or CAIRN_URL)`);
}
