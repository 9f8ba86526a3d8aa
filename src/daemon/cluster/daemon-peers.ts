import type { StoreReachability } from '../autonomy/store-reachability.js';
import type { DaemonEvents } from '../events.js';
import type { Job } from '../../core/job.js';
import { LEASE_EXPIRED_AT_START_REASON, LEASE_EXPIRED_REASON } from '../lost-runs.js';
import type { RunLauncher } from '../run-launcher.js';
import { PeerMembership, type PeerMembershipOptions } from './peer-membership.js';
import { untilQuorum } from './until-quorum.js';

/** What the membership itself is given, as the daemon has it. */
type MembershipBasics = Pick<
  PeerMembershipOptions,
  'settings' | 'home' | 'local' | 'labels' | 'version' | 'clock'
>;

export interface DaemonPeerOptions extends MembershipBasics {
  events: DaemonEvents;
  /** Peer mode's degraded mode follows the quorum, not the store's calls. */
  reachability: StoreReachability;
  /** The daemon's launcher once it is built (a lease may run out before it is). */
  launcher: () => RunLauncher | null;
  /** Stops the daemon (its copy of the log can no longer be kept). */
  stop: (reason: string) => void;
}

/** This daemon's peer membership, its signals taken where the daemon hears them. */
export function daemonPeerMembership(options: DaemonPeerOptions): PeerMembership {
  const { events, reachability, clock, settings, home, local, labels, version } = options;
  return new PeerMembership({
    settings,
    home,
    local,
    labels,
    version,
    clock,
    startedAt: clock.now(),
    load: () => options.launcher()?.runningCount() ?? 0,
    onError: (error) => events.emit('cluster:error', { error }),
    onDrop: (drop) => events.emit('peer:dropped', drop),
    onVoters: (voters) => events.emit('cluster:voters', { voters: [...voters] }),
    onFailed: (error) => {
      events.emit('scheduler:error', {
        error: new Error(`this node's copy of the log failed: ${error.message}`),
      });
      options.stop('the replicated store could not be written');
    },
    onQuorumLost: (error) => reachability.failed(error),
    onQuorumRegained: () => reachability.succeeded(),
    // The majority may record them lost and run them again soon: they must be gone first.
    onLeaseExpired: () => {
      const stopped = options.launcher()?.killWhere(coveredByLease, LEASE_EXPIRED_REASON);
      if (stopped)
        events.emit('cluster:error', {
          error: new Error(`this node lost touch with the majority: stopped ${stopped} run(s) of once-jobs`),
        });
    },
  });
}

/**
 * How a peer daemon runs a part of its start that writes through the log (`what` it is, for the log):
 * again until a majority answers, or the daemon is asked to stop.
 */
export function onceQuorate(events: DaemonEvents, signal: AbortSignal, what: string) {
  return <Result>(attempt: () => Promise<Result>): Promise<Result> =>
    untilQuorum(attempt, {
      signal,
      onWaiting: (error, waitedMs) => events.emit('cluster:waiting', { for: what, error, waitedMs }),
    });
}

/** The runs a member's lease covers: those of once-jobs (every-host jobs go on alone, cut off or not). */
function coveredByLease(job: Job): boolean {
  return job.placement.mode !== 'every-host';
}

/**
 * Why a once-job's run may not start here now: this node's lease ran out, and the fire it made while in
 * touch was applied here only since (its runs were killed when the lease ran out, and this one would never
 * be), so the majority may record the run lost and start it elsewhere at any moment. Null when it may.
 */
export function leaseLaunchRefusal(peers: PeerMembership): (job: Job) => string | null {
  return (job) => (coveredByLease(job) && peers.leaseExpired() ? LEASE_EXPIRED_AT_START_REASON : null);
}
