import { describe, expect, it } from 'vitest';
import { describeRetryPolicy } from '../../src/cli/format/retry-policy.js';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../src/core/job.js';

const three: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxRetries: 3 };

describe('describeRetryPolicy with retry rules', () => {
  it('given a stored policy without rules, reads as before', () => {
    expect(describeRetryPolicy(three)).toBe('3 retries, backoff 10s ×2 up to 1h, full jitter');
  });

  it('given linear or constant backoff, says how the delay grows', () => {
    expect(describeRetryPolicy({ ...three, backoffType: 'linear' })).toBe(
      '3 retries, backoff 10s +10s each time up to 1h, full jitter',
    );
    expect(describeRetryPolicy({ ...three, backoffType: 'constant', jitter: false })).toBe(
      '3 retries, backoff 10s each time, no jitter',
    );
  });

  it('given lists and a deadline, names each after the backoff', () => {
    expect(describeRetryPolicy({ ...three, retryOn: [409], noRetryOn: [2, 3], deadlineMs: 1_800_000 })).toBe(
      '3 retries, backoff 10s ×2 up to 1h, full jitter, retry on 409, never on 2,3, until 30m after the first attempt',
    );
  });
});
