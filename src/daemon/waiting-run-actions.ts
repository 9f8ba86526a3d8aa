import type { Job } from '../core/job.js';
import type { Run } from '../core/run.js';
import type { Store } from '../store/store.js';
import type { Clock } from './clock.js';
import type { DaemonEvents } from './events.js';
import type { RunGate } from './run-gate.js';
import type { WaitingRuns } from './scheduler/waiting-runs.js';

export interface WaitingRunActionsDeps {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  gate: RunGate;
  waitingRuns: WaitingRuns;
}

/**
 * What a person can do to a run that waits as `scheduled` (a retry in its backoff, an instant queued behind
 * a running one or behind `--max-concurrent`): cancel it, or start it now. The store's compare-and-set on
 * `scheduled` decides, so a run that the daemon starts at the same moment is either cancelled or started,
 * never both; the in-memory waiting lists are only told to forget it.
 */
export class WaitingRunActions {
  constructor(private readonly deps: WaitingRunActionsDeps) {}

  /** Ends a waiting run as cancelled, so it never starts; null when it is no longer waiting. */
  async cancel(run: Run, reason: string): Promise<Run | null> {
    const { store, clock, events } = this.deps;
    const cancelled = await store.cancelWaitingRun(run.id, {
      state: 'cancelled',
      finishedAt: clock.now(),
      exitCode: null,
      signal: null,
      error: reason,
      stdoutTail: '',
      stderrTail: '',
    });
    this.forget(run.id);
    if (cancelled === null) return null;
    // As any cancelled attempt: no retry follows it, so its instant is settled and `--after` dependents hear.
    events.emit('run:finished', cancelled);
    events.emit('run:settled', cancelled);
    events.emit('run:released', { runId: cancelled.id, jobId: cancelled.jobId });
    return cancelled;
  }

  /**
   * Starts a waiting run at once, as the same attempt, past the job's overlap policy and the daemon's limit
   * (a person asked for it); null when it is no longer waiting.
   */
  async startNow(run: Run, job: Job): Promise<Run | null> {
    const { store, clock, gate } = this.deps;
    const startedAt = clock.now();
    const claimed = await store.claimRun(run.id, startedAt);
    this.forget(run.id);
    if (!claimed) return null;
    const started: Run = { ...run, state: 'running', startedAt };
    gate.launchNow(started, job);
    return started;
  }

  private forget(runId: string): void {
    this.deps.waitingRuns.remove(runId);
    this.deps.gate.forget(runId);
  }
}
