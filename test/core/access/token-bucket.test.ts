import { describe, expect, it } from 'vitest';
import { takeToken, type TokenBucket } from '../../../src/core/access/token-bucket.js';

/** Takes `count` tokens one after another at `now`, and says what the last take gave. */
function takeMany(count: number, perMinute: number, now: number, start?: TokenBucket) {
  let bucket = start;
  let last = takeToken(bucket, perMinute, now);
  bucket = last.bucket;
  for (let i = 1; i < count; i += 1) {
    last = takeToken(bucket, perMinute, now);
    bucket = last.bucket;
  }
  return last;
}

describe('takeToken', () => {
  it('given no bucket yet, starts full: a whole minute’s allowance may be spent at once', () => {
    expect(takeMany(10, 10, 0).taken).toBe(true);
  });

  it('given the allowance spent, refuses the next and says how long until a token is back', () => {
    const eleventh = takeMany(11, 10, 0);
    expect(eleventh).toEqual({ taken: false, bucket: { credit: 0, at: 0 }, retryAfterMs: 6_000 });
  });

  it('given time passing, refills at the rate a minute, and a refusal shortens the wait by the time passed', () => {
    const spent = takeMany(10, 10, 0).bucket;
    const early = takeToken(spent, 10, 4_000);
    expect(early).toMatchObject({ taken: false, retryAfterMs: 2_000 });
    expect(takeToken(early.bucket, 10, 6_000).taken).toBe(true);
  });

  it('never holds more than a minute’s allowance, however long it was left alone', () => {
    const spent = takeMany(10, 10, 0).bucket;
    expect(takeMany(11, 10, 3_600_000, spent).taken).toBe(false);
    expect(takeMany(10, 10, 3_600_000, spent).taken).toBe(true);
  });

  it('given a clock that went back, refills nothing and keeps its own time', () => {
    const spent = takeMany(10, 10, 60_000).bucket;
    const back = takeToken(spent, 10, 0);
    expect(back).toEqual({ taken: false, bucket: { credit: 0, at: 60_000 }, retryAfterMs: 6_000 });
  });
});
