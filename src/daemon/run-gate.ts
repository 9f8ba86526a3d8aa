import type { Job } from '../core/job.js';
import {
  admitInDueOrder,
  decideOverlap,
  type OverlapDecision,
  replacedReason,
  type OverlapState,
} from '../core/policy/overlap.js';
import type { Run, RunTrigger } from '../core/run.js';
import type { AloneClaim, Store } from '../store/store.js';
import type { CancelTimer, Clock } from './clock.js';
import type { DaemonEvents } from './events.js';

export interface RunGateOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  /** Daemon-wide limit on runs at once (`--max-concurrent`); null for none. */
  maxConcurrent: number | null;
  /** Hands a run that is `running` in the store to its executor. */
  launch: (run: Run, job: Job) => void;
  /** Kills a running run; false when it is not running here. */
  kill: (runId: string, reason: string) => boolean;
}

// Runs of these triggers wait for the job's running run to end, on any node, unless the job allows overlap:
// a queued instant (`--concurrency queue`), caught-up instants, a backfill, runs asked for by hand,
// automatic retries and `--after` runs run one after another, in order.
const SERIAL_TRIGGERS: ReadonlySet<RunTrigger> = new Set([
  'schedule',
  'catchup',
  'backfill',
  'manual',
  'retry',
  'dependency',
]);

/** How soon a run waiting for another node's run of its job tries again. */
const RECHECK_MS = 1_000;

interface Held {
  run: Run;
  job: Job;
}

/**
 * Decides when runs start: the job's overlap policy against its runs in flight, and the daemon-wide
 * `--max-concurrent` limit. A run that may not start yet waits as `scheduled` in the store (so a restart
 * finds it) and here, and starts in due order when a run ends. Slots are reserved synchronously, so runs
 * fired in the same wake-up never overshoot the limit.
 */
export class RunGate {
  private readonly runningByJob = new Map<string, Set<string>>();
  private readonly jobOfRun = new Map<string, string>();
  private readonly held = new Map<string, Held>();
  private active = 0;
  private reserved = 0;
  private pumping: Promise<void> | null = null;
  private pumpAgain = false;
  private closed = false;
  private recheck: CancelTimer | null = null;

  constructor(private readonly options: RunGateOptions) {
    // Not run:finished or run:lost: a run can also end reconciled with another node's record of it, or
    // with its outcome unwritten, and each of those must give its slot back too.
    options.events.on('run:released', ({ runId }) => this.ended(runId));
  }

  /** What the job's overlap policy says about an instant that comes due now. */
  overlap(job: Job): { decision: OverlapDecision; state: OverlapState } {
    const state: OverlapState = {
      runningRunIds: [...(this.runningByJob.get(job.id) ?? [])],
      queuedRunId: this.queuedRunOf(job.id),
    };
    return { decision: decideOverlap(job.policy.concurrency, state), state };
  }

  /** Takes a slot for a run about to be written as `running`; false when the daemon-wide limit is reached. */
  reserve(): boolean {
    const max = this.options.maxConcurrent;
    if (max !== null && this.active + this.reserved >= max) return false;
    this.reserved += 1;
    return true;
  }

  /** Gives back a reserved slot that was not used (the write failed or the fire lost its compare-and-set). */
  release(): void {
    this.reserved = Math.max(0, this.reserved - 1);
    this.schedulePump();
  }

  /** Starts a run that is `running` in the store, using a slot from `reserve`. */
  launchReserved(run: Run, job: Job): void {
    this.reserved = Math.max(0, this.reserved - 1);
    this.track(run, job);
    this.options.launch(run, job);
  }

  /** Starts a run that is `running` in the store at once, past any limit (`sched retry` of a dead run). */
  launchNow(run: Run, job: Job): void {
    this.track(run, job);
    this.options.launch(run, job);
  }

  /** `--concurrency replace`: the run of a newer instant takes over; the running one is cancelled. */
  replace(runId: string, job: Job, instant: number): void {
    this.options.kill(runId, replacedReason(instant));
  }

  /** A `scheduled` run that starts once the policy and the limit allow. */
  hold(run: Run, job: Job): void {
    if (this.closed) return;
    this.held.set(run.id, { run, job });
    this.schedulePump();
  }

  /** Forgets a held run that was cancelled or started by hand; its job's next queued instant may take its place. */
  forget(runId: string): void {
    if (this.held.delete(runId)) this.schedulePump();
  }

