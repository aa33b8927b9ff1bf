// `cairn token`: a bearer token signed with the configured secret, for scripts and first steps.
import { Command, InvalidArgumentError } from 'commander';
import { isPermission, PERMISSIONS } from '../../identity/permissions.js';
import { loadConfig } from '../../config/env.js';
import { findJwtSecret } from '../embedded-secrets.js';
import { durationMs } from './options.js';

function permissionList(value: string): string[] {
  const requested = value.split(',').map((p) => p.trim()).filter(Boolean);
  if (requested.includes('all')) return [...PERMISSIONS];
  const unknown = requested.filter((p) => !isPermission(p));
  if (unknown.length) throw new InvalidArgumentError(`unknown permission(s): ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}`);
  if (requested.length === 0) throw new InvalidArgumentError('name at least one permission, or all');
  return requested;
}

export function tokenCommand(): Command {
  return new Command('token')
    .description('print a bearer token signed with the configured secret (CAIRN_JWT_SECRET, else the one in the data dir)')
    .requiredOption('--permissions <list>', 'comma-separated permission names, or all', permissionList)
    .option('--sub <name>', 'the subject (who the token speaks for)', 'cli')
    .option('--ttl <duration>', 'lifetime, e.g. 30m, 1h, 7d', durationMs, 3_600_000)
    .option('--org <id>', 'organization (default CAIRN_ORG_ID)')
    .action(async (options: { permissions: string[]; sub: string; ttl: number; org?: string }) => {
      const config = loadConfig();
      const secret = await findJwtSecret(config);
      if (!secret) throw new Error('no JWT secret: set CAIRN_JWT_SECRET, or run `cairn start` once to create one in the data dir');
      // Loaded here: the API's auth module is heavier than this command's help needs.
      const { mintToken } = await import('../../api/auth.js');
      console.log(mintToken(secret, { subject: options.sub, orgId: options.org ?? config.orgId, permissions: options.permissions, ttlSeconds: Math.floor(options.ttl / 1000) }));
    });
}
