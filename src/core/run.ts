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

export type RunTrigger = 'schedule' | 'manual';

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
  signal: string | null;
  error: string | null;
}

/** A run with the kept tails of its output (the last 64 KiB of each stream). */
export interface Run extends RunSummary {
  stdoutTail: string;
  stderrTail: string;
}

/** How a finished run ended, as the executor reports it. */
export interface RunOutcome {
  state: Extract<RunState, 'succeeded' | 'failed' | 'timed_out' | 'cancelled' | 'lost'>;
  finishedAt: number;
  exitCode: number | null;
  signal: string | null;
  error: string | null;
  stdoutTail: string;
  stderrTail: string;
}

export function isFinalRunState(state: RunState): boolean {
  return FINAL_RUN_STATES.includes(state);
}