  /** Forgets held runs of a job (it was cancelled); they stay `scheduled` in the store. */
  dropJob(jobId: string): void {
    for (const [id, held] of this.held) if (held.job.id === jobId) this.held.delete(id);
  }

  isRunning(jobId: string): boolean {
    return (this.runningByJob.get(jobId)?.size ?? 0) > 0;
  }

  get waiting(): number {
    return this.held.size;
  }

  /**
   * Starts nothing more: the daemon is stopping. Held runs stay `scheduled` in the store for the next
   * daemon; were they started now, a run ending under the shutdown would hand its slot to a new one.
   */
  close(): void {
    this.closed = true;
    this.held.clear();
    this.recheck?.();
    this.recheck = null;
  }

  /** Resolves once no start is in progress. */
  async settled(): Promise<void> {
    while (this.pumping) await this.pumping;
  }

  private queuedRunOf(jobId: string): string | null {
    for (const { run, job } of this.held.values()) {
      if (job.id === jobId && run.trigger === 'schedule') return run.id;
    }
    return null;
  }

  private track(run: Run, job: Job): void {
    const runs = this.runningByJob.get(job.id) ?? new Set<string>();
    if (!runs.has(run.id)) {
      runs.add(run.id);
      this.active += 1;
    }
    this.runningByJob.set(job.id, runs);
    this.jobOfRun.set(run.id, job.id);
  }

  private ended(runId: string): void {
    const jobId = this.jobOfRun.get(runId);
    this.jobOfRun.delete(runId);
    const runs = jobId === undefined ? undefined : this.runningByJob.get(jobId);
    if (jobId !== undefined && runs?.delete(runId)) {
      this.active = Math.max(0, this.active - 1);
      if (runs.size === 0) this.runningByJob.delete(jobId);
    }
    this.schedulePump();
  }

  /**
   * A run of the job runs on another node (a shard moved, a run asked for by hand): this node hears of its
   * end only through the store, so the waiting run is held and tried again shortly.
   */
  private waitForRunElsewhere(held: Held): void {
    this.held.set(held.run.id, held);
    if (this.recheck !== null) return;
    this.recheck = this.options.clock.setTimer(RECHECK_MS, () => {
      this.recheck = null;
      this.schedulePump();
    });
  }

  /** A run that waits its turn starts only while no run of its job runs, on any node. */
  private async claim(runId: string, startedAt: () => number, serial: boolean): Promise<AloneClaim> {
    const { store } = this.options;
    if (serial) return store.claimRunAlone(runId, startedAt);
    return (await store.claimRun(runId, startedAt())) ? 'claimed' : 'gone';
  }

  private schedulePump(): void {
    if (this.closed) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = null;
      if (this.pumpAgain) {
        this.pumpAgain = false;
        this.schedulePump();
      }
    });
  }

  private async pump(): Promise<void> {
    const { clock, events, maxConcurrent } = this.options;
    const startedJobs = new Set<string>();
    const candidates = [...this.held.values()].map((held) => ({
      ...held,
      id: held.run.id,
      dueAt: held.run.dueAt,
    }));
    for (const candidate of admitInDueOrder(candidates, 0, null)) {
      if (this.closed) return;
      if (maxConcurrent !== null && this.active + this.reserved >= maxConcurrent) return;
      const { run, job } = candidate;
      const serial = SERIAL_TRIGGERS.has(run.trigger) && job.policy.concurrency !== 'allow';
      if (serial && (this.isRunning(job.id) || startedJobs.has(job.id))) continue;
      this.held.delete(run.id);
      this.reserved += 1;
      try {
        // Stamped when the store holds the job's lock, after any end the claim waited for.
        let startedAt = clock.now();
        const stamp = (): number => {
          startedAt = clock.now();
          return startedAt;
        };
        const claim = await this.claim(run.id, stamp, serial);
        if (claim === 'claimed') {
          startedJobs.add(job.id);
          this.launchReserved({ ...run, state: 'running', startedAt }, job);
        } else {
          this.reserved -= 1;
          if (claim === 'busy') this.waitForRunElsewhere({ run, job });
        }
      } catch (error) {
        this.reserved -= 1;
        this.held.set(run.id, { run, job });
        events.emit('scheduler:error', { error: error as Error });
        return;
      }
    }
  }
}
