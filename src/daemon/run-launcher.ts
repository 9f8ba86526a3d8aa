import type { Job } from '../core/job.js';
import type { Run, RunOutcome } from '../core/run.js';
import type { Store } from '../store/store.js';
import type { CommandExecutor } from './executor/command-executor.js';
import type { DaemonEvents } from './events.js';

/** The variables every command job sees, so it can be idempotent and tell its runs apart. */
export function runEnvironment(run: Run, job: Job): Record<string, string> {
  return {
    SCHED_JOB_ID: job.id,
    SCHED_JOB_NAME: job.name,
    SCHED_RUN_ID: run.id,
    SCHED_ATTEMPT: String(run.attempt),
    SCHED_SCHEDULED_FOR: new Date(run.scheduledFor).toISOString(),
    SCHED_SCHEDULED_FOR_MS: String(run.scheduledFor),
    SCHED_FENCE: String(run.fence),
  };
}

/**
 * Hands runs to the executor and writes what becomes of them. Store writes are chained per run so a
 * run's `started` can never land after its `finished`.
 */
export class RunLauncher {
  private readonly jobsByRun = new Map<string, Job>();
  /** The tail of each run's chain of store writes. */
  private readonly writes = new Map<string, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly executor: CommandExecutor,
    private readonly events: DaemonEvents,
    private readonly baseEnv: Record<string, string>,
  ) {
    executor.on('started', (runId, pid, startedAt) =>
      this.write(runId, async () => {
        await store.markRunStarted(runId, startedAt, pid);
        const job = this.jobsByRun.get(runId);
        if (job) events.emit('run:started', { runId, jobId: job.id, pid, at: startedAt });
      }),
    );
    executor.on('finished', (runId, outcome) => this.write(runId, () => this.finish(runId, outcome)));
  }

  launch(run: Run, job: Job): void {
    this.jobsByRun.set(run.id, job);
    const target = job.target;
    this.executor.run({
      runId: run.id,
      argv: target.argv,
      shell: target.shell,
      cwd: target.cwd,
      env: { ...this.baseEnv, ...target.env, ...runEnvironment(run, job) },
      stdin: job.payload === null ? null : JSON.stringify(job.payload),
      timeoutMs: job.timeoutMs,
    });
  }

  kill(runId: string, reason: string): boolean {
    return this.executor.kill(runId, reason);
  }

  runningCount(): number {
    return this.executor.runningCount();
  }

  /** Resolves once every outcome reported so far is on disk. */
  async settled(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes.values()]);
  }

  private async finish(runId: string, outcome: RunOutcome): Promise<void> {
    this.jobsByRun.delete(runId);
    const run = await this.store.finishRun(runId, outcome);
    this.events.emit('run:finished', run);
  }

  private write(runId: string, step: () => Promise<void>): void {
    const previous = this.writes.get(runId) ?? Promise.resolve();
    const pending: Promise<void> = previous
      .then(step)
      .catch((error: Error) => void this.events.emit('scheduler:error', { error }))
      .finally(() => {
        if (this.writes.get(runId) === pending) this.writes.delete(runId);
      });
    this.writes.set(runId, pending);
  }
}
