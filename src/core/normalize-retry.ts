import { formatDuration } from './duration.js';
import { inputError } from './input-error.js';
import type { JobPatch, RetryPolicy } from './job.js';
import { parseBoundedDuration } from './normalize-duration.js';
import { buildRetryRules, type RetryRuleFields } from './normalize-retry-rules.js';

export type RetryFields = Pick<JobPatch, 'retries' | 'backoff' | 'backoffFactor' | 'backoffMax' | 'jitter'> &
  RetryRuleFields;

const MAX_RETRIES = 100;
const MAX_FACTOR = 100;

/**
 * Applies the retry fields given to a policy, one by one: `--retries 3` keeps the current backoff.
 * A new job starts from DEFAULT_RETRY_POLICY (`base` says which, for the message about a bad pair).
 */
export function buildRetryPolicy(
  current: RetryPolicy,
  fields: RetryFields,
  base: 'default' | 'stored',
  cleared?: ReadonlySet<string>,
): RetryPolicy {
  const policy: RetryPolicy = {
    maxRetries: fields.retries === undefined ? current.maxRetries : checkRetries(fields.retries),
    initialBackoffMs:
      fields.backoff === undefined
        ? current.initialBackoffMs
        : parseBoundedDuration(fields.backoff, {
            label: 'Backoff',
            allowZero: true,
            hint: 'Give --backoff as the delay before the first retry, such as 10s or 1m (0s retries at once).',
          }),
    factor: fields.backoffFactor === undefined ? current.factor : checkFactor(fields.backoffFactor),
    maxBackoffMs:
      fields.backoffMax === undefined
        ? current.maxBackoffMs
        : parseBoundedDuration(fields.backoffMax, {
            label: 'Longest backoff',
            allowZero: true,
            hint: 'Give --backoff-max as the longest delay between attempts, such as 10m or 1h.',
          }),
    jitter: fields.jitter ?? current.jitter,
    ...buildRetryRules(current, fields, cleared),
  };
  if (policy.maxBackoffMs < policy.initialBackoffMs) {
    const first = formatDuration(policy.initialBackoffMs);
    const longest = formatDuration(policy.maxBackoffMs);
    const source =
      fields.backoffMax !== undefined ? '' : base === 'default' ? ', the default' : ', as stored';
    throw inputError(
      'VALIDATION_FAILED',
      `The first retry delay (${first}) is longer than the longest delay (${longest}${source}).`,
      `Give --backoff-max ${first} or more, or a shorter --backoff.`,
      { initialBackoffMs: policy.initialBackoffMs, maxBackoffMs: policy.maxBackoffMs },
    );
  }
  return policy;
}

function checkRetries(retries: number): number {
  if (Number.isInteger(retries) && retries >= 0 && retries <= MAX_RETRIES) return retries;
  throw inputError(
    'VALIDATION_FAILED',
    `Retries ${retries} is not a whole number from 0 to ${MAX_RETRIES}.`,
    'Give --retries N: how many attempts may follow a failed first one (0 turns retries off).',
    { value: retries },
  );
}

function checkFactor(factor: number): number {
  if (Number.isFinite(factor) && factor >= 1 && factor <= MAX_FACTOR) return factor;
  throw inputError(
    'VALIDATION_FAILED',
    `The backoff factor ${factor} is not a number from 1 to ${MAX_FACTOR}.`,
    'Give --backoff-factor F: each delay is F times the one before (1 keeps it constant, default 2).',
    { value: factor },
  );
}
