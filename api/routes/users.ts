// Users (SPEC 2.8, 4.8) and roles (docs/identity.md): administration of who
// may log in and what they may do. Never answers with a password hash.
import { z } from 'zod';
import { countActiveUsersWithRoles, getUser, listUsers, usersWithRole, type User } from '../../clickhouse/tables/users.js';
import { deleteRole, getStoredRole, saveRole, type StoredRole } from '../../clickhouse/tables/roles.js';
import { newId } from '../../lib/ids.js';
import { passwordProblem } from '../../identity/passwords.js';
import { PERMISSIONS } from '../../identity/permissions.js';
import { adminRoleIds, builtinRole, customRole, findRole, listRoles, type Role } from '../../identity/roles.js';
import { createUser, IdentityConflict, removeUser, roleChanged, toPublicUser, UnknownRole, updateUser } from '../../identity/users.js';
import type { ApiDeps } from '../deps.js';
import { badRequest, HttpError, notFound } from '../http-error.js';
import { defineRoute } from '../route.js';
import { IdParams, listData, Pagination, QueryBoolean, Timestamp } from '../schemas.js';

const Password = z.string().superRefine((password, ctx) => {
  const problem = passwordProblem(password);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
});

const Email = z.email('email must be an email address').max(320).transform((e) => e.toLowerCase());
const Name = z.string().trim().min(1, 'name is required').max(200);

export const UserSchema = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role_id: z.string(),
  role_name: z.string(),
  active: z.boolean(),
  last_login: Timestamp.nullable(),
  source: z.enum(['local', 'ldap', 'saml']).describe('where the account comes from: local, or provisioned by LDAP or SAML login'),
  created_at: Timestamp,
  updated_at: Timestamp,
});

const RoleSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  permissions: z.array(z.string()),
  builtin: z.boolean().describe('admin, analyst and viewer: the same id everywhere, not changeable'),
});

const Permissions = z
  .array(z.string())
  .max(PERMISSIONS.length * 2)
  .superRefine((names, ctx) => {
    const unknown = names.filter((n) => !(PERMISSIONS as readonly string[]).includes(n));
    if (unknown.length) ctx.addIssue({ code: 'custom', message: `unknown permission(s): ${unknown.join(', ')}; known: ${PERMISSIONS.join(', ')}` });
  })
  .transform((names) => [...new Set(names)]);

/** Maps the directory's errors to answers: a conflict is 409, a role that does not exist 400. */
async function directoryCall<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof IdentityConflict) throw new HttpError(409, 'conflict', err.message);
    if (err instanceof UnknownRole) throw badRequest(`role_id: ${err.message}`);
    throw err;
  }
}

async function publicUser(deps: ApiDeps, user: User) {
  return toPublicUser(user, await findRole(deps.store, user.org_id, user.role_id));
}

async function findUser(deps: ApiDeps, orgId: string, id: string): Promise<User> {
  const user = await getUser(deps.store, orgId, id);
  if (!user) throw notFound('user');
  return user;
}

async function findCustomRole(deps: ApiDeps, orgId: string, id: string): Promise<StoredRole> {
  const builtin = builtinRole(id);
  if (builtin) throw new HttpError(409, 'conflict', `the built-in role ${builtin.name} cannot be changed or deleted; make a custom role instead`);
  const role = await getStoredRole(deps.store, orgId, id);
  if (!role) throw notFound('role');
  return role;
}

const UserListQuery = Pagination.extend({
  role_id: z.uuid('role_id must be a UUID').optional(),
  active: QueryBoolean.optional(),
  q: z.string().trim().min(1).max(200).optional().describe('part of the email or name, any case'),
});

const CreateUser = z.object({ email: Email, name: Name, role_id: z.uuid('role_id must be a UUID'), password: Password.optional(), active: z.boolean().default(true) });

const UpdateUser = z
  .object({ email: Email.optional(), name: Name.optional(), role_id: z.uuid('role_id must be a UUID').optional(), active: z.boolean().optional(), password: Password.optional() })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

const CreateRole = z.object({ name: Name, description: z.string().max(2000).default(''), permissions: Permissions });
const UpdateRole = z
  .object({ name: Name.optional(), description: z.string().max(2000).optional(), permissions: Permissions.optional() })
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), 'give at least one field to change');

async function assertNameFree(deps: ApiDeps, orgId: string, name: string, except?: string): Promise<void> {
  const taken = (await listRoles(deps.store, orgId)).find((r) => r.name.toLowerCase() === name.toLowerCase() && r.id !== except);
  if (taken) throw new HttpError(409, 'conflict', `a role named ${taken.name} already exists`);
}

