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
export function withApiTargetOptions(command: Command, permission: Permission, { org = true }: { org?: boolean } = {}): Command {
  command
    .option('--url <url>', 'base URL of the running cairn (default CAIRN_URL, else http://127.0.0.1:$PORT)')
    .option('--token <token>', `bearer token or API key with ${permission} (default CAIRN_TOKEN, else one minted with the configured secret)`);
  // Commands with an --org of their own (cairn user) mint for that organization.
  return org ? command.option('--org <id>', 'organization of a minted token (default CAIRN_ORG_ID)') : command;
}

export interface ApiTarget {
  url: string;
  token: string;
}

/** A minted token lives a day unless `ttlSeconds` says less (commands that send one request need minutes). */
export async function apiTarget(options: ApiTargetOptions, minted: { subject: string; permissions: Permission[]; ttlSeconds?: number }): Promise<ApiTarget> {
  const config = loadConfig();
  let token = options.token ?? config.cli.token;
  if (!token) {
    const secret = await findJwtSecret(config);
    if (!secret) throw new Error('no token: pass --token or set CAIRN_TOKEN, or set CAIRN_JWT_SECRET');
    token = mintToken(secret, { subject: minted.subject, orgId: options.org ?? config.orgId, permissions: minted.permissions, ttlSeconds: minted.ttlSeconds ?? 24 * 3600 });
  }
  return { url: options.url ?? config.cli.url ?? `http://127.0.0.1:${config.port}`, token };
}

/** A network failure, said so that the user knows what to check. */
export function unreachable(url: string, err: unknown): Error {
  const cause = (err as Error).cause;
  return new Error(`cannot reach ${url}: ${cause instanceof Error ? cause.message : (err as Error).message} (is cairn running there? set --url or CAIRN_URL)`);
}

/** The envelope a route answers with (README "API conventions"). */
export interface ApiAnswer<T> {
  status: number;
  message: string;
  data: T | null;
  code: string | null;
}

/** One JSON request to the running cairn; a network failure is said as `unreachable` says it. */
export async function callApi<T>(target: ApiTarget, method: string, route: string, body?: unknown): Promise<ApiAnswer<T>> {
  let res: Response;
  try {
    res = await fetch(new URL(`/api${route}`, target.url), {
      method,
      headers: { authorization: `Bearer ${target.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw unreachable(target.url, err);
  }
  const payload = (await res.json().catch(() => null)) as { message?: string; data?: T; error?: { code?: string } } | null;
  return { status: res.status, message: payload?.message ?? `answered ${res.status} without a message`, data: payload?.data ?? null, code: payload?.error?.code ?? null };
}

/** callApi for a route that must answer 2xx with data: anything else is an error naming the route, its status and the API's message. */
export async function callApiData<T>(target: ApiTarget, method: string, route: string, body?: unknown): Promise<T> {
  const answer = await callApi<T>(target, method, route, body);
  if (answer.status < 200 || answer.status >= 300 || answer.data === null) throw new Error(`${method} /api${route} answered ${answer.status}: ${answer.message}`);
  return answer.data;
}
