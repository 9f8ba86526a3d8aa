/**
 * A token bucket that holds at most `perMinute` tokens and refills at `perMinute` a minute, so a caller may
 * spend a whole minute's allowance at once and then one token every `60 s / perMinute`.
 */
export interface TokenBucket {
  /**
   * What is left, in 1/60,000ths of a token: each millisecond adds `perMinute` of them, so with whole
   * milliseconds the arithmetic is exact (a refusal never says 2001 ms where 2000 are meant).
   */
  credit: number;
  /** When `credit` was counted (ms). */
  at: number;
}

export type BucketTake =
  { taken: true; bucket: TokenBucket } | { taken: false; bucket: TokenBucket; retryAfterMs: number };

export const MINUTE_MS = 60_000;
const TOKEN = MINUTE_MS;

/** Any bucket left alone this long is full again, as a new one would be: it can be forgotten. */
export const BUCKET_REFILL_MS = MINUTE_MS;

/** Takes one token from `bucket` (a full one when there is none yet) at `now`. */
export function takeToken(bucket: TokenBucket | undefined, perMinute: number, now: number): BucketTake {
  const full = perMinute * TOKEN;
  // Whole milliseconds only; a clock that stepped back refills nothing (and takes nothing back).
  const elapsed = bucket === undefined ? 0 : Math.max(0, Math.floor(now - bucket.at));
  const credit = bucket === undefined ? full : Math.min(full, bucket.credit + elapsed * perMinute);
  const at = bucket === undefined ? now : bucket.at + elapsed;
  if (credit >= TOKEN) return { taken: true, bucket: { credit: credit - TOKEN, at } };
  return { taken: false, bucket: { credit, at }, retryAfterMs: Math.ceil((TOKEN - credit) / perMinute) };
}
