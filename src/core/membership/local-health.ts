/**
 * Lifeguard's Local Health Multiplier (Dadgar, Phillips and Currey, 2018, LHA-Probe), as memberlist's
 * `awareness` keeps it: a score from 0 (healthy) to `max - 1` that rises when this member sees signs that
 * it is itself the slow one (a probe failed while the helpers it asked did not even nack, or it had to
 * refute a suspicion of itself) and falls with each probe that succeeds. Its probe period and ack timeout
 * are stretched by score + 1, so a member starved of CPU accuses others less readily and gives their
 * answers time to reach it.
 */
export class LocalHealth {
  private current = 0;

  constructor(private readonly max = 8) {
    if (!(Number.isInteger(max) && max >= 1))
      throw new RangeError('the local health maximum must be 1 or more');
  }

  get score(): number {
    return this.current;
  }

  /** Moves the score by `delta`, held within 0 and `max - 1`. */
  apply(delta: number): void {
    this.current = Math.min(this.max - 1, Math.max(0, this.current + delta));
  }

  /** `ticks` stretched by the score: unchanged while healthy, up to `max` times as long. */
  scale(ticks: number): number {
    return ticks * (this.current + 1);
  }
}

/**
 * How a failed probe moves the score (memberlist's probeNode): one for each helper asked to probe that sent
 * no nack. A helper that could not reach the target nacks within its own ack timeout, so one heard from not
 * at all (neither ack nor nack) points at this member being too slow to hear it. With no helper to ask,
 * the failure itself counts one.
 */
export function failedProbePenalty(helpersAsked: number, nacksHeard: number): number {
  return helpersAsked > 0 ? Math.max(0, helpersAsked - nacksHeard) : 1;
}
