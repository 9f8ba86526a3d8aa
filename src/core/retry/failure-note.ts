import { formatDuration } from '../duration.js';
import type { RetryPolicy } from '../job.js';
import type { RetryDecision } from './decision.js';

// Stored in the run's error, the one place a finished run says why: runs have no column for a class.
const PERMANENT_PREFIX = 'PERMANENT (';
const PERMANENT_SUFFIX = '), not retried';

/**
 * The error a failed attempt is stored with: its own, preceded by `PERMANENT (reason), not retried:` when
 * its class kept a retry from being made, or followed by a note when the retry deadline did.
 */
export function annotateError(
  error: string | null,
  decision: RetryDecision,
  policy: Pick<RetryPolicy, 'deadlineMs'>,
): string | null {
  if (decision.retry || decision.verdict === null) return error;
  if (decision.verdict.failureClass === 'permanent')
    return `${PERMANENT_PREFIX}${decision.verdict.reason}${PERMANENT_SUFFIX}${error === null ? '' : `: ${error}`}`;
  if (decision.deadlinePassed && policy.deadlineMs !== undefined) {
    const note = `not retried: the retry deadline (${formatDuration(policy.deadlineMs)} after the first attempt started) would have passed`;
    return error === null ? note : `${error}; ${note}`;
  }
  return error;
}

/** Whether a stored error says its attempt failed permanently (see annotateError). */
export function isPermanentError(error: string | null): boolean {
  return error?.startsWith(PERMANENT_PREFIX) === true;
}

/** The reason a permanent failure's stored error gives, or null for any other error. */
export function permanentReason(error: string | null): string | null {
  if (error === null || !isPermanentError(error)) return null;
  const end = error.indexOf(PERMANENT_SUFFIX);
  return end === -1 ? null : error.slice(PERMANENT_PREFIX.length, end);
}

/** Whether a stored error is that of an attempt an open circuit breaker failed fast. */
export function isBreakerOpenError(error: string | null): boolean {
  return error?.startsWith('CIRCUIT_OPEN:') === true;
}
