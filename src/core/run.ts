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

export type RunTrigger = 'schedule' | 'manual' | 'retry';

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
}

/**
 * A run with what it printed: the last 64 KiB of stdout and stderr of a command, or the first 64 KiB of
 * an HTTP response body (in `stdoutTail`) and its headers.
 */
export interface Run extends RunSummary {
  stdoutTail: string;
  stderrTail: string;
  responseHeaders: Record<string, string> | null;
}

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
  responseHeaders?: Record<string, string> | null;
}

export function isFinalRunState(state: RunState): boolean {
  return FINAL_RUN_STATES.includes(state);
}
