export const RUN_STATES = [
  'scheduled',
  'running',
  'succeeded',
  'failed',
  'timed_out',
  'cancelled',
  'lost',
] as const;
export type RunState = (typeof RUN_STATES)[number];

export const FINAL_RUN_STATES: readonly RunState[] = [
  'succeeded',
  'failed',
  'timed_out',
  'cancelled',
  'lost',
];

/**
 * Why a run exists: its instant came due (`schedule`), a person asked (`manual`), an earlier attempt failed
 * (`retry`), an instant missed while the daemon was down is being caught up (`catchup`), `sched backfill` made it
 * (`backfill`), an upstream job's run ended (`dependency`), or something outside checked in with
 * `sched ping` (`ping`: a run recorded, not run).
 */
export const RUN_TRIGGERS = [
  'schedule',
  'manual',
  'retry',
  'catchup',
  'backfill',
  'dependency',
  'ping',
] as const;
export type RunTrigger = (typeof RUN_TRIGGERS)[number];

/** One attempt of one scheduled instant of a job. `(jobId, scheduledFor, attempt)` is unique. */
export interface RunSummary {
  id: string;
  jobId: string;
  jobName: string;
  scheduledFor: number;
  attempt: number;
  trigger: RunTrigger;
  state: RunState;
  node: string;
  fence: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  pid: number | null;
  exitCode: number | null;
  /** The response status of an HTTP target. */
  httpStatus: number | null;
  signal: string | null;
  error: string | null;
  /** The id of the attempt that retries this one, when it failed and the policy allowed another. */
  retriedBy: string | null;
  /** When a `scheduled` run may start: the instant for a first attempt, later for a retry. */
  dueAt: number;
  /**
   * The node a `--placement every-host` run belongs to: each live node runs the instant, so the node is part
   * of the run's key. Empty for every other run (one per instant in the whole cluster).
   */
  host?: string;
}

/**
 * A run with what it printed: the last 64 KiB of stdout and stderr of a command, or the first 64 KiB of
 * an HTTP response body (in `stdoutTail`) and its headers.
 */
export interface Run extends RunSummary {
  stdoutTail: string;
  stderrTail: string;
  responseHeaders: Record<string, string> | null;
  /**
   * How many bytes a command wrote to each stream in all, so a reader can tell how much the tail left
   * out; null (or absent) for HTTP runs and for runs recorded before sched counted.
   */
  stdoutBytes?: number | null;
  stderrBytes?: number | null;
  /**
   * Only on a running run read from the daemon that runs it: how many `run:output` chunks its tails
   * already hold. A follower prints the chunks numbered above it, so nothing is missed or shown twice.
   */
  outputSeq?: number;
}

/**
 * What an executor knows about a failure beyond its exit code or status, kept with the outcome in memory
 * (never stored): the launcher needs it to decide on the retry.
 */
export type FailureCause =
  | { kind: 'breaker-open'; retryAt: number }
  | { kind: 'not-found' }
  | { kind: 'not-executable' }
  | { kind: 'invalid-request' };

/** How a finished run ended, as the executor reports it. */
export interface RunOutcome {
  state: Extract<RunState, 'succeeded' | 'failed' | 'timed_out' | 'cancelled' | 'lost'>;
  finishedAt: number;
  exitCode: number | null;
  httpStatus?: number | null;
  signal: string | null;
  error: string | null;
  stdoutTail: string;
  stderrTail: string;
  /** Every byte a command wrote to each stream, the part beyond the tail included. */
  stdoutBytes?: number;
  stderrBytes?: number;
  responseHeaders?: Record<string, string> | null;
  /** What the executor knows of a failure beyond its code, for the retry decision; never stored. */
  cause?: FailureCause;
}

export function isFinalRunState(state: RunState): boolean {
  return FINAL_RUN_STATES.includes(state);
}
