/** What happened to one instant a job was due. */
export const OCCURRENCE_OUTCOMES = [
  'ran',
  'skipped-overlap',
  'missed-while-down',
  'outside-catchup-window',
  'dst-skipped',
  'paused',
  /** Fell due while the store could not be reached: a once or `--on` job does not fire without it. */
  'store-unreachable',
  'deduplicated',
  /** Not an instant: the moment a job with `--expect-success-every` went that long without a success. */
  'overdue',
] as const;
export type OccurrenceOutcome = (typeof OCCURRENCE_OUTCOMES)[number];

/**
 * The ledger's record of one instant a job was due: one per instant, whether or not it ran; one per node
 * for an every-host job's instant that a node decided for itself (`host`).
 */
export interface LedgerEntry {
  jobId: string;
  jobName: string;
  scheduledFor: number;
  outcome: OccurrenceOutcome;
  /** A clause that completes "… because …" (or, for `ran`, says why it ran when it was not simply on time). */
  reason: string;
  /** The node that decided. */
  node: string;
  /**
   * The node a `--placement every-host` entry belongs to: each node decides such an instant for itself (a
   * skip for an overlap on that node), so the node is part of the entry's key. Absent for an instant decided
   * once for the cluster.
   */
  host?: string;
  decidedAt: number;
  runIds: string[];
  /** The state the instant's last run ended in, or null while it runs or waits (or when nothing ran). */
  finalState: string | null;
  /**
   * True while the instant's last run has not started: it waits for the job's running run to end
   * (`--concurrency queue`, a caught-up instant), for a slot under `--max-concurrent`, or for a retry's backoff.
   * Set on entries that have runs.
   */
  waiting?: boolean;
  /**
   * The local wall time the instant stood for, ISO without offset, when it is not simply `scheduledFor` in the
   * job's zone: a wall time the clocks skipped (its `scheduledFor` is the jump). Optional; absent means "read
   * scheduledFor in the zone".
   */
  wall?: string | null;
}
