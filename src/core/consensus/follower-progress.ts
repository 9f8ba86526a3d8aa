/**
 * What a leader knows of each follower it replicates to: the next index to send, the highest index known
 * to match its own log, and whether the follower answered since the last quorum check.
 */
export class FollowerProgress {
  private readonly next = new Map<string, number>();
  private readonly matched = new Map<string, number>();
  private active = new Set<string>();

  /** Starts over for a new term: every follower is tried from just past the leader's last entry. */
  constructor(
    private readonly leader: string,
    followers: readonly string[],
    lastIndex: number,
  ) {
    this.track(followers, lastIndex);
    this.matched.set(leader, lastIndex);
    this.active.add(leader);
  }

  /** Starts tracking new followers from `lastIndex + 1` and forgets those no longer replicated to. */
  track(followers: readonly string[], lastIndex: number): void {
    for (const follower of followers)
      if (!this.next.has(follower)) {
        this.next.set(follower, lastIndex + 1);
        this.matched.set(follower, 0);
      }
    for (const tracked of [...this.next.keys()]) if (!followers.includes(tracked)) this.next.delete(tracked);
  }

  isTracked(follower: string): boolean {
    return this.next.has(follower);
  }

  nextIndexOf(follower: string): number | undefined {
    return this.next.get(follower);
  }

  matchedIndexOf(member: string): number {
    return this.matched.get(member) ?? 0;
  }

  /** The leader appended up to `index` to its own log. */
  appendedHere(index: number): void {
    this.matched.set(this.leader, index);
  }

  /** The follower has the leader's log up to `index`; returns the next index to send it. */
  acknowledged(follower: string, index: number): number {
    if (index > this.matchedIndexOf(follower)) this.matched.set(follower, index);
    const next = Math.max(this.next.get(follower) ?? 1, index + 1);
    this.next.set(follower, next);
    return next;
  }

  /** The follower's log did not match before the entries sent; `hint` is where it suggests to look. */
  rejected(follower: string, hint: number): void {
    // A rejection may be stale: never go back to or below what is known to match.
    const next = Math.max(
      this.matchedIndexOf(follower) + 1,
      Math.min(this.next.get(follower) ?? 1, hint + 1),
    );
    this.next.set(follower, next);
  }

  heardFrom(member: string): void {
    this.active.add(member);
  }

  /** Who answered since the last call (the leader always), and starts the next period. */
  takeActive(): ReadonlySet<string> {
    const active = this.active;
    this.active = new Set([this.leader]);
    return active;
  }
}
