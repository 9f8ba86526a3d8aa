import type { Job } from '../../core/job.js';
import type { NewDelivery } from '../../core/notify/delivery.js';
import { resolveAlerts, runDeliveries, type NotifyDefaults } from '../../core/notify/plan.js';
import { isFinalRunState, type RunOutcome } from '../../core/run.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';

const FAILED: ReadonlySet<string> = new Set(['failed', 'timed_out', 'lost']);

/** The deliveries a run's end causes, to be written in the transaction that records the end. */
export class RunNotices {
  constructor(
    private readonly options: {
      store: Store;
      clock: Clock;
      events: DaemonEvents;
      newId: () => string;
      defaults: NotifyDefaults;
    },
  ) {}

  /** Never throws: a run's end is recorded even when its notifications cannot be worked out. */
  async deliveriesFor(
    job: Job,
    runId: string,
    outcome: RunOutcome,
    retrying: boolean,
  ): Promise<NewDelivery[]> {
    const { defaults, clock, newId, events } = this.options;
    try {
      const { targets, on } = resolveAlerts(job, defaults);
      if (targets.length === 0) return [];
      const previousFailed =
        outcome.state === 'succeeded' && on.includes('recovered')
          ? await this.previousFailed(job.id, runId)
          : false;
      return runDeliveries(
        job,
        { runId, outcome: outcome.state, retrying, previousFailed },
        defaults,
        clock.now(),
        newId,
      );
    } catch (error) {
      events.emit('scheduler:error', { error: error as Error });
      return [];
    }
  }

  /** Whether the job's last instant before this run ended in failure with no retry after it. */
  private async previousFailed(jobId: string, runId: string): Promise<boolean> {
    const { items } = await this.options.store.listRuns({ jobId, limit: 10 });
    const previous = items.find(
      (run) =>
        run.id !== runId && isFinalRunState(run.state) && run.state !== 'cancelled' && run.retriedBy === null,
    );
    return previous !== undefined && FAILED.has(previous.state);
  }
}
