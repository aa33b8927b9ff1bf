// The permission names of SPEC section 5. A token carries the ones it grants;
// each route requires exactly one. `admin` grants user, role and audit-log
// administration; the built-in admin role (identity/roles.ts) holds every permission.
export const PERMISSIONS = [
  'admin',
  'settings:read',
  'settings:manage',
  'signals:read',
  'signals:write',
  'signals:manage',
  'observations:read',
  'observations:write',
  'graph:read',
  'graph:write',
  'incidents:read',
  'incidents:write',
  'reports:read',
  'ai:read',
  'ai:write',
  'ai:manage',
  'threatfeed:read',
  'threatfeed:write',
  'threatfeed:manage',
  'health:read',
  'health:manage',
  'metrics:read',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function isPermission(name: string): name is Permission {
  return (PERMISSIONS as readonly string[]).includes(name);
}
