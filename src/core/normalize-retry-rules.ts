import { inputError } from './input-error.js';
import { BACKOFF_TYPES, type BackoffType, type JobPatch, type RetryPolicy } from './job.js';
import { parseBoundedDuration } from './normalize-duration.js';

export type RetryRuleFields = Pick<JobPatch, 'backoffType' | 'retryOn' | 'noRetryOn' | 'retryDeadline'>;
export type RetryRules = Pick<RetryPolicy, 'backoffType' | 'retryOn' | 'noRetryOn' | 'deadlineMs'>;
type ClearableRule = 'retryOn' | 'noRetryOn' | 'retryDeadline';

const MAX_CODES = 100;
const LOWEST_CODE = 1;
const HIGHEST_CODE = 599;

/**
 * The retry rules after a change: each given field replaces its rule, each cleared one removes it, the rest
 * stay. Rules at their default (exponential, no list, no deadline) are left out of the policy, so a job that
 * does not use them is stored exactly as before they existed.
 */
export function buildRetryRules(
  current: RetryRules,
  fields: RetryRuleFields,
  cleared: ReadonlySet<string> = new Set(),
): RetryRules {
  /** The rule as given, else as stored unless cleared. */
  const changed = <T>(
    text: string | undefined,
    field: ClearableRule,
    parse: (text: string) => T,
    stored: T,
  ) => (text !== undefined ? parse(text) : cleared.has(field) ? undefined : stored);
  const backoffType =
    fields.backoffType === undefined ? current.backoffType : checkBackoffType(fields.backoffType);
  const retryOn = changed(
    fields.retryOn,
    'retryOn',
    (text) => parseCodes(text, '--retry-on'),
    current.retryOn,
  );
  const noRetryOn = changed(
    fields.noRetryOn,
    'noRetryOn',
    (text) => parseCodes(text, '--no-retry-on'),
    current.noRetryOn,
  );
  const deadlineMs = changed(fields.retryDeadline, 'retryDeadline', parseDeadline, current.deadlineMs);
  assertDisjoint(retryOn ?? [], noRetryOn ?? []);
  const rules: RetryRules = {};
  if (backoffType !== undefined && backoffType !== 'exponential') rules.backoffType = backoffType;
  if (retryOn !== undefined && retryOn.length > 0) rules.retryOn = retryOn;
  if (noRetryOn !== undefined && noRetryOn.length > 0) rules.noRetryOn = noRetryOn;
  if (deadlineMs !== undefined) rules.deadlineMs = deadlineMs;
  return rules;
}

function parseDeadline(text: string): number {
  return parseBoundedDuration(text, {
    label: 'Retry deadline',
    allowZero: false,
    hint: 'Give --retry-deadline as how long after the first attempt retries may still start, such as 30m or 2h.',
  });
}

function checkBackoffType(text: string): BackoffType {
  const type = text.trim().toLowerCase();
  if ((BACKOFF_TYPES as readonly string[]).includes(type)) return type as BackoffType;
  throw inputError(
    'VALIDATION_FAILED',
    `Unknown backoff type "${text}".`,
    'Give --backoff-type exponential (each delay --backoff-factor times the one before, the default), linear (--backoff more each time) or constant (--backoff every time).',
    { value: text, allowed: BACKOFF_TYPES },
  );
}

/** `2,3` or `409, 503` into sorted distinct codes; an empty list is refused (clear the rule instead). */
function parseCodes(text: string, flag: string): number[] {
  const parts = text.split(',').map((part) => part.trim());
  const bad = parts.filter((part) => !/^\d{1,3}$/.test(part) || !inRange(Number(part)));
  if (parts.length === 0 || bad.length > 0 || parts.length > MAX_CODES) {
    const what = bad.length > 0 ? `"${bad[0]}" is not` : 'it does not hold';
    throw inputError(
      'VALIDATION_FAILED',
      `Invalid ${flag} "${text}": ${what} a list of exit codes or HTTP statuses from ${LOWEST_CODE} to ${HIGHEST_CODE}.`,
      `Give ${flag} as comma-separated codes, such as ${flag} 2,3 (exit codes of a command job) or ${flag} 409,423 (statuses of an HTTP job); at most ${MAX_CODES}.`,
      { value: text },
    );
  }
  return [...new Set(parts.map(Number))].sort((a, b) => a - b);
}

function inRange(code: number): boolean {
  return Number.isInteger(code) && code >= LOWEST_CODE && code <= HIGHEST_CODE;
}

function assertDisjoint(retryOn: readonly number[], noRetryOn: readonly number[]): void {
  const both = retryOn.filter((code) => noRetryOn.includes(code));
  if (both.length === 0) return;
  throw inputError(
    'VALIDATION_FAILED',
    `${both.join(', ')} ${both.length === 1 ? 'is' : 'are'} in both --retry-on and --no-retry-on.`,
    'A code is either retried or not: give it to one of the two lists.',
    { codes: both },
  );
}
