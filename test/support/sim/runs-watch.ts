interface WatchedRun {
  id: string;
  startedAt: number;
  /** Real time its process is gone: its natural end, or sooner once killed (after the kill's grace). */
  endsAt: number;
  /** Whether its member's lease was expired when it started. */
  startedExpired: boolean;
}

/**
 * Which member runs which run of a once-job, in real time, and the property the member lease exists for:
 * when the majority drops a member (and so records its runs lost, to be run again elsewhere), none of that
 * member's runs is still alive.
 */
export class RunsWatch {
  private readonly runs = new Map<string, WatchedRun[]>();
  started = 0;
  killed = 0;
  startedExpired = 0;
  refused = 0;
  /** Drops the majority could make while the member had runs going: what a violation would be. */
  dropsChecked = 0;

  constructor(private readonly now: () => number) {}

  start(member: string, id: string, durationMs: number, leaseExpired: boolean): void {
    const now = this.now();
    const list = this.runs.get(member) ?? [];
    list.push({ id, startedAt: now, endsAt: now + durationMs, startedExpired: leaseExpired });
    this.runs.set(member, list);
    this.started += 1;
    if (leaseExpired) this.startedExpired += 1;
  }

  /** The member was told to kill its runs: each is gone once the kill's grace (real ms) has passed. */
  kill(member: string, graceMs: number): void {
    const deadline = this.now() + graceMs;
    for (const run of this.aliveOf(member))
      if (run.endsAt > deadline) {
        run.endsAt = deadline;
        this.killed += 1;
      }
  }

  /** The member's process died: its runs with it. */
  crashed(member: string): void {
    for (const run of this.aliveOf(member)) run.endsAt = this.now();
  }

  aliveOf(member: string): WatchedRun[] {
    const now = this.now();
    const list = (this.runs.get(member) ?? []).filter((run) => run.endsAt > now);
    this.runs.set(member, list);
    return list;
  }

  /**
   * `leader` may drop `member` now (its lease is surely over, by the leader's clock): a violation when a run
   * of the member is still alive, described for the failing seed's report.
   */
  checkDrop(leader: string, member: string, silentMs: number): string | null {
    const alive = this.aliveOf(member);
    if (alive.length === 0) return null;
    this.dropsChecked += 1;
    const run = alive[0]!;
    const now = this.now();
    return (
      `at ${now.toFixed(1)} ms ${leader} may drop ${member} (silent ${silentMs.toFixed(0)} ms by its clock) ` +
      `while ${member}'s run ${run.id} (started at ${run.startedAt.toFixed(1)}` +
      `${run.startedExpired ? ', its lease already expired' : ''}) lives until ${run.endsAt.toFixed(1)}`
    );
  }
}
