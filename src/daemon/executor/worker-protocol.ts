import type { ChildSlots } from '../../core/child-slots.js';
import type { RunOutcome } from '../../core/run.js';

/** What the daemon asks of a command run; `env` is the child's complete environment. */
export interface CommandExecution {
  runId: string;
  /** Executed directly, no shell. */
  argv: string[] | null;
  /** Run via `/bin/sh -c <shell>`. */
  shell: string | null;
  cwd: string | null;
  env: Record<string, string>;
  /**
   * The user to start it as, through sched-run-as, with their groups and identity added to `env`; null
   * starts it as the daemon's own user, directly.
   */
  runAs: string | null;
  /** Written to the child's stdin, which is then closed; null gives the child /dev/null. */
  stdin: string | null;
  timeoutMs: number | null;
}

/** A child's outcome as the worker sees it; the daemon stamps `finishedAt` from its own clock. */
export type ChildOutcome = Omit<RunOutcome, 'finishedAt'>;

export type TerminationState = Extract<RunOutcome['state'], 'timed_out' | 'cancelled'>;

/** The spawner's slots (see ChildSlots): a run whose child would pass either waits, first come first served. */
export interface SpawnWorkerOptions extends ChildSlots {
  killGraceMs: number;
  /** Where each live child is journaled (see ChildJournal); null journals nothing. */
  journalDir: string | null;
}

export type ToWorkerMessage =
  | { type: 'run'; execution: CommandExecution }
  | { type: 'kill'; runId: string; state: TerminationState; reason: string };

export type FromWorkerMessage =
  | { type: 'ready' }
  | { type: 'started'; runId: string; pid: number | null }
  | { type: 'output'; runId: string; stream: 'stdout' | 'stderr'; data: string; totalBytes: number }
  | { type: 'finished'; runId: string; outcome: ChildOutcome };
