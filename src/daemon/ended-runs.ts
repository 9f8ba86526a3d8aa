import type { Clock } from '../core/clock.js';

/** How long a run that ended here is still known to have, after its end was written. */
const KEPT_AFTER_WRITTEN_MS = 10_000;

/**
 * The runs that ended on this node lately: from their end's arrival until KEPT_AFTER_WRITTEN_MS after the
 * end was written. A fire of their job counts them as over (see Fire.endedHere): one that read the job's
 * runs in flight before the end was stored still found the run running.
 */
export class EndedRuns {
  /** By run: null while the end is being written, then when it was (monotonic ms); in the order they ended. */
  private readonly runs = new Map<string, number | null>();

  constructor(private readonly clock: Pick<Clock, 'monotonic'>) {}

  has(runId: string): boolean {
    return this.runs.has(runId);
  }

  ended(runId: string): void {
    this.runs.set(runId, null);
  }

  /** The run's end is written; the runs whose ends were written long enough ago are forgotten. */
  written(runId: string): void {
    const now = this.clock.monotonic();
    this.runs.set(runId, now);
    // In the order the runs ended, which is the order their ends are written (one batch at a time).
    for (const [id, writtenAt] of this.runs) {
      if (writtenAt === null || now - writtenAt < KEPT_AFTER_WRITTEN_MS) break;
      this.runs.delete(id);
    }
  }
}
