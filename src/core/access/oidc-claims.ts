import { API_TOKEN_ROLES } from './api-token.js';
import { roleCovers, type Role } from './roles.js';

/** Three base64url parts joined by dots: a compact JWS, which no `sched_` API token can look like. */
const COMPACT_JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether a bearer token has the shape of a JWT (whether it is a valid one is for its signature to say). */
export function looksLikeJwt(bearer: string): boolean {
  return COMPACT_JWT.test(bearer);
}

/**
 * A claim of a JWT's payload: `name` itself when the payload has it (namespaced claims such as
 * `https://example.com/roles` hold dots), else `name` as a dotted path (`realm_access.roles`).
 */
export function claimValue(payload: Readonly<Record<string, unknown>>, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const part of name.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * The sched role a roles claim gives: a string, or an array of them, of which only the values naming a
 * role (viewer, operator, admin) count, the highest of them winning; null when none does. An identity
 * provider's other groups and roles in the same claim are no concern of sched's.
 */
export function roleFromClaim(value: unknown): Role | null {
  const values = Array.isArray(value) ? value : [value];
  let best: Role | null = null;
  for (const entry of values) {
    const role = API_TOKEN_ROLES.find((known) => known === entry);
    if (role !== undefined && !roleCovers(best, role)) best = role;
  }
  return best;
}

/** How a JWT's caller is named (its limits' bucket, the audit log): by who issued it and whom it is for. */
export function jwtCallerName(issuer: string, subject: string): string {
  return `${issuer}#${subject}`;
}
