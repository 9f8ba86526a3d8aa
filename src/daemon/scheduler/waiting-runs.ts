import type { Run } from '../../core/run.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import { DueWindow } from './due-window.js';

export interface WaitingRunsOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  /** Starts a run the queue has just claimed (moved to `running` in the store). */
  start: (run: Run) => Promise<void>;
  windowMs?: number;
}

/**
 * Runs that wait in `scheduled` until their due time: retries after backoff. They live in the store,
 * so a daemon restart picks them up again; claiming one is a compare-and-set, so it starts only once.
 */
export class WaitingRuns {
  private readonly window: DueWindow<Run>;

  constructor(private readonly options: WaitingRunsOptions) {
    this.window = new DueWindow<Run>({
      clock: options.clock,
      windowMs: options.windowMs ?? 60_000,
      loadLimit: 10_000,
      load: (horizon, limit) => options.store.dueRuns(horizon, limit),
      keyOf: (run) => run.id,
      dueOf: (run) => (run.state === 'scheduled' ? run.dueAt : null),
      onDue: (runs) => this.startAll(runs),
      onError: (error) => options.events.emit('scheduler:error', { error }),
    });
  }

  start(): Promise<void> {
    return this.window.start();
  }

  stop(): void {
    this.window.stop();
  }

  /** Waiting runs due within the in-memory window. */
  get size(): number {
    return this.window.size;
  }

  add(run: Run): void {
    this.window.upsert(run);
  }

  private async startAll(runs: Run[]): Promise<void> {
    const now = this.options.clock.now();
    await Promise.all(
      runs.map(async (run) => {
        if (await this.options.store.claimRun(run.id, now)) {
          await this.options.start({ ...run, state: 'running', startedAt: now });
        }
      }),
    );
  }
}
