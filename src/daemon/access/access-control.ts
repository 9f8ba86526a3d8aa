import { admitsOthers, isAdmin, type AccessRules, type Caller } from '../../core/access/roles.js';
import { SchedError } from '../../core/errors.js';
import { peerCredentialsSupport } from '../../ipc/peer-credentials.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import { octal, socketGroupId } from '../socket-place.js';
import type { SocketAccess } from '../socket-service.js';
import { ConnectionCallers } from './connection-callers.js';
import { RequestGuard } from './request-guard.js';
import type { RequestLimits } from './request-limits.js';

/** `[access]`, `socket_mode` and `socket_group` as the daemon is given them. */
export interface AccessSettings {
  admins: readonly string[];
  operators: readonly string[];
  viewers: readonly string[];
  socketMode: number;
  socketGroup: string | number | null;
}

export const SINGLE_USER: AccessSettings = {
  admins: [],
  operators: [],
  viewers: [],
  socketMode: 0o600,
  socketGroup: null,
};

/**
 * Who may reach the daemon and do what. Multi-user mode (a socket others may open, or roles for others)
 * needs the kernel to say who connects: where it cannot, the daemon refuses to start and says why.
 */
export function accessControl(
  settings: AccessSettings,
  daemonUser: string,
  support: ReturnType<typeof peerCredentialsSupport> = peerCredentialsSupport(),
) {
  const rules: AccessRules = { ...settings, daemonUser };
  const multiUser = (settings.socketMode & 0o077) !== 0 || admitsOthers(rules);
  if (multiUser && 'reason' in support) {
    throw new SchedError(
      'VALIDATION_FAILED',
      `The daemon cannot serve several users: ${support.reason}, so it cannot learn who connects to its socket.`,
      {
        hint: `Keep socket_mode 0600 (it is ${octal(settings.socketMode)}) and [access] empty to run it for its own user only.`,
      },
    );
  }
  const groupIdOf = 'addon' in support ? support.addon.groupIdOf : () => null;
  const socket: SocketAccess = {
    mode: settings.socketMode,
    gid: settings.socketGroup === null ? null : socketGroupId(settings.socketGroup, groupIdOf),
  };
  // In single-user mode only the daemon's user and root can open the socket.
  const callers = new ConnectionCallers(!multiUser);
  return {
    socket,
    /** Whether a request's caller is an admin (`--reveal`). */
    callerIsAdmin: (caller: Caller): boolean => isAdmin(caller, rules),
    guard: (deps: {
      store: Store;
      clock: Clock;
      newId: () => string;
      jobIdOfRun: (ref: string) => Promise<string>;
      limits: RequestLimits;
    }) => new RequestGuard({ ...deps, rules, callers }),
  };
}
