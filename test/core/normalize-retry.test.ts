import { describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import { DEFAULT_RETRY_POLICY, type JobInput } from '../../src/core/job.js';
import { normalizeJobInput } from '../../src/core/normalize.js';

const ctx = { now: Date.parse('2026-06-01T12:00:00Z'), defaultTimezone: 'UTC' };
const valid: JobInput = { name: 'nightly', cron: '0 3 * * *', argv: ['./backup.sh'] };

function retryOf(changes: Partial<JobInput>) {
  return normalizeJobInput({ ...valid, ...changes }, ctx).retry;
}

function normalizeError(changes: Partial<JobInput>): SchedError {
  try {
    normalizeJobInput({ ...valid, ...changes }, ctx);
  } catch (error) {
    if (error instanceof SchedError) return error;
    throw error;
  }
  throw new Error('expected normalizeJobInput to throw');
}

describe('normalizeJobInput: the retry policy', () => {
  it('given no retry fields, uses the default: no retries, 10s doubling up to 1h, full jitter', () => {
    expect(retryOf({})).toEqual(DEFAULT_RETRY_POLICY);
  });

  it('given every retry field, stores each', () => {
    expect(
      retryOf({ retries: 3, backoff: '30s', backoffFactor: 1.5, backoffMax: '10m', jitter: false }),
    ).toEqual({ maxRetries: 3, initialBackoffMs: 30_000, factor: 1.5, maxBackoffMs: 600_000, jitter: false });
  });

  it('given only --retries, keeps the default backoff', () => {
    expect(retryOf({ retries: 5 })).toEqual({ ...DEFAULT_RETRY_POLICY, maxRetries: 5 });
  });

  it.each([0, 100])('given %i retries, accepts it', (retries) => {
    expect(retryOf({ retries }).maxRetries).toBe(retries);
  });

  it('given a backoff of zero, accepts it: retries follow at once', () => {
    expect(retryOf({ backoff: '0s' }).initialBackoffMs).toBe(0);
  });

  it('given a factor of 1, accepts it: every delay is the same', () => {
    expect(retryOf({ backoffFactor: 1 }).factor).toBe(1);
  });

  it('given a longest backoff equal to the first, accepts it', () => {
    expect(retryOf({ backoff: '1m', backoffMax: '1m' })).toMatchObject({
      initialBackoffMs: 60_000,
      maxBackoffMs: 60_000,
    });
  });

  it.each([-1, 101, 1.5, Number.NaN])('given %s retries, refuses it', (retries) => {
    const error = normalizeError({ retries });
    expect([error.code, error.message]).toEqual([
      'VALIDATION_FAILED',
      `Retries ${retries} is not a whole number from 0 to 100.`,
    ]);
    expect(error.hint).toContain('--retries');
  });

  it.each([0.5, 0, 101, Number.POSITIVE_INFINITY, Number.NaN])(
    'given a backoff factor of %s, refuses it',
    (backoffFactor) => {
      const error = normalizeError({ backoffFactor });
      expect(error.message).toBe(`The backoff factor ${backoffFactor} is not a number from 1 to 100.`);
      expect(error.hint).toContain('1 keeps it constant');
    },
  );

  it.each([
    [{ backoff: 'soon' }, 'Invalid backoff "soon".'],
    [{ backoff: '25d', backoffMax: '30d' }, 'Backoff "25d" is too long; the longest is 24d.'],
    [{ backoffMax: 'later' }, 'Invalid longest backoff "later".'],
    [{ backoffMax: '30d' }, 'Longest backoff "30d" is too long; the longest is 24d.'],
  ])('given %j, refuses the duration', (changes, message) => {
    expect(normalizeError(changes).message).toBe(message);
  });

  it('given a longest backoff shorter than the first, refuses the pair', () => {
    const error = normalizeError({ backoff: '5m', backoffMax: '1m' });
    expect(error.message).toBe('The first retry delay (5m) is longer than the longest delay (1m).');
    expect(error.hint).toBe('Give --backoff-max 5m or more, or a shorter --backoff.');
  });

  it('given a first backoff longer than the default longest, says the longest is the default', () => {
    expect(normalizeError({ backoff: '2h' }).message).toBe(
      'The first retry delay (2h) is longer than the longest delay (1h, the default).',
    );
  });

  it('gives HTTP jobs the same retry policy as command jobs', () => {
    const { retry } = normalizeJobInput(
      { name: 'hook', every: '1m', http: 'https://example.com/', retries: 2 },
      ctx,
    );
    expect(retry).toEqual({ ...DEFAULT_RETRY_POLICY, maxRetries: 2 });
  });
});
