/**
 * A leader's hand-over of its leadership to one voter (Ongaro's thesis, 3.10): it stops taking proposals,
 * sends the voter whatever it lacks of the log, then tells it to stand for election at once (`timeout-now`).
 * Given up after an election timeout, as the thesis has it: the leader then takes proposals again, or, when
 * it hands over because its own removal is committed (`stepDown`), steps down as it would without one.
 */
export class LeadershipTransfer {
  private elapsed = 0;

  constructor(
    readonly target: string,
    /** The leader leaves the group (its removal is committed): it steps down once the transfer is over. */
    public stepDown: boolean,
    private readonly withinTicks: number,
  ) {}

  /** One tick; true once the transfer has taken an election timeout, and is given up. */
  tick(): boolean {
    this.elapsed += 1;
    return this.elapsed >= this.withinTicks;
  }
}

/**
 * The voter to hand leadership to: of the `voters` (the leader's peers) that `takesTransfer` allows, the one
 * known to hold the most of the log, so the least is left to send it before it may stand. Ties go to the
 * first in order. Null when none is allowed.
 */
export function transferTarget(
  voters: readonly string[],
  matchedIndexOf: (voter: string) => number,
  takesTransfer: (voter: string) => boolean,
): string | null {
  let best: string | null = null;
  for (const voter of voters) {
    if (!takesTransfer(voter)) continue;
    if (best === null || matchedIndexOf(voter) > matchedIndexOf(best)) best = voter;
  }
  return best;
}
