/**
 * How long, at `now`, requests are still answered without fetching an identity provider's keys again,
 * their last fetch having failed at `failedAt` (null: none failed since the last that worked); 0 when
 * one may be fetched. Both are monotonic ms; a `now` before `failedAt` (a clock that went back) ends the
 * wait rather than stretching it.
 */
export function jwksCooldownLeftMs(failedAt: number | null, now: number, cooldownMs: number): number {
  if (failedAt === null || now < failedAt) return 0;
  return Math.max(0, failedAt + cooldownMs - now);
}
