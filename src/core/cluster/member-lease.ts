/**
 * A peer's lease on the runs it has going: it keeps them only while it is surely in touch with a leader
 * (see LeaderContact), and stops them once it has not been for `durationMs` by its clock; the leader drops
 * a member from the shard map (and so records its runs lost, to be retried elsewhere) only once its own
 * clock says the member's lease has surely run out and its runs were given time to stop. So a member cut
 * off from the majority stops its runs before anyone else starts them again.
 *
 * With clock rates within [1 - ρ, 1 + ρ] of real time: the member was last in touch at real time c (the
 * sending of a response the leader echoed), which the leader received at a >= c. The member stops its runs
 * once its clock has run D(1 - ρ) from c, so by real time c + D, and they are gone by c + D + S (S: noticing,
 * the kill's grace, a margin). The leader waits until its clock has run (D + S)(1 + ρ) from a: at least
 * D + S of real time, so not before c + D + S.
 */
export interface MemberLeaseBounds {
  durationMs: number;
  /** From the lease's end to the member's runs being gone: noticing it, the kill's grace, and a margin. */
  stopMs: number;
  /** How far a clock's rate may stray from real time, as a fraction (0.05: 5 % fast or slow). */
  maxDrift: number;
}

/** Whether a member last in touch `ageMs` ago (its own clock) must stop its runs. */
export function memberLeaseExpired(ageMs: number, bounds: MemberLeaseBounds): boolean {
  return ageMs >= bounds.durationMs * (1 - bounds.maxDrift);
}

/** Whether the leader may drop a member it has surely not been in touch with for `silentMs` (its clock). */
export function memberSurelyStopped(silentMs: number, bounds: MemberLeaseBounds): boolean {
  return silentMs >= (bounds.durationMs + bounds.stopMs) * (1 + bounds.maxDrift);
}
