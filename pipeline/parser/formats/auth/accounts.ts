// The shadow-utils account tools (useradd, groupadd, usermod, userdel,
// groupdel, groupmod, gpasswd): users and groups created, changed, removed.
import type { EventFields } from '../../types.js';
import { categorize, setUser, type Outcome } from './common.js';

const NEW_USER = /^new user: name=([^,]+), UID=(\d+), GID=(\d+), home=([^,]*), shell=([^,]*?)(?:, from=.*)?$/;
const NEW_GROUP = /^(?:new group|group added to \S+): name=([^,]+)(?:, GID=(\d+))?$/;
const GROUP_MEMBERSHIP = /^(add|delete) '([^']+)' (?:to|from) (?:shadow )?group '([^']+)'$/;
const GPASSWD_MEMBERSHIP = /^user (\S+) (added|removed) by \S+ (?:to|from) group (\S+)$/;
const DELETE_USER = /^delete user '([^']+)'/;
const GROUP_REMOVED = /^(?:group '([^']+)' removed|removed (?:shadow )?group '([^']+)' owned by)/;
const USER_CHANGED = /^(?:change|lock|unlock) user (?:name )?'([^']+)'/;
const GROUP_CHANGED = /^group changed in \S+ \(group ([^/\s]+)\/(\d+)/;
const USER_ADD_FAILED = /^failed adding user '([^']+)'/;

function iam(fields: EventFields, type: string[], action: string, outcome: Outcome = 'success'): true {
  categorize(fields, ['iam'], type, action, outcome);
  return true;
}

export function interpretIam(message: string, fields: EventFields): boolean {
  let m: RegExpExecArray | null;
  if ((m = GROUP_MEMBERSHIP.exec(message)) || (m = GPASSWD_MEMBERSHIP.exec(message))) {
    // The two shapes order their groups differently: (verb, user, group) and (user, verb, group).
    const added = m[1] === 'add' || m[2] === 'added';
    const [user, group] = m[1] === 'add' || m[1] === 'delete' ? [m[2], m[3]] : [m[1], m[3]];
    setUser(fields, user);
    fields['group.name'] = group!;
    return iam(fields, ['group', 'change'], added ? 'added-member-to-group' : 'removed-member-from-group');
  }
  if ((m = NEW_USER.exec(message))) {
    setUser(fields, m[1]);
    fields['user.id'] = m[2]!;
    fields['group.id'] = m[3]!;
    if (m[4]) fields['system.auth.useradd.home'] = m[4];
    if (m[5]) fields['system.auth.useradd.shell'] = m[5];
    return iam(fields, ['user', 'creation'], 'added-user-account');
  }
  if ((m = NEW_GROUP.exec(message))) {
    fields['group.name'] = m[1]!;
    if (m[2]) fields['group.id'] = m[2];
    return iam(fields, ['group', 'creation'], 'added-group-account');
  }
  if ((m = DELETE_USER.exec(message))) {
    setUser(fields, m[1]);
    return iam(fields, ['user', 'deletion'], 'deleted-user-account');
  }
  if ((m = GROUP_REMOVED.exec(message))) {
    fields['group.name'] = (m[1] ?? m[2])!;
    return iam(fields, ['group', 'deletion'], 'deleted-group-account');
  }
  if ((m = USER_CHANGED.exec(message))) {
    setUser(fields, m[1]);
    return iam(fields, ['user', 'change'], 'modified-user-account');
  }
  if ((m = GROUP_CHANGED.exec(message))) {
    fields['group.name'] = m[1]!;
    fields['group.id'] = m[2]!;
    return iam(fields, ['group', 'change'], 'modified-group-account');
  }
  if ((m = USER_ADD_FAILED.exec(message))) {
    setUser(fields, m[1]);
    return iam(fields, ['user', 'creation'], 'added-user-account', 'failure');
  }
  return false;
}
