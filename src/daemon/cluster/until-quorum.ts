import { setTimeout as sleep } from 'node:timers/promises';
import { hasErrorCode } from '../../core/errors.js';

/** How often a start that needs the majority tries again while it has none. */
export const QUORUM_RETRY_MS = 1_000;

export interface UntilQuorumOptions {
  /** The daemon's stop: waiting ends, and the start fails, once it is asked to stop. */
  signal: AbortSignal;
  /**
   * Said when the first attempt is refused for want of a majority, then again every `remindEveryMs` while
   * the wait goes on, with how long it has lasted.
   */
  onWaiting: (refusal: Error, waitedMs: number) => void;
  retryMs?: number;
  remindEveryMs?: number;
}

/** How often a long wait for a majority is said again in the log. */
export const QUORUM_REMINDER_MS = 60_000;

/**
 * Runs a part of a peer daemon's start that must write through the log, again and again while no majority
 * of the voters answers. The first members of a new cluster start one by one, minutes apart as people
 * install them: the first cannot record anything before a second is up, and must wait for it rather than
 * exit. Anything but NO_QUORUM is not a matter of waiting and fails the start as it did.
 */
export async function untilQuorum<Result>(
  attempt: () => Promise<Result>,
  options: UntilQuorumOptions,
): Promise<Result> {
  const retryMs = options.retryMs ?? QUORUM_RETRY_MS;
  const remindEvery = Math.max(1, Math.round((options.remindEveryMs ?? QUORUM_REMINDER_MS) / retryMs));
  for (let refused = 0; ; refused += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!hasErrorCode(error, 'NO_QUORUM') || options.signal.aborted) throw error;
      if (refused % remindEvery === 0) options.onWaiting(error as Error, refused * retryMs);
    }
    try {
      await sleep(retryMs, undefined, { signal: options.signal });
    } catch {
      throw new Error('the daemon is stopping: it stopped waiting for a majority of the voters');
    }
  }
}
