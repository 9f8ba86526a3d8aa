/** How long a coordinator's lease lasts unless configured (--lease-ttl). */
export const DEFAULT_LEASE_TTL_MS = 10_000;

/**
 * How long before the lease's end a coordinator stops acting. The lease ends on the database's clock,
 * TTL after the database handled the renewal; the margin absorbs what the local monotonic clock cannot
 * see: the database's clock being slewed or stepped, and a pause (GC, a busy event loop) between
 * checking the lease and acting on it. At most half the TTL, so short test TTLs still leave a window.
 */
export function leaseSafetyMarginMs(ttlMs: number): number {
  return Math.min(ttlMs / 2, Math.max(1_000, ttlMs / 5));
}

/**
 * The local monotonic instant until which a node whose renewal succeeded may act as coordinator.
 * Counted from when the request was SENT: the database stamped the lease later than that, so the
 * lease cannot end (elsewhere) before `renewSentAt + ttlMs` on a clock running at the same rate.
 */
export function mayActUntil(
  renewSentAt: number,
  ttlMs: number,
  safetyMarginMs: number = leaseSafetyMarginMs(ttlMs),
): number {
  return renewSentAt + ttlMs - safetyMarginMs;
}
