import { SchedError } from '../errors.js';

/** Who sent a request, as the daemon knows it. */
export interface Caller {
  user: string;
}

export type Role = 'admin' | 'operator' | 'viewer';

/** Who holds which role; until `[access]` exists, only the admins are named. */
export interface AccessRules {
  admins: readonly string[];
}

/** The default of issue #13's `[access]`: the daemon's own user and root are admins, nobody else. */
export function defaultAccessRules(daemonUser: string): AccessRules {
  return { admins: [...new Set([daemonUser, 'root'])] };
}

/** The role of a caller; null when the rules give them none. */
export function roleOf(caller: Caller, rules: AccessRules): Role | null {
  return rules.admins.includes(caller.user) ? 'admin' : null;
}

/**
 * Throws UNAUTHORIZED, naming the role needed, unless the caller is an admin; `doing` completes "may not …"
 * (reveal secret values, rotate the secret key).
 */
export function assertAdmin(caller: Caller, rules: AccessRules, doing: string, hint: string): void {
  if (roleOf(caller, rules) === 'admin') return;
  throw new SchedError('UNAUTHORIZED', `${caller.user} may not ${doing}: that takes the admin role.`, {
    hint,
    details: { user: caller.user, needed: 'admin' },
  });
}
