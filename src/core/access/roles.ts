/**
 * Who may use the daemon, from `[access]` in the config: each list holds user names and `@group`s. The
 * daemon's own user and root are admins whatever the lists say: they own the store and the socket anyway.
 */
export type Role = 'viewer' | 'operator' | 'admin';

export interface AccessRules {
  admins: readonly string[];
  operators: readonly string[];
  viewers: readonly string[];
  /** The user the daemon runs as. */
  daemonUser: string;
}

/** A connection's caller as the kernel names it (never as the client says), with its user's groups. */
export interface Caller {
  user: string;
  uid: number;
  gid: number;
  /** -1 where the platform does not tell a peer's process id. */
  pid: number;
  /** The names of the caller's primary and supplementary groups. */
  groups: readonly string[];
  /**
   * An API token's caller: its role is the token's, whatever `[access]` says of `user` (its owner). An
   * OIDC JWT (`kind: 'jwt'`) is named by its issuer and subject; its role and owner come from its claims.
   */
  token?: { name: string; role: Role; kind?: 'jwt' };
}

const ROOT_UID = 0;

const RANK: Record<Role, number> = { viewer: 1, operator: 2, admin: 3 };

/** How a token caller is named in limits and the audit log: `token:<name>`, or `jwt:<issuer>#<subject>`. */
export function tokenLabel(token: NonNullable<Caller['token']>): string {
  return `${token.kind === 'jwt' ? 'jwt' : 'token'}:${token.name}`;
}

/** The highest role any list gives the caller, or null when none names them or their groups. */
export function roleOf(caller: Caller, rules: AccessRules): Role | null {
  if (caller.token) return caller.token.role;
  if (isAdmin(caller, rules)) return 'admin';
  if (names(rules.operators, caller)) return 'operator';
  if (names(rules.viewers, caller)) return 'viewer';
  return null;
}

/** Whether the caller may do everything, others' jobs and secrets (`--reveal`) included. */
export function isAdmin(caller: Caller, rules: AccessRules): boolean {
  if (caller.token) return caller.token.role === 'admin';
  return caller.uid === ROOT_UID || caller.user === rules.daemonUser || names(rules.admins, caller);
}

/** Whether `role` includes everything `needed` may do. */
export function roleCovers(role: Role | null, needed: Role): boolean {
  return role !== null && RANK[role] >= RANK[needed];
}

/** Whether the rules let anyone but the daemon's user and root in. */
export function admitsOthers(rules: AccessRules): boolean {
  return [...rules.admins, ...rules.operators, ...rules.viewers].some((entry) => entry !== rules.daemonUser);
}

function names(entries: readonly string[], caller: Caller): boolean {
  return entries.some((entry) =>
    entry.startsWith('@') ? caller.groups.includes(entry.slice(1)) : entry === caller.user,
  );
}