export const userRoutes = [
  defineRoute({
    method: 'get',
    path: '/v1/users',
    summary: 'List users by email; filter by role_id, active, or q (part of the email or name)',
    tag: 'Users',
    permission: 'admin',
    query: UserListQuery,
    response: listData('users', UserSchema),
    async handler({ query, auth, deps }) {
      const { users, total } = await listUsers(deps.store, auth.orgId, { ...query, roleId: query.role_id });
      const roles = new Map((await listRoles(deps.store, auth.orgId)).map((r) => [r.id, r]));
      return { message: `${total} user(s)`, data: { users: users.map((u) => toPublicUser(u, roles.get(u.role_id) ?? null)), total, limit: query.limit, offset: query.offset } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/users/:id',
    summary: 'Get one user',
    tag: 'Users',
    permission: 'admin',
    params: IdParams,
    response: UserSchema,
    errors: [404],
    async handler({ params, auth, deps }) {
      return { message: 'User found', data: await publicUser(deps, await findUser(deps, auth.orgId, params.id)) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/users',
    summary: 'Create a user; a password (at least 12 characters) lets them log in locally',
    tag: 'Users',
    permission: 'admin',
    body: CreateUser,
    response: UserSchema,
    successStatus: 201,
    errors: [409],
    async handler({ body, auth, deps }) {
      const user = await directoryCall(() => createUser(deps.identity.directory, { orgId: auth.orgId, email: body.email, name: body.name, roleId: body.role_id, active: body.active, password: body.password }));
      const data = await publicUser(deps, user);
      return { message: 'User created', data };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/users/:id',
    summary: 'Change a user; only the fields given change. A change of role, activity or password ends their sessions and tokens at once',
    tag: 'Users',
    permission: 'admin',
    params: IdParams,
    body: UpdateUser,
    response: UserSchema,
    errors: [404, 409],
    async handler({ params, body, auth, deps }) {
      const changed = await directoryCall(() =>
        updateUser(deps.identity.directory, auth.orgId, params.id, { email: body.email, name: body.name, roleId: body.role_id, active: body.active, password: body.password }),
      );
      if (!changed) throw notFound('user');
      const data = await publicUser(deps, changed.after);
      return { message: 'User updated', data, audit: { before: await publicUser(deps, changed.before), after: { ...data, ...(body.password ? { password: 'changed' } : {}) } } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/users/:id',
    summary: 'Delete a user; their sessions end and their API keys are revoked',
    tag: 'Users',
    permission: 'admin',
    params: IdParams,
    response: z.null(),
    errors: [404, 409],
    async handler({ params, auth, deps }) {
      const removed = await directoryCall(() => removeUser(deps.identity.directory, auth.orgId, params.id));
      if (!removed) throw notFound('user');
      return { message: 'User deleted', data: null, audit: { before: await publicUser(deps, removed), after: null } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/roles',
    summary: 'List roles: the built-in admin, analyst and viewer, then custom roles by name',
    tag: 'Users',
    permission: 'admin',
    response: listData('roles', RoleSchema),
    async handler({ auth, deps }) {
      const roles = await listRoles(deps.store, auth.orgId);
      return { message: `${roles.length} role(s)`, data: { roles, total: roles.length, limit: roles.length, offset: 0 } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/roles/:id',
    summary: 'Get one role',
    tag: 'Users',
    permission: 'admin',
    params: IdParams,
    response: RoleSchema,
    errors: [404],
    async handler({ params, auth, deps }) {
      const role = await findRole(deps.store, auth.orgId, params.id);
      if (!role) throw notFound('role');
      return { message: 'Role found', data: role };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/roles',
    summary: 'Create a custom role from any subset of the permission names (SPEC 5)',
    tag: 'Users',
    permission: 'admin',
    body: CreateRole,
    response: RoleSchema,
    successStatus: 201,
    errors: [409],
    async handler({ body, auth, deps }) {
      await assertNameFree(deps, auth.orgId, body.name);
      const now = new Date().toISOString();
      const role: StoredRole = { id: newId(), org_id: auth.orgId, name: body.name, description: body.description, permissions: body.permissions, created_at: now, updated_at: now };
      await saveRole(deps.store, role);
      return { message: 'Role created', data: customRole(role) };
    },
  }),
  defineRoute({
    method: 'put',
    path: '/v1/roles/:id',
    summary: 'Change a custom role; a change of permissions ends the sessions of its holders so their next tokens carry the new set',
    tag: 'Users',
    permission: 'admin',
    params: IdParams,
    body: UpdateRole,
    response: RoleSchema,
    errors: [404, 409],
    async handler({ params, body, auth, deps }) {
      const before = await findCustomRole(deps, auth.orgId, params.id);
      if (body.name) await assertNameFree(deps, auth.orgId, body.name, before.id);
      const after: StoredRole = {
        ...before,
        name: body.name ?? before.name,
        description: body.description ?? before.description,
        permissions: body.permissions ?? before.permissions,
        updated_at: new Date().toISOString(),
      };
      const holders = await usersWithRole(deps.store, auth.orgId, before.id);
      if (before.permissions.includes('admin') && !after.permissions.includes('admin')) {
        const otherAdminRoles = (await adminRoleIds(deps.store, auth.orgId)).filter((id) => id !== before.id);
        if ((await countActiveUsersWithRoles(deps.store, auth.orgId, otherAdminRoles)) === 0 && holders.some((u) => u.active)) {
          throw new HttpError(409, 'conflict', 'cannot take admin from this role: its holders are the last active admins');
        }
      }
      await saveRole(deps.store, after);
      const permissionsChanged = [...after.permissions].sort().join() !== [...before.permissions].sort().join();
      if (permissionsChanged) await roleChanged(deps.identity.directory, auth.orgId, holders);
      const data = customRole(after);
      return { message: permissionsChanged ? `Role updated; ${holders.length} holder(s) must log in again` : 'Role updated', data, audit: { before: customRole(before), after: data } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/roles/:id',
    summary: 'Delete a custom role that no user holds',
    tag: 'Users',
    permission: 'admin',
    params: IdParams,
    response: z.null(),
    errors: [404, 409],
    async handler({ params, auth, deps }) {
      const role = await findCustomRole(deps, auth.orgId, params.id);
      const holders = await usersWithRole(deps.store, auth.orgId, role.id);
      if (holders.length > 0) throw new HttpError(409, 'conflict', `role ${role.name} is held by ${holders.length} user(s); give them another role first`, { users: holders.slice(0, 20).map((u) => u.id) });
      await deleteRole(deps.store, role);
      return { message: 'Role deleted', data: null, audit: { before: customRole(role), after: null } };
    },
  }),
];
