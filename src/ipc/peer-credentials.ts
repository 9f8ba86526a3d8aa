import type { Socket } from 'node:net';

/** Who connected to the daemon's socket, as the kernel recorded it at connect(). */
export interface PeerCredentials {
  uid: number;
  gid: number;
  /** -1 where the platform does not tell it. */
  pid: number;
}

type Addon = typeof import('sched-peer-credentials');

/**
 * The addon is built by `npm ci`. A build that is missing, or a platform with neither SO_PEERCRED nor
 * getpeereid, reads as no way to know a peer: the daemon then serves only its own user, and refuses to
 * start in multi-user mode with this reason.
 */
const support: { addon: Addon } | { reason: string } = await import('sched-peer-credentials').then(
  (addon) =>
    addon.mechanism === null
      ? { reason: 'this platform offers neither SO_PEERCRED nor getpeereid' }
      : { addon },
  (error: Error) => ({ reason: `the peer credentials addon did not load (${error.message})` }),
);

/** The user database and peer lookups, or why there are none. */
export function peerCredentialsSupport(): { addon: Addon } | { reason: string } {
  return support;
}

/** The peer of an accepted Unix socket; null where the platform cannot say or the socket has no fd. */
export function credentialsOf(socket: Socket): PeerCredentials | null {
  // On Unix an accepted socket's handle is a Pipe wrap that knows its file descriptor.
  const fd = (socket as unknown as { _handle?: { fd?: unknown } })._handle?.fd;
  if (!('addon' in support) || typeof fd !== 'number' || fd < 0) return null;
  try {
    return support.addon.peerCredentials(fd);
  } catch {
    return null;
  }
}
