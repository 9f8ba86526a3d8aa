import type { Run } from '../../core/run.js';
import type { Store } from '../../store/store.js';
import type { Clock } from '../clock.js';
import type { DaemonEvents } from '../events.js';
import { DueWindow, failedItems } from './due-window.js';

export interface WaitingRunsOptions {
  store: Store;
  clock: Clock;
  events: DaemonEvents;
  /** Takes a waiting run whose time has come; it is still `scheduled` in the store. */
  due: (run: Run) => Promise<void>;
  windowMs?: number;
}

/**
 * Runs that wait in `scheduled` until their due time: retries after backoff, queued and caught-up instants,
 * backfills. They live in the store, so a daemon restart picks them up again; whoever starts one claims it
 * with a compare-and-set, so it starts only once.
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

  stop(): Promise<void> {
    return this.window.stop();
  }

  /** Waiting runs due within the in-memory window. */
  get size(): number {
    return this.window.size;
  }

  /** Reloads the waiting runs: which of them this node starts changed (a new shard map). */
  reset(): Promise<void> {
    return this.window.reset();
  }

  add(run: Run): void {
    this.window.upsert(run);
  }

  /** Stops waiting for a run that was cancelled or started by hand. */
  remove(runId: string): void {
    this.window.remove(runId);
  }

  /** Starts each run; those that could not be claimed (the store unreachable) are returned, to be tried again. */
  private async startAll(runs: Run[]): Promise<Run[]> {
    const results = await Promise.allSettled(runs.map((run) => this.options.due(run)));
    return failedItems(runs, results, (error) => this.options.events.emit('scheduler:error', { error }));
  }
}
