import { EventEmitter } from 'node:events';
import type { RateVerb } from '../core/access/rate-limits.js';
import type { Job } from '../core/job.js';
import type { LedgerEntry } from '../core/ledger/entry.js';
import type { Run, RunOutcome } from '../core/run.js';
import type { Clock } from './clock.js';
import type { PruneReport } from './retention.js';

/** The daemon's one observable surface: logs, the socket's subscribe stream and tests all read it. */
export interface DaemonEventMap {
  'daemon:started': [{ pid: number; at: number; metricsAddress: string | null }];
  'daemon:stopping': [{ at: number; reason: string }];
  /** Processes of a run a killed daemon left running, stopped at start before the run was recorded lost. */
  'orphans:stopped': [{ runId: string; processes: string[] }];
  /** Where there is no /proc, a killed daemon's leftover processes cannot be found at start. */
  'orphans:unchecked': [{ reason: string }];
  'job:created': [Job];
  'job:updated': [Job];
  'job:cancelled': [Job];
  'run:fired': [Run];
  'run:started': [{ runId: string; jobId: string; pid: number | null; at: number }];
  /** `seq` numbers a run's chunks from 1, in order (see LiveOutput). */
  'run:output': [{ runId: string; stream: 'stdout' | 'stderr'; data: string; seq: number }];
  'run:finished': [Run];
  'run:lost': [Run];
  'run:retry-scheduled': [Run];
  /** A failed attempt that no policy retries: the dead-letter. */
  'run:dead': [Run];
  /** The last attempt of an instant ended and no retry follows: what `--after` dependents react to. */
  'run:settled': [Run];
  'occurrence:recorded': [LedgerEntry];
  /** A new shard map is in force. */
  'cluster:map': [{ term: number; coordinator: string; nodes: number }];
  /** A fire was refused: this node fired from a shard map a newer one has replaced. */
  'cluster:fenced': [{ term: number }];
  /** Peer mode: a message from or to a peer was dropped (it did not open, was too large, malformed, ...). */
  'peer:dropped': [{ channel: 'datagram' | 'stream'; reason: string; detail: string }];
  /** Peer mode: `sched cluster keys` changed this node's keyring (keys named by fingerprint only). */
  'peer:keyring-changed': [{ action: string; fingerprint: string; keys: string[]; primary: string }];
  /** Peer mode: the voters in force changed (a join, a leave, a recovery), as this node's log says. */
  'cluster:voters': [{ voters: string[] }];
  /**
   * Peer mode: this node started with voters forced by `sched cluster recover --force`, not superseded yet
   * by a configuration in its log (said at every start until one is).
   */
  'cluster:forced': [{ voters: string[]; at: number; by: string }];
  /** Peer mode: a start that must write through the log waits for a majority of the voters (said each minute). */
  'cluster:waiting': [{ for: string; error: Error; waitedMs: number }];
  /** The cluster loop or job-change listener could not reach the database; it keeps trying. */
  'cluster:error': [{ error: Error }];
  /**
   * A run stopped counting as in flight on this node, however it ended: recorded, reconciled, lost,
   * cancelled, never started, or its outcome could not be written. What counts runs in flight listens here.
   */
  'run:released': [{ runId: string; jobId: string | null }];
  /**
   * The end of a run kept offline while the store could not be reached has left the journal: the store holds
   * it, or holds the run ended otherwise, has no such run, or refused the end (see replayJournal).
   */
  'run:offline-end-settled': [{ runId: string }];
  /** A run this node started ended after another node had recorded it lost: its late outcome, not stored. */
  'run:reconciled': [{ run: Run; outcome: RunOutcome }];
  /** A call failed for want of the store: this node fires every-host jobs from its local copy until it is back. */
  'store:unreachable': [{ since: number; error: Error }];
  /** A call reached the store again, after it had been unreachable that long. */
  'store:reachable': [{ at: number; unreachableForMs: number }];
  'tick:late': [{ jobId: string; dueAt: number; firedAt: number }];
  'scheduler:error': [{ error: Error }];
  /** A request refused by `[limits]` before anything was done (counted in /metrics). */
  'request:rate-limited': [
    { user: string; uid: number; method: string; verb: RateVerb; retryAfterMs: number },
  ];
  /** A frame or request from the socket was refused as malformed; `connection` numbers the daemon's connections. */
  'socket:refused': [{ connection: number; reason: string }];
  /** The HTTPS API listens (`tls` false: plain HTTP on loopback, as `allow_plain_http` asked). */
  'api:listening': [{ address: string; tls: boolean }];
  /** An API request was refused before any handler: no valid token (never the token itself), or too many such. */
  'api:refused': [{ remoteAddress: string; status: number; reason: string }];
  /** A copy of the store was written: asked for with `sched backup`, or on the `[backup]` schedule. */
  'backup:written': [{ file: string; bytes: number; takenAt: number; scheduled: boolean }];
  /** A scheduled backup could not be written; the next is tried an interval later. */
  'backup:failed': [{ error: Error }];
  /** A job with `--expect-success-every` went that long without a success (once per spell). */
  'job:overdue': [OverdueEvent];
  /** An overdue job succeeded again. */
  'job:recovered': [OverdueEvent & { runId: string }];
  /** An attempt to send a notification, and what came of it. */
  'notification:attempted': [NotificationAttempt];
  'retention:pruned': [PruneReport];
}

export interface OverdueEvent {
  jobId: string;
  jobName: string;
  since: number;
}

export interface NotificationAttempt {
  id: string;
  jobId: string;
  kind: string;
  /** The target without its path or query (which may hold a token). */
  target: string;
  outcome: 'delivered' | 'retrying' | 'failed' | 'suppressed';
  answer: string;
}

export class DaemonEvents extends EventEmitter<DaemonEventMap> {}

/** Resolves with the run once its end is recorded, or with null after `timeoutMs`. */
export function nextRunEnd(
  events: DaemonEvents,
  clock: Clock,
  runId: string,
  timeoutMs: number,
): Promise<Run | null> {
  return new Promise((resolve) => {
    const cancelTimer = clock.setTimer(timeoutMs, () => done(null));
    const onEnd = (run: Run) => {
      if (run.id === runId) done(run);
    };
    const done = (run: Run | null) => {
      cancelTimer();
      events.off('run:finished', onEnd);
      resolve(run);
    };
    events.on('run:finished', onEnd);
  });
}
