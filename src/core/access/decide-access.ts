import { roleCovers, roleOf, type AccessRules, type Caller, type Role } from './roles.js';

/**
 * What a request does, as far as access goes:
 * - `read`: looks, changes nothing (viewer);
 * - `add`: adds a job, which the caller then owns (operator);
 * - `own-job`: changes, triggers, pauses, cancels, kills or retries one job (operator, for their own jobs;
 *   admin for anyone's);
 * - `administer`: acts on the daemon, the store or the cluster, or on jobs wholesale (admin).
 */
export type AccessVerb = 'read' | 'add' | 'own-job' | 'administer';

export type AccessDecision =
  { allowed: true; role: Role } | { allowed: false; role: Role | null; needed: Role; reason: string };

const NEEDED: Record<AccessVerb, Role> = {
  read: 'viewer',
  add: 'operator',
  'own-job': 'operator',
  administer: 'admin',
};

/**
 * Whether `caller` may do `verb`. For `own-job`, `jobOwner` is the owner of the job acted on, or null when
 * no such job exists (the request then fails as not found, which says nothing an operator could not list).
 */
export function decideAccess(
  caller: Caller,
  rules: AccessRules,
  verb: AccessVerb,
  jobOwner: string | null = null,
): AccessDecision {
  const role = roleOf(caller, rules);
  const needed = NEEDED[verb];
  if (!roleCovers(role, needed)) {
    const has = role === null ? 'no role' : `the ${role} role`;
    return { allowed: false, role, needed, reason: `${caller.user} has ${has}; this needs ${needed}` };
  }
  if (verb === 'own-job' && role !== 'admin' && jobOwner !== null && jobOwner !== caller.user) {
    return {
      allowed: false,
      role,
      needed: 'admin',
      reason: `the job belongs to ${jobOwner}; an operator acts on their own jobs only, an admin on anyone's`,
    };
  }
  return { allowed: true, role: role! };
}
