import { BUCKET_REFILL_MS, takeToken, type TokenBucket } from '../../core/access/token-bucket.js';
import { SchedError } from '../../core/errors.js';
import type { Clock } from '../clock.js';

/** Failed authentications one address may have a minute before its requests are refused unread. */
const FAILED_AUTH_PER_MINUTE = 20;

/**
 * A token bucket per remote address, spent by each failed authentication: once an address has failed
 * FAILED_AUTH_PER_MINUTE times in a minute, its requests are refused (RATE_LIMITED) before any token is
 * looked at, until the bucket refills. Guessing tokens is then slow; a client that merely lost its token
 * is back within seconds of stopping.
 */
export class FailedAuthLimits {
  /** In order of last use, oldest first, so the idle ones are found at the front. */
  private readonly buckets = new Map<string, TokenBucket>();

  constructor(
    private readonly clock: Clock,
    private readonly perMinute = FAILED_AUTH_PER_MINUTE,
  ) {}

  /** Throws RATE_LIMITED while the address has no failures left to spend; spends nothing. */
  check(address: string): void {
    const now = this.clock.monotonic();
    this.forgetIdle(now);
    const probe = takeToken(this.buckets.get(address), this.perMinute, now);
    if (!probe.taken) throw tooMany(address, probe.retryAfterMs, this.perMinute);
  }

  /** Spends one failure of the address. */
  failed(address: string): void {
    const now = this.clock.monotonic();
    const take = takeToken(this.buckets.get(address), this.perMinute, now);
    this.buckets.delete(address);
    this.buckets.set(address, take.bucket);
  }

  private forgetIdle(now: number): void {
    for (const [address, bucket] of this.buckets) {
      if (now - bucket.at < BUCKET_REFILL_MS) return;
      this.buckets.delete(address);
    }
  }
}

function tooMany(address: string, retryAfterMs: number, perMinute: number): SchedError {
  const seconds = Math.max(1, Math.ceil(retryAfterMs / 1000));
  return new SchedError(
    'RATE_LIMITED',
    `Too many refused tokens from ${address}: at most ${perMinute} a minute. Try again in ${seconds} s.`,
    {
      hint: 'Check the token the client sends (Authorization: Bearer <token>); `sched token ls` lists the live ones.',
      details: { retryAfterMs },
    },
  );
}
