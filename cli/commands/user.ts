// `cairn user create|reset`: users from the shell, for the first admin of a
// deployment or a locked-out one. They open the store and hot state
// directly (no token needed), so on the embedded default stop `cairn start`
// first: the embedded engine and journal belong to one process at a time.
import { Command } from 'commander';
import { z } from 'zod';
import { findUserByEmail } from '../../clickhouse/tables/users.js';
import { loadConfig } from '../../config/env.js';
import { Identity } from '../../identity/index.js';
import { generatePassword, passwordProblem } from '../../identity/passwords.js';
import { builtinRole, findRole, listRoles } from '../../identity/roles.js';
import { createUser, updateUser } from '../../identity/users.js';
import { createLogger } from '../../lib/logger.js';
import { provideEmbeddedSecrets } from '../embedded-secrets.js';
import type { Runtime } from '../runtime.js';

async function withIdentity<T>(work: (identity: Identity, runtime: Runtime) => Promise<T>): Promise<T> {
  const { config } = await provideEmbeddedSecrets(loadConfig());
  // Loaded here, not at the top: the runtime brings every stage, and `cairn --help` should not wait for them.
  const { openRuntime } = await import('../runtime.js');
  const runtime = await openRuntime(config, createLogger('warn'));
  try {
    return await work(new Identity(runtime.store, runtime.state, config), runtime);
  } finally {
    await runtime.close();
  }
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}

/** The password from stdin when asked, else a generated one (printed once). */
async function choosePassword(fromStdin: boolean): Promise<{ password: string; generated: boolean }> {
  if (!fromStdin) return { password: generatePassword(), generated: true };
  const password = await readStdin();
  const problem = passwordProblem(password);
  if (problem) throw new Error(problem);
  return { password, generated: false };
}

function say(email: string, what: string, password: { password: string; generated: boolean }): void {
  console.log(`${what} ${email}`);
  if (password.generated) console.log(`password: ${password.password}\n(shown once; it is stored only as a hash)`);
}

export function userCommand(): Command {
  const user = new Command('user').description('create a user or reset a password from the shell (stop the embedded `cairn start` first)');
  user
    .command('create')
    .description('create a local user; prints a generated password unless --password-stdin')
    .requiredOption('--email <email>', 'the login email')
    .option('--name <name>', 'display name (default: the email)')
    .option('--role <role>', 'admin, analyst, viewer, or a custom role id', 'admin')
    .option('--password-stdin', 'read the password from stdin instead of generating one')
    .option('--org <id>', 'organization (default CAIRN_ORG_ID)')
    .action(async (options: { email: string; name?: string; role: string; passwordStdin?: boolean; org?: string }) => {
      const password = await choosePassword(Boolean(options.passwordStdin));
      await withIdentity(async (identity, runtime) => {
        const orgId = options.org ?? runtime.config.orgId;
        const role = builtinRole(options.role) ?? (z.uuid().safeParse(options.role).success ? await findRole(runtime.store, orgId, options.role) : null);
        if (!role) throw new Error(`unknown role "${options.role}"; roles: ${(await listRoles(runtime.store, orgId)).map((r) => r.name).join(', ')}`);
        await createUser(identity.directory, { orgId, email: options.email, name: options.name ?? options.email, roleId: role.id, password: password.password });
        say(options.email.toLowerCase(), `created ${role.name}`, password);
      });
    });
  user
    .command('reset')
    .description('set a new password (and reactivate the user); their sessions end. Prints a generated password unless --password-stdin')
    .requiredOption('--email <email>', 'the user')
    .option('--password-stdin', 'read the password from stdin instead of generating one')
    .option('--org <id>', 'organization (default CAIRN_ORG_ID)')
    .action(async (options: { email: string; passwordStdin?: boolean; org?: string }) => {
      const password = await choosePassword(Boolean(options.passwordStdin));
      await withIdentity(async (identity, runtime) => {
        const orgId = options.org ?? runtime.config.orgId;
        const found = await findUserByEmail(runtime.store, orgId, options.email);
        if (!found) throw new Error(`no user with email ${options.email.toLowerCase()}`);
        await updateUser(identity.directory, orgId, found.id, { password: password.password, active: true });
        say(found.email, 'password reset for', password);
      });
    });
  return user;
}
