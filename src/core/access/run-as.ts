/** The daemon's own account, as far as whom it may start jobs as goes. */
export interface DaemonAccount {
  user: string;
  /** Only root can start a process as another user. */
  isRoot: boolean;
}

/**
 * Whom a command job is started as, like cron: its owner. A job of the daemon's own user is started as
 * the daemon is, with nothing in between; only a root daemon can start the jobs of others, and a daemon
 * that is not root refuses them rather than run them as itself.
 */
export type RunAs = { as: 'daemon' } | { as: 'owner'; user: string } | { as: 'refused'; reason: string };

export function runAsFor(owner: string, daemon: DaemonAccount): RunAs {
  if (owner === daemon.user) return { as: 'daemon' };
  if (daemon.isRoot) return { as: 'owner', user: owner };
  return {
    as: 'refused',
    reason: `the job belongs to ${owner} and this daemon runs as ${daemon.user}, not as root, so it can start only ${daemon.user}'s jobs`,
  };
}
