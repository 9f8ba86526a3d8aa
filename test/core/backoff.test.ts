import { describe, expect, it } from 'vitest';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../../src/core/job.js';
import { backoffMs, shouldRetry } from '../../src/core/retry/backoff.js';

const exact: RetryPolicy = { ...DEFAULT_RETRY_POLICY, maxRetries: 10, jitter: false };
const jittered: RetryPolicy = { ...exact, jitter: true };
const never = (): number => {
  throw new Error('random must not be called without jitter');
};
const ALMOST_ONE = 1 - Number.EPSILON / 2;

describe('backoffMs without jitter', () => {
  it.each([
    [1, 10_000],
    [2, 20_000],
    [3, 40_000],
    [4, 80_000],
    [9, 2_560_000],
  ])('after attempt %i failed, waits exactly %i ms', (attempt, delay) => {
    expect(backoffMs(attempt, exact, never)).toBe(delay);
  });

  it('given the growth passes the longest delay, waits the longest delay', () => {
    expect(backoffMs(10, exact, never)).toBe(3_600_000);
    expect(backoffMs(50, exact, never)).toBe(3_600_000);
  });

  it('given a factor of 1, waits the same every time', () => {
    const constant = { ...exact, factor: 1 };
    expect([1, 2, 5, 100].map((attempt) => backoffMs(attempt, constant, never))).toEqual([
      10_000, 10_000, 10_000, 10_000,
    ]);
  });

  it('given a fractional factor, rounds the delay down to whole milliseconds', () => {
    expect(backoffMs(2, { ...exact, initialBackoffMs: 1_001, factor: 1.5 }, never)).toBe(1_501);
  });

  it('given a first delay of zero, always retries at once', () => {
    expect(backoffMs(7, { ...exact, initialBackoffMs: 0, factor: 100 }, never)).toBe(0);
  });

  it('given attempt 100 with factor 100, does not overflow to Infinity or NaN', () => {
    const steep = { ...exact, maxRetries: 100, factor: 100 };
    expect(backoffMs(100, steep, never)).toBe(3_600_000);
    expect(backoffMs(1_000, steep, never)).toBe(3_600_000);
  });

  it('given an attempt below 1, treats it as the first', () => {
    expect(backoffMs(0, exact, never)).toBe(10_000);
  });
});

describe('backoffMs with full jitter', () => {
  it('given random 0, waits 0', () => {
    expect(backoffMs(3, jittered, () => 0)).toBe(0);
  });

  it('given random just below 1, waits the whole cap', () => {
    expect(backoffMs(3, jittered, () => ALMOST_ONE)).toBe(40_000);
  });

  it('given random 0.5, waits about half the cap', () => {
    expect(backoffMs(1, jittered, () => 0.5)).toBe(5_000);
  });

  it('given a high attempt, stays within the longest delay', () => {
    expect(backoffMs(60, jittered, () => ALMOST_ONE)).toBe(3_600_000);
  });

  it('given a random source that returns 1 or more, still stays within the cap', () => {
    expect(backoffMs(1, jittered, () => 1)).toBe(10_000);
  });

  it('given attempt 100 with factor 100, draws from [0, longest delay]', () => {
    const steep = { ...jittered, maxRetries: 100, factor: 100 };
    const delay = backoffMs(100, steep, () => 0.25);
    expect(delay).toBe(900_000);
  });

  it('given many draws, every delay is a whole number of milliseconds in [0, cap]', () => {
    let seed = 42;
    const random = (): number => {
      seed = (seed * 16_807) % 2_147_483_647;
      return (seed - 1) / 2_147_483_646;
    };
    for (let draw = 0; draw < 1_000; draw++) {
      const delay = backoffMs(2, jittered, random);
      expect(Number.isInteger(delay) && delay >= 0 && delay <= 20_000).toBe(true);
    }
  });
});

describe('shouldRetry', () => {
  it('given no retries, never retries', () => {
    expect(shouldRetry(1, { ...exact, maxRetries: 0 })).toBe(false);
  });

  it('given 3 retries, retries after attempts 1 to 3 and not after the fourth', () => {
    const three = { ...exact, maxRetries: 3 };
    expect([1, 2, 3, 4, 5].map((attempt) => shouldRetry(attempt, three))).toEqual([
      true,
      true,
      true,
      false,
      false,
    ]);
  });

  it('given 100 retries, retries after attempt 100 and not after 101', () => {
    const most = { ...exact, maxRetries: 100 };
    expect([shouldRetry(100, most), shouldRetry(101, most)]).toEqual([true, false]);
  });
});
