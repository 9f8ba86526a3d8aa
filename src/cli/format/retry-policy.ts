import { formatDuration } from '../../core/duration.js';
import type { RetryPolicy } from '../../core/job.js';

/**
 * `3 retries, backoff 10s ×2 up to 1h, full jitter`, or `no retries`; then the rules that differ from the
 * defaults: `, linear`, `, retry on 409`, `, never on 2,3`, `, until 1h after the first attempt`.
 */
export function describeRetryPolicy(policy: RetryPolicy): string {
  if (policy.maxRetries === 0) return 'no retries';
  const count = `${policy.maxRetries} ${policy.maxRetries === 1 ? 'retry' : 'retries'}`;
  if (policy.initialBackoffMs === 0) return `${count}, at once${describeRules(policy)}`;
  return `${count}, ${describeGrowth(policy)}, ${policy.jitter ? 'full jitter' : 'no jitter'}${describeRules(policy)}`;
}

function describeGrowth(policy: RetryPolicy): string {
  const first = formatDuration(policy.initialBackoffMs);
  const longest = formatDuration(policy.maxBackoffMs);
  const constant =
    policy.backoffType === 'constant' ||
    policy.maxBackoffMs === policy.initialBackoffMs ||
    (policy.backoffType === undefined && policy.factor === 1);
  if (constant) return `backoff ${first} each time`;
  if (policy.backoffType === 'linear') return `backoff ${first} +${first} each time up to ${longest}`;
  return `backoff ${first} ×${policy.factor} up to ${longest}`;
}

function describeRules(policy: RetryPolicy): string {
  const rules = [
    ...(policy.retryOn ? [`retry on ${policy.retryOn.join(',')}`] : []),
    ...(policy.noRetryOn ? [`never on ${policy.noRetryOn.join(',')}`] : []),
    ...(policy.deadlineMs ? [`until ${formatDuration(policy.deadlineMs)} after the first attempt`] : []),
  ];
  return rules.map((rule) => `, ${rule}`).join('');
}
