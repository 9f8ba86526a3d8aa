import { isBreakerOpenError } from '../core/retry/failure-note.js';
import type { Store } from '../store/store.js';

export interface EarlierAttempts {
  /** When the instant's first attempt started; null when none is known to have started. */
  firstStartedAt: number | null;
  /** Earlier attempts an open circuit breaker failed fast, which spent no retry. */
  breakerWaits: number;
}

// Every attempt on every host (--placement every-host) of one instant; far more than retries allow.
const RUNS_OF_AN_INSTANT = 5_000;

/** The attempts of the same instant (and host) before `attempt`, as the retry decision needs them. */
export async function earlierAttempts(
  store: Store,
  of: { jobId: string; scheduledFor: number; host: string; attempt: number },
): Promise<EarlierAttempts> {
  const runs = (
    await store.listRunsByInstant({
      jobId: of.jobId,
      from: of.scheduledFor,
      to: of.scheduledFor,
      limit: RUNS_OF_AN_INSTANT,
    })
  ).filter((run) => (run.host ?? '') === of.host && run.attempt < of.attempt);
  const started = runs.flatMap((run) => (run.startedAt === null ? [] : [run.startedAt]));
  return {
    firstStartedAt: started.length === 0 ? null : Math.min(...started),
    breakerWaits: runs.filter((run) => isBreakerOpenError(run.error)).length,
  };
}
