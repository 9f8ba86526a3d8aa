import { SchedError } from '../core/errors.js';
import { isStoreUnreachable } from '../store/unreachable.js';
import { sleep, type Clock } from './clock.js';
import type { DaemonEvents } from './events.js';

// How long a run's outcome is retried while the store cannot be reached (a PostgreSQL restart, say).
const OUTCOME_RETRY_LIMIT_MS = 5 * 60_000;
const OUTCOME_RETRY_DELAY_MS = 1_000;

/**
 * Retries a write that failed for want of the store (not for a reason it gave, a SchedError), so an outcome
 * reached while the database restarts is recorded once it is back instead of leaving the run `running`.
 * Where the outcome can be kept offline (`keepOffline`), a store that cannot be reached leaves it there
 * instead: the run then stops holding its job's slot, so an every-host job goes on firing meanwhile.
 */
export async function persistently(
  write: () => Promise<void>,
  events: DaemonEvents,
  clock: Clock,
  keepOffline: () => boolean,
): Promise<void> {
  const giveUpAt = clock.monotonic() + OUTCOME_RETRY_LIMIT_MS;
  for (;;) {
    try {
      return await write();
    } catch (error) {
      if (isStoreUnreachable(error) && keepOffline()) return;
      if (error instanceof SchedError || clock.monotonic() > giveUpAt) throw error;
      events.emit('scheduler:error', { error: error as Error });
      await sleep(clock, OUTCOME_RETRY_DELAY_MS);
    }
  }
}
