// `cairn user create|reset`: users from the shell, for the first admin of a
// deployment or a locked-out one. They open the store and hot state
// directly (no token needed); on the embedded default, while a running cairn
// holds them (the embedded engine and journal belong to one process at a
// time), they go through its users API with a token minted from the
// configured secret (or --token), which changes the same things.
import { Command } from 'commander';
import { z } from 'zod';
import { findUserByEmail } from '../../clickhouse/tables/users.js';
import { loadConfig } from '../../config/env.js';
import { Identity } from '../../identity/index.js';
import { generatePassword, passwordProblem } from '../../identity/passwords.js';
import { builtinRole, findRole, listRoles } from '../../identity/roles.js';
import { createUser, updateUser } from '../../identity/users.js';
import { createLogger } from '../../lib/logger.js';
import { apiTarget, callApi, withApiTargetOptions, type ApiTarget } from '../api-target.js';
import { provideEmbeddedSecrets } from '../embedded-secrets.js';
import type { Runtime } from '../runtime.js';
import { embeddedStoreHolder } from '../store-holder.js';

interface TargetOptions {
  url?: string;
  token?: string;
  org?: string;
}

/** The running cairn's API when one holds the embedded store, else null (the command opens the store itself). */
async function runningCairn(options: TargetOptions): Promise<ApiTarget | null> {
  const config = loadConfig();
  const holder = await embeddedStoreHolder(config);
  if (!holder) return null;
  return apiTarget(options, { subject: 'cairn-user', permissions: ['admin'], ttlSeconds: 300 }).catch((err: Error) => {
    throw new Error(`the embedded store is in use by process ${holder} (\`cairn start\`?) and ${err.message}`);
  });
}

/** The answer's data, or the server's message as the error. */
function expectOk<T>(answer: { status: number; message: string; data: T | null }, what: string): T {
  if (answer.status >= 200 && answer.status < 300 && answer.data !== null) return answer.data;
  throw new Error(answer.status === 401 || answer.status === 403 ? `${what}: the running cairn answered ${answer.status}: ${answer.message}` : answer.message);
}

interface RoleAnswer {
  id: string;
  name: string;
}

interface UserAnswer {
  id: string;
  email: string;
}

async function createThroughApi(target: ApiTarget, options: { email: string; name?: string; role: string }, password: string): Promise<string> {
  const roles = expectOk(await callApi<{ roles: RoleAnswer[] }>(target, 'GET', '/v1/roles'), 'listing roles').roles;
  // As the store path: a built-in role by name or id, a custom one by id.
  const role = roles.find((r) => r.id === options.role || (builtinRole(options.role) && r.id === builtinRole(options.role)!.id));
  if (!role) throw new Error(`unknown role "${options.role}"; roles: ${roles.map((r) => r.name).join(', ')}`);
  expectOk(await callApi<UserAnswer>(target, 'POST', '/v1/users', { email: options.email, name: options.name ?? options.email, role_id: role.id, password }), 'creating the user');
  return role.name;
}

async function resetThroughApi(target: ApiTarget, email: string, password: string): Promise<string> {
  const wanted = email.toLowerCase();
  const listed = expectOk(await callApi<{ users: UserAnswer[] }>(target, 'GET', `/v1/users?q=${encodeURIComponent(wanted)}&limit=100`), 'finding the user');
  const found = listed.users.find((u) => u.email === wanted);
  if (!found) throw new Error(`no user with email ${wanted}`);
  expectOk(await callApi<UserAnswer>(target, 'PUT', `/v1/users/${found.id}`, { password, active: true }), 'resetting the password');
  return found.email;
}

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
  const user = new Command('user').description('create a user or reset a password from the shell (through the running cairn when one holds the embedded store)');
  const create = user
    .command('create')
    .description('create a local user; prints a generated password unless --password-stdin')
    .requiredOption('--email <email>', 'the login email')
    .option('--name <name>', 'display name (default: the email)')
    .option('--role <role>', 'admin, analyst, viewer, or a custom role id', 'admin')
    .option('--password-stdin', 'read the password from stdin instead of generating one')
    .option('--org <id>', 'organization (default CAIRN_ORG_ID)');
  withApiTargetOptions(create, 'admin', { org: false }).action(async (options: TargetOptions & { email: string; name?: string; role: string; passwordStdin?: boolean }) => {
      const password = await choosePassword(Boolean(options.passwordStdin));
      const running = await runningCairn(options);
      if (running) {
        const roleName = await createThroughApi(running, options, password.password);
        say(options.email.toLowerCase(), `created ${roleName}`, password);
        return;
      }
      await withIdentity(async (identity, runtime) => {
        const orgId = options.org ?? runtime.config.orgId;
        const role = builtinRole(options.role) ?? (z.uuid().safeParse(options.role).success ? await findRole(runtime.store, orgId, options.role) : null);
        if (!role) throw new Error(`unknown role "${options.role}"; roles: ${(await listRoles(runtime.store, orgId)).map((r) => r.name).join(', ')}`);
        await createUser(identity.directory, { orgId, email: options.email, name: options.name ?? options.email, roleId: role.id, password: password.password });
        say(options.email.toLowerCase(), `created ${role.name}`, password);
      });
    });
  const reset = user
    .command('reset')
    .description('set a new password (and reactivate the user); their sessions end. Prints a generated password unless --password-stdin')
    .requiredOption('--email <email>', 'the user')
    .option('--password-stdin', 'read the password from stdin instead of generating one')
    .option('--org <id>', 'organization (default CAIRN_ORG_ID)');
  withApiTargetOptions(reset, 'admin', { org: false }).action(async (options: TargetOptions & { email: string; passwordStdin?: boolean }) => {
      const password = await choosePassword(Boolean(options.passwordStdin));
      const running = await runningCairn(options);
      if (running) {
        say(await resetThroughApi(running, options.email, password.password), 'password reset for', password);
        return;
      }
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
