import type { BreakerSettings } from './job.js';

/** `half_open` means one trial request is in flight; its result decides between closed and open. */
export type BreakerPhase = 'closed' | 'open' | 'half_open';

/** The circuit breaker of one origin. Instants are milliseconds since the epoch, handed in by the caller. */
export interface BreakerStateValue {
  state: BreakerPhase;
  consecutiveFailures: number;
  /** When the breaker last opened; null while it has never opened since it last closed. */
  openedAt: number | null;
}

export interface BreakerAdmission {
  admit: boolean;
  next: BreakerStateValue;
}

export function initialBreaker(): BreakerStateValue {
  return { state: 'closed', consecutiveFailures: 0, openedAt: null };
}

/**
 * Whether a request may go out now. Once the cool-down has passed an open breaker lets exactly one
 * trial through and moves to half-open, so the caller must store `next` before admitting anything else.
 */
export function breakerAdmits(
  b: BreakerStateValue,
  now: number,
  settings: BreakerSettings,
): BreakerAdmission {
  switch (b.state) {
    case 'closed':
      return { admit: true, next: b };
    case 'half_open':
      return { admit: false, next: b };
    case 'open': {
      const retryAt = breakerRetryAt(b, settings);
      // A clock that jumped backwards keeps the breaker open rather than letting traffic through early.
      if (retryAt === null || now < retryAt) return { admit: false, next: b };
      return { admit: true, next: { ...b, state: 'half_open' } };
    }
  }
}

/**
 * Folds in the verdict of a request that was admitted. While open (results of requests admitted before
 * the breaker opened) failures are only counted, so the cool-down is not pushed back, and a success
 * alone does not close it: only a half-open trial does.
 */
export function breakerRecord(
  b: BreakerStateValue,
  success: boolean,
  now: number,
  settings: BreakerSettings,
): BreakerStateValue {
  switch (b.state) {
    case 'closed': {
      if (success) return b.consecutiveFailures === 0 ? b : initialBreaker();
      const consecutiveFailures = b.consecutiveFailures + 1;
      return consecutiveFailures >= settings.failureThreshold
        ? { state: 'open', consecutiveFailures, openedAt: now }
        : { ...b, consecutiveFailures };
    }
    case 'half_open':
      return success
        ? initialBreaker()
        : { state: 'open', consecutiveFailures: b.consecutiveFailures + 1, openedAt: now };
    case 'open':
      return success ? b : { ...b, consecutiveFailures: b.consecutiveFailures + 1 };
  }
}

/**
 * The half-open trial ended without a verdict (it was cancelled). Back to open with the old `openedAt`,
 * whose cool-down has already passed, so the next request becomes the trial instead of waiting forever.
 */
export function breakerRelease(b: BreakerStateValue): BreakerStateValue {
  return b.state === 'half_open' ? { ...b, state: 'open' } : b;
}

/** While open: when the next request will be let through as a trial. Null otherwise. */
export function breakerRetryAt(b: BreakerStateValue, settings: BreakerSettings): number | null {
  return b.state === 'open' && b.openedAt !== null ? b.openedAt + settings.cooldownMs : null;
}
