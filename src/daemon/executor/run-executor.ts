import type { RunOutcome } from '../../core/run.js';

export interface RunExecutorEvents {
  started: (runId: string, pid: number | null, startedAt: number) => void;
  finished: (runId: string, outcome: RunOutcome) => void;
}

/** What the launcher needs of an executor, whatever the target: commands or HTTP calls. */
export interface RunExecutor {
  on<E extends keyof RunExecutorEvents>(event: E, listener: RunExecutorEvents[E]): () => void;
  kill(runId: string, reason: string): boolean;
  runningCount(): number;
  stop(options?: { killReason?: string }): Promise<void>;
}
