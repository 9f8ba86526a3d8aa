import type { FinishedRun, RunEnd, Store } from '../store/store.js';
import { isStoreUnreachable } from '../store/unreachable.js';

/** Ends written in one transaction at most: one statement's parameters stay small. */
const MAX_ENDS_PER_BATCH = 500;

interface PendingEnd {
  end: RunEnd;
  resolve: (finished: FinishedRun | null) => void;
  reject: (error: unknown) => void;
}

/**
 * Writes run ends as a group commit: an end that comes while none is being written goes at the next turn of
 * the event loop (with every end that settled in the same turn), and the ends that come while a batch is
 * being written go together in the next one. On an idle daemon an end waits for nothing; under load, many
 * ends share one transaction instead of each paying its round trips. A batch that fails is written again
 * end by end, so one end's failure (its retry's attempt taken) is that end's alone.
 */
export class RunEndBatch {
  private queued: PendingEnd[] = [];
  private writing = false;

  constructor(private readonly store: Pick<Store, 'finishRuns'>) {}

  /** The run as it ended, or null when its compare-and-set failed (it was not running any more). */
  write(end: RunEnd): Promise<FinishedRun | null> {
    return new Promise((resolve, reject) => {
      this.queued.push({ end, resolve, reject });
      if (this.writing) return;
      this.writing = true;
      setImmediate(() => void this.writeQueued());
    });
  }

  private async writeQueued(): Promise<void> {
    while (this.queued.length > 0) {
      const batch = this.queued.splice(0, MAX_ENDS_PER_BATCH);
      await this.writeBatch(batch);
    }
    this.writing = false;
  }

  private async writeBatch(batch: PendingEnd[]): Promise<void> {
    try {
      const finished = await this.store.finishRuns(batch.map((pending) => pending.end));
      batch.forEach((pending, index) => pending.resolve(finished[index] ?? null));
    } catch (error) {
      if (batch.length === 1 || isStoreUnreachable(error)) {
        for (const pending of batch) pending.reject(error);
        return;
      }
      await Promise.all(
        batch.map((pending) =>
          this.store.finishRuns([pending.end]).then(
            ([finished]) => pending.resolve(finished ?? null),
            (alone: unknown) => pending.reject(alone),
          ),
        ),
      );
    }
  }
}
