import type { Store } from '../store/store.js';
import type { CancelTimer, Clock } from './clock.js';
import type { DaemonEvents } from './events.js';

const DAY_MS = 86_400_000;

export interface RetentionPolicy {
  succeededDays: number;
  failedDays: number;
  maxRunsPerJob: number;
  auditDays: number;
  /** How long the event log (`sched watch --since`, the relay between nodes) keeps job and run events. */
  eventDays: number;
  /** How often a pruning pass runs. */
  intervalMs?: number;
}

export const DEFAULT_RETENTION: Required<RetentionPolicy> = {
  succeededDays: 90,
  failedDays: 30,
  maxRunsPerJob: 1_000,
  auditDays: 365,
  eventDays: 1,
  intervalMs: 3_600_000,
};

/** Rows one write may delete: small enough that a batch never holds the event loop for long. */
const BATCH = 500;

export interface PruneReport {
  succeeded: number;
  failed: number;
  beyondCap: number;
  audit: number;
  jobs: number;
  events: number;
  deliveries: number;
}

/**
 * Prunes history by age and by count per job, then the audit log, then cancelled jobs whose history is
 * gone. Each step deletes in small batches and yields between them, so firing is never held up.
 */
export class Retention {
  private timer: CancelTimer | null = null;
  private running: Promise<PruneReport> | null = null;
  private stopped = false;
  private readonly policy: Required<RetentionPolicy>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly events: DaemonEvents,
    policy: Partial<RetentionPolicy> = {},
    /**
     * Whether this node's scheduled passes prune: in a cluster, only the coordinator's, since every node
     * prunes the same history (a peer's prunes go through the log, each pass N commands for nothing).
     */
    private readonly mayPrune: () => boolean = () => true,
  ) {
    this.policy = { ...DEFAULT_RETENTION, ...policy };
  }

  start(firstDelayMs = Math.min(10_000, this.policy.intervalMs)): void {
    this.schedule(firstDelayMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.();
    await this.running;
  }

  /** One full pass; concurrent calls share it. */
  prune(): Promise<PruneReport> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = this.clock.setTimer(delayMs, () => {
      if (!this.mayPrune()) return this.schedule(this.policy.intervalMs);
      void this.prune()
        .then((report) => this.events.emit('retention:pruned', report))
        .catch((error: Error) => this.events.emit('scheduler:error', { error }))
        .finally(() => this.schedule(this.policy.intervalMs));
    });
  }

  private async pass(): Promise<PruneReport> {
    const now = this.clock.now();
    const { succeededDays, failedDays, maxRunsPerJob, auditDays, eventDays } = this.policy;
    const succeededBefore = now - succeededDays * DAY_MS;
    const failedBefore = now - failedDays * DAY_MS;
    const succeeded = await this.inBatches((limit) =>
      this.store.pruneRunsFinishedBefore(['succeeded'], succeededBefore, limit),
    );
    const failed = await this.inBatches((limit) =>
      this.store.pruneRunsFinishedBefore(['failed', 'timed_out', 'cancelled', 'lost'], failedBefore, limit),
    );
    const beyondCap = await this.inBatches((limit) => this.store.pruneRunsBeyond(maxRunsPerJob, limit));
    // The two logs side by side: on SQLite their batches share a commit, so a pass costs no extra write.
    const [audit, events, deliveries] = await Promise.all([
      this.inBatches((limit) => this.store.pruneAudit(now - auditDays * DAY_MS, limit)),
      // Never kept longer than the runs they tell of.
      this.inBatches((limit) =>
        this.store.pruneEvents(Math.max(now - eventDays * DAY_MS, succeededBefore, failedBefore), limit),
      ),
      // Notifications are mostly of failures: kept as long as failed runs are.
      this.inBatches((limit) => this.store.pruneDeliveries(failedBefore, limit)),
    ]);
    const jobs = await this.inBatches((limit) =>
      this.store.purgeCancelledJobs(Math.min(succeededBefore, failedBefore), limit),
    );
    return { succeeded, failed, beyondCap, audit, jobs, events, deliveries };
  }

  private async inBatches(step: (limit: number) => Promise<number>): Promise<number> {
    let total = 0;
    for (;;) {
      if (this.stopped) return total;
      const deleted = await step(BATCH);
      total += deleted;
      if (deleted < BATCH) return total;
      // Let timers and requests in between batches.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
