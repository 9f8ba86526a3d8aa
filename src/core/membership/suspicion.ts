/**
 * How long a member stays suspect before it is declared dead, by Lifeguard's LHA-Suspicion (Dadgar,
 * Phillips and Currey, 2018) as memberlist sets it: the timeout starts at `max` and shrinks as other
 * members independently suspect the same member, reaching `min` after `expected` confirmations. A member
 * that alone suspects another (most likely because it is itself slow) waits long enough for a refutation to
 * reach it; one that many suspect is declared dead about as fast as plain SWIM would.
 */
export interface SuspicionBounds {
  minTicks: number;
  maxTicks: number;
  /** Confirmations from other members that bring the timeout down to `minTicks` (0: it starts there). */
  expected: number;
}

/**
 * memberlist's bounds for a group of `members` (this member and the suspect included): min is
 * α·max(1, log10 n) probe periods, max is β·min, and α − 2 confirmations are expected, or none when the
 * group is too small to give them (n − 2 others besides this member and the suspect).
 */
export function suspicionBounds(
  members: number,
  probeTicks: number,
  multiplier: number,
  maxMultiplier: number,
): SuspicionBounds {
  const minTicks = Math.ceil(multiplier * Math.max(1, Math.log10(Math.max(1, members))) * probeTicks);
  const expected = members - 2 < multiplier - 2 ? 0 : Math.max(0, multiplier - 2);
  return { minTicks, maxTicks: maxMultiplier * minTicks, expected };
}

/**
 * The whole timeout after `confirmations`: max − log(c + 1)/log(k + 1)·(max − min), never below min
 * (memberlist's remainingSuspicionTime, before the time already spent is taken off).
 */
export function suspicionTimeout(confirmations: number, bounds: SuspicionBounds): number {
  const { minTicks, maxTicks, expected } = bounds;
  if (expected < 1) return minTicks;
  const fraction = Math.log(confirmations + 1) / Math.log(expected + 1);
  return Math.max(minTicks, Math.floor(maxTicks - fraction * (maxTicks - minTicks)));
}

/** One member held suspect: since when, and which members have said so independently. */
export class Suspicion {
  private readonly heardFrom = new Set<string>();
  private confirmations = 0;

  /**
   * `accuser` is whoever raised the suspicion this member first heard; it is not counted again when the
   * same news comes back by gossip.
   */
  constructor(
    readonly since: number,
    accuser: string,
    private readonly bounds: SuspicionBounds,
  ) {
    this.heardFrom.add(accuser);
  }

  /** When the member is to be declared dead, unless it refutes first. */
  get deadline(): number {
    return this.since + suspicionTimeout(this.confirmations, this.bounds);
  }

  /** Counts `accuser`'s suspicion once; true when it was news (worth passing on), false otherwise. */
  confirm(accuser: string): boolean {
    if (this.confirmations >= this.bounds.expected || this.heardFrom.has(accuser)) return false;
    this.heardFrom.add(accuser);
    this.confirmations += 1;
    return true;
  }
}
