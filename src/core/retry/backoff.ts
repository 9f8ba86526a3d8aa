import type { RetryPolicy } from '../job.js';

/**
 * The delay before attempt `attempt + 1`, after attempt `attempt` (1-based) failed: growing from
 * `initialBackoffMs` by the policy's backoff type (exponential by `factor`, the default; linear, by
 * `initialBackoffMs` a step; or constant), capped at `maxBackoffMs`, and with jitter a uniform draw from
 * [0, cap] ("full jitter"), so that jobs failing together do not retry in lockstep. `random` returns a value
 * in [0, 1).
 */
export function backoffMs(attempt: number, policy: RetryPolicy, random: () => number): number {
  const cap = backoffCapMs(attempt, policy);
  if (!policy.jitter) return cap;
  // Clamped in case a random source returns exactly 1 (or a little off), which would step past the cap.
  return Math.min(cap, Math.max(0, Math.floor(random() * (cap + 1))));
}

/** Whether a failed attempt may be followed by another: `maxRetries` attempts come after the first. */
export function shouldRetry(attempt: number, policy: RetryPolicy): boolean {
  return attempt <= policy.maxRetries;
}

function backoffCapMs(attempt: number, policy: RetryPolicy): number {
  if (policy.initialBackoffMs <= 0) return 0;
  const steps = Math.max(0, attempt - 1);
  // factor ** 99 overflows to Infinity for large factors; the cap is then the maximum, never Infinity or NaN.
  const grown =
    policy.backoffType === 'constant'
      ? policy.initialBackoffMs
      : policy.backoffType === 'linear'
        ? policy.initialBackoffMs * (steps + 1)
        : policy.initialBackoffMs * policy.factor ** steps;
  if (!Number.isFinite(grown)) return policy.maxBackoffMs;
  return Math.floor(Math.min(policy.maxBackoffMs, grown));
}
