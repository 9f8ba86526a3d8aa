import { formatDuration } from '../../core/duration.js';
import type { RetryPolicy } from '../../core/job.js';

/** `3 retries, backoff 10s ×2 up to 1h, full jitter`, or `no retries`. */
export function describeRetryPolicy(policy: RetryPolicy): string {
  if (policy.maxRetries === 0) return 'no retries';
  const count = `${policy.maxRetries} ${policy.maxRetries === 1 ? 'retry' : 'retries'}`;
  if (policy.initialBackoffMs === 0) return `${count}, at once`;
  const first = formatDuration(policy.initialBackoffMs);
  const growth =
    policy.factor === 1 || policy.maxBackoffMs === policy.initialBackoffMs
      ? `backoff ${first} each time`
      : `backoff ${first} ×${policy.factor} up to ${formatDuration(policy.maxBackoffMs)}`;
  return `${count}, ${growth}, ${policy.jitter ? 'full jitter' : 'no jitter'}`;
}
