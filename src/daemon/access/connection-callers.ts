import os from 'node:os';
import type { Caller } from '../../core/access/roles.js';
import { peerCredentialsSupport, type PeerCredentials } from '../../ipc/peer-credentials.js';
import type { ServerConnection } from '../../ipc/transport.js';

/**
 * Names each connection's caller once, from its peer credentials and the user database: the user name of
 * the uid and that user's groups (primary and supplementary), which `@group` entries of `[access]` match.
 */
export class ConnectionCallers {
  private readonly known = new WeakMap<ServerConnection, Caller | null>();

  /** `trustUnknownPeers`: only the daemon's user and root can reach the socket, so a peer nobody names is one of them. */
  constructor(private readonly trustUnknownPeers: boolean) {}

  /** Null when the kernel did not say who connected and others may reach the socket. */
  callerOf(connection: ServerConnection): Caller | null {
    if (this.known.has(connection)) return this.known.get(connection)!;
    const caller =
      connection.peer !== null
        ? callerFromCredentials(connection.peer)
        : this.trustUnknownPeers
          ? daemonCaller()
          : null;
    this.known.set(connection, caller);
    return caller;
  }
}

/** The daemon's own identity: the caller of what it does by itself, and of a peer that only it can be. */
function daemonCaller(): Caller {
  const user = os.userInfo();
  return {
    user: user.username,
    uid: user.uid,
    gid: user.gid,
    pid: -1,
    groups: groupsOf(user.username, user.gid),
  };
}

function callerFromCredentials(peer: PeerCredentials): Caller {
  const support = peerCredentialsSupport();
  const entry = 'addon' in support ? support.addon.userById(peer.uid) : null;
  // A uid the user database does not know is named by its number, which no `[access]` entry names.
  const user = entry?.name ?? `uid:${peer.uid}`;
  const groups = entry === null ? [] : groupsOf(entry.name, entry.gid);
  return { user, uid: peer.uid, gid: peer.gid, pid: peer.pid, groups };
}

function groupsOf(user: string, gid: number): string[] {
  const support = peerCredentialsSupport();
  if (!('addon' in support)) return [];
  try {
    return support.addon.groupNamesOf(user, gid);
  } catch {
    return [];
  }
}
