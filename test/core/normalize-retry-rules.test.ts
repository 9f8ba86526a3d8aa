import { describe, expect, it } from 'vitest';
import { definitionToInput } from '../../src/core/crontab/definition-input.js';
import { DEFAULT_RETRY_POLICY, type JobInput } from '../../src/core/job.js';
import { applyJobPatch, normalizeJobInput } from '../../src/core/normalize.js';

const ctx = { now: Date.parse('2026-06-01T12:00:00Z'), defaultTimezone: 'UTC' };
const valid: JobInput = { name: 'nightly', cron: '0 3 * * *', argv: ['./backup.sh'], retries: 3 };

function retryOf(changes: Partial<JobInput>) {
  return normalizeJobInput({ ...valid, ...changes }, ctx).retry;
}

/** Matches the SchedError of a refused value: exit 2, a hint, and (when given) the message. */
function refusedWith(message?: string) {
  return expect.objectContaining({
    code: 'VALIDATION_FAILED',
    exitCode: 2,
    hint: expect.any(String),
    ...(message === undefined ? {} : { message }),
  });
}

describe('normalizing the retry rules', () => {
  it('given none, stores the policy exactly as before retry rules existed', () => {
    expect(retryOf({})).toEqual({ ...DEFAULT_RETRY_POLICY, maxRetries: 3 });
  });

  it('given every rule, stores each: codes sorted and distinct, the deadline in ms', () => {
    expect(
      retryOf({ backoffType: 'Linear', retryOn: '409, 423,409', noRetryOn: '3,2', retryDeadline: '2h' }),
    ).toMatchObject({ backoffType: 'linear', retryOn: [409, 423], noRetryOn: [2, 3], deadlineMs: 7_200_000 });
  });

  it('given exponential, stores nothing: it is the default', () => {
    expect(retryOf({ backoffType: 'exponential' })).not.toHaveProperty('backoffType');
  });

  it.each([
    [
      { retryOn: 'abc' },
      'Invalid --retry-on "abc": "abc" is not a list of exit codes or HTTP statuses from 1 to 599.',
    ],
    [
      { noRetryOn: '2,,3' },
      'Invalid --no-retry-on "2,,3": "" is not a list of exit codes or HTTP statuses from 1 to 599.',
    ],
    [
      { retryOn: '0' },
      'Invalid --retry-on "0": "0" is not a list of exit codes or HTTP statuses from 1 to 599.',
    ],
    [
      { retryOn: '600' },
      'Invalid --retry-on "600": "600" is not a list of exit codes or HTTP statuses from 1 to 599.',
    ],
    [{ backoffType: 'fast' }, 'Unknown backoff type "fast".'],
    [{ retryOn: '409', noRetryOn: '409,500' }, '409 is in both --retry-on and --no-retry-on.'],
  ])('given %o, refuses it with exit 2', (changes, message) => {
    expect(() => retryOf(changes)).toThrow(refusedWith(message));
  });

  it.each(['-5m', '0s', 'soon'])('given the deadline %s, refuses it', (retryDeadline) => {
    expect(() => retryOf({ retryDeadline })).toThrow(refusedWith());
  });

  it('given an update, changes the rules given, keeps the others, and clears the ones asked', () => {
    const current = normalizeJobInput({ ...valid, retryOn: '409', noRetryOn: '2', retryDeadline: '1h' }, ctx);
    const changed = applyJobPatch(current, { noRetryOn: '3', backoffType: 'constant' }, ctx).retry;
    expect(changed).toMatchObject({
      retryOn: [409],
      noRetryOn: [3],
      deadlineMs: 3_600_000,
      backoffType: 'constant',
    });
    const cleared = applyJobPatch(current, { clear: ['retryOn', 'noRetryOn', 'retryDeadline'] }, ctx).retry;
    expect(cleared).toEqual({ ...DEFAULT_RETRY_POLICY, maxRetries: 3 });
  });

  it('given an update that would put a code in both lists, refuses it', () => {
    const current = normalizeJobInput({ ...valid, retryOn: '409' }, ctx);
    expect(() => applyJobPatch(current, { noRetryOn: '409' }, ctx)).toThrow(
      refusedWith('409 is in both --retry-on and --no-retry-on.'),
    );
  });

  it('given a definition with rules, the input written for import gives it back', () => {
    const definition = normalizeJobInput(
      { ...valid, backoffType: 'linear', retryOn: '75', noRetryOn: '2,3', retryDeadline: '90m' },
      ctx,
    );
    expect(normalizeJobInput(definitionToInput(definition), ctx)).toEqual(definition);
  });
});
