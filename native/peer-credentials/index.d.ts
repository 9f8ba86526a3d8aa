/** The credentials the kernel recorded for the process at the other end of a connected Unix socket. */
export interface PeerCredentials {
  uid: number;
  gid: number;
  /** The peer's process id, or -1 where the platform does not tell it (getpeereid). */
  pid: number;
}

export interface UserEntry {
  name: string;
  uid: number;
  gid: number;
  home: string;
  shell: string;
}

/** How this build learns a peer's identity, or null where the platform offers no way. */
export const mechanism: 'SO_PEERCRED' | 'getpeereid' | null;

/** Throws (with `code`, an errno name) when `fd` is not a connected Unix socket or the platform cannot say. */
export function peerCredentials(fd: number): PeerCredentials;

/** The user database's entry for `uid` (NSS included), or null when there is none. */
export function userById(uid: number): UserEntry | null;

/** The user database's entry for the user named `name` (NSS included), or null when there is none. */
export function userByName(name: string): UserEntry | null;

/**
 * The path of `sched-run-as UID GID USER DIR FILE [ARG...]`, which takes USER's groups, GID and UID, enters DIR
 * (unless empty) and execs FILE, or exits 127 after writing "STEP ERRNO" to fd 3. The file may be missing
 * where the build failed.
 */
export const runAsProgram: string;

/** The names of the groups `user` belongs to: `gid` (its primary group) and its supplementary groups. */
export function groupNamesOf(user: string, gid: number): string[];

/** The id of the group named `name`, or null when there is none. */
export function groupIdOf(name: string): number | null;
