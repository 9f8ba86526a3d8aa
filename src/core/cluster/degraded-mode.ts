import { formatDuration } from '../duration.js';

/**
 * What a node is cut off from: its store (a federation's PostgreSQL), or, in peer mode, a majority of the
 * voters that keep the log. Either way it fires every-host jobs on its own and refuses what needs the rest.
 */
export type DegradedCause = 'store' | 'quorum';

/**
 * What a node says while its store cannot be reached: `degraded: store unreachable for 45s, firing every-host
 * jobs from the local copy`. Jobs that fire on one node wait for the store; every-host jobs need no one else.
 */
export function degradedNotice(
  unreachableSince: number,
  now: number,
  cause: DegradedCause = 'store',
): string {
  const lasted = lastedSince(unreachableSince, now);
  if (cause === 'quorum')
    return `degraded: no majority of the voters reachable for ${lasted}, firing every-host jobs on its own; writes are refused (NO_QUORUM)`;
  return `degraded: store unreachable for ${lasted}, firing every-host jobs from the local copy`;
}

/**
 * A read a peer answers from its own copy of the log while it cannot reach a majority: changes the others
 * committed since are not in it.
 */
export function minorityReadNotice(since: number, now: number): string {
  const lasted = lastedSince(since, now);
  return `this node has reached no majority of the voters for ${lasted}: this is its own copy of the cluster's jobs, which may be stale`;
}

/** How long a spell has lasted, in whole seconds: one second rather than nothing when it has just begun. */
function lastedSince(since: number, now: number): string {
  return formatDuration(Math.max(1_000, Math.floor((now - since) / 1_000) * 1_000));
}

/** A read served from the node's local copy of the job definitions while the store cannot be reached. */
export function staleReadNotice(copiedAt: number | null, now: number): string {
  const age =
    copiedAt === null
      ? 'never refreshed'
      : `last refreshed ${formatDuration(Math.max(0, now - copiedAt))} ago`;
  return `the store cannot be reached: this is this node's local copy of the job definitions (${age}), which may be stale`;
}

/** A spell during which the store could not be reached; `until` is null while it lasts. */
export interface Outage {
  since: number;
  until: number | null;
}

/**
 * Whether an instant fell due while the store could not be reached. A node learns of an outage from its
 * first failed call, which may be the very fire of the instant, a moment after it was due: an instant up
 * to `noticeMs` before the outage was noticed counts too.
 */
export function fellDueInOutage(instant: number, outages: readonly Outage[], noticeMs: number): boolean {
  return outages.some(
    (outage) => instant >= outage.since - noticeMs && (outage.until === null || instant <= outage.until),
  );
}
