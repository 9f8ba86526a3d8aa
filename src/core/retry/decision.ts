import type { RetryPolicy } from '../job.js';
import type { RunOutcome } from '../run.js';
import { backoffMs, shouldRetry } from './backoff.js';
import { classifyFailure, type FailureVerdict, type TargetKind } from './failure-class.js';
import { retryAfterMs } from './retry-after.js';

/** An attempt that just ended, with what the decision needs to know of the instant's earlier attempts. */
export interface EndedAttempt {
  attempt: number;
  outcome: Pick<RunOutcome, 'state' | 'finishedAt' | 'exitCode' | 'httpStatus' | 'responseHeaders' | 'cause'>;
  target: TargetKind;
  /** When the instant's first attempt started; null when it never did (the deadline then counts from now). */
  firstStartedAt: number | null;
  /** Earlier attempts of the instant that an open breaker failed fast: they did not spend a retry. */
  breakerWaits: number;
}

export type RetryDecision =
  | { retry: true; dueAt: number }
  | {
      retry: false;
      /** Null for an attempt that did not fail (it succeeded or was cancelled), or of a job without retries. */
      verdict: FailureVerdict | null;
      /** Set when the retry deadline, not the class or the count, stopped the retries. */
      deadlinePassed: boolean;
    };

/** The ends of an attempt that a policy may retry; one that nothing retries is the dead-letter. */
export const RETRYABLE_STATES: ReadonlySet<RunOutcome['state']> = new Set(['failed', 'timed_out', 'lost']);

/**
 * Whether an ended attempt gets another, and when. A permanent failure gets none. An attempt an open
 * breaker failed fast waits for the breaker's half-open instant and spends no retry (with retries on at
 * all). Otherwise the delay is the `Retry-After` of a 429 or 503 (capped by `maxBackoffMs`) or the
 * policy's backoff, and no retry is scheduled past `deadlineMs` after the first attempt started.
 */
export function decideRetry(
  ended: EndedAttempt,
  policy: RetryPolicy,
  now: number,
  random: () => number,
): RetryDecision {
  const { outcome } = ended;
  // A job without retries keeps its failures' errors as they were: no class changes what happens next.
  if (!RETRYABLE_STATES.has(outcome.state) || policy.maxRetries === 0)
    return { retry: false, verdict: null, deadlinePassed: false };
  const verdict = classifyFailure(outcome, ended.target, policy);
  const stop = { retry: false, verdict, deadlinePassed: false } as const;
  if (verdict.failureClass === 'permanent') return stop;
  const after = Math.max(now, outcome.finishedAt);
  let dueAt: number;
  if (outcome.cause?.kind === 'breaker-open') {
    dueAt = Math.max(after, outcome.cause.retryAt);
  } else {
    const spent = ended.attempt - ended.breakerWaits;
    if (!shouldRetry(spent, policy)) return stop;
    const asked = retryAfterMs(outcome.httpStatus, outcome.responseHeaders, after);
    dueAt =
      after + (asked === null ? backoffMs(spent, policy, random) : Math.min(asked, policy.maxBackoffMs));
  }
  if (policy.deadlineMs !== undefined && dueAt > (ended.firstStartedAt ?? now) + policy.deadlineMs)
    return { ...stop, deadlinePassed: true };
  return { retry: true, dueAt };
}
