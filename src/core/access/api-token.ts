import type { Role } from './roles.js';

/** The roles a token may carry, as the store's CHECK knows them (this module imports nothing at run time). */
export const API_TOKEN_ROLES = ['viewer', 'operator', 'admin'] as const satisfies readonly Role[];

/** What a token starts with, so a leaked one is recognised by secret scanners and by people. */
export const API_TOKEN_PREFIX = 'sched_';

/**
 * An API token as the store keeps it: everything but the token itself, of which only the SHA-256 hash
 * is stored (a 256-bit random token needs no slow hash: nobody can guess one to match it against).
 */
export interface ApiToken {
  id: string;
  name: string;
  role: Role;
  /** The user its requests act as: who owns the jobs it adds, and whose jobs an operator token may change. */
  owner: string;
  createdAt: number;
  /** Null: it never expires. */
  expiresAt: number | null;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** Who created it, as the audit log names them. */
  createdBy: string;
}

type TokenRefusal = 'revoked' | 'expired';

/** Why a stored token is refused at `now`, or null when it may be used. */
export function tokenRefusal(token: ApiToken, now: number): TokenRefusal | null {
  if (token.revokedAt !== null) return 'revoked';
  if (token.expiresAt !== null && token.expiresAt <= now) return 'expired';
  return null;
}
