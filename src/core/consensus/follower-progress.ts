/**
 * How the leader sends to one follower. `probe`: where its log matches is not known yet (a new term, a
 * rejection), so one append at a time goes out, and the next waits for its answer or the next heartbeat.
 * `replicate`: the follower matched, so appends go out back to back, each from just past the last one sent,
 * up to a window of unanswered ones. Without this every proposal resent everything unacknowledged, and
 * a follower slow to answer (a loaded host) was sent the same entries over and over, until the link's
 * buffer overflowed and writes timed out.
 */
type SendMode = 'probe' | 'replicate';

/**
 * What a leader knows of each follower it replicates to: the next index to send, the highest index known
 * to match its own log, how it sends to it (see SendMode), and whether the follower answered since the
 * last quorum check.
 */
export class FollowerProgress {
  private readonly next = new Map<string, number>();
  private readonly matched = new Map<string, number>();
  private readonly mode = new Map<string, SendMode>();
  /** Probing: an append is out and unanswered. */
  private readonly probing = new Set<string>();
  /** A snapshot is out: heartbeats left before it is taken as lost and sent again. */
  private readonly snapshotWait = new Map<string, number>();
  /** Replicating: the last index of each append with entries sent and not yet acknowledged, oldest first. */
  private readonly inFlight = new Map<string, number[]>();
  private active = new Set<string>();

  /** Starts over for a new term: every follower is tried from just past the leader's last entry. */
  constructor(
    private readonly leader: string,
    followers: readonly string[],
    lastIndex: number,
    private readonly maxInFlight = 8,
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
        this.mode.set(follower, 'probe');
        this.inFlight.set(follower, []);
      }
    for (const tracked of [...this.next.keys()])
      if (!followers.includes(tracked)) {
        this.next.delete(tracked);
        this.mode.delete(tracked);
        this.probing.delete(tracked);
        this.snapshotWait.delete(tracked);
        this.inFlight.delete(tracked);
      }
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

  /**
   * How far `follower`'s log will match the leader's once what was sent to it arrives: everything sent while
   * replicating (appends go in order), only what it acknowledged while probing.
   */
  expectedMatchOf(follower: string): number {
    if (this.mode.get(follower) === 'replicate') return (this.next.get(follower) ?? 1) - 1;
    return this.matchedIndexOf(follower);
  }

  /** The leader appended up to `index` to its own log. */
  appendedHere(index: number): void {
    this.matched.set(this.leader, index);
  }

  /** Whether an append to `follower` must wait (for an answer, or the next heartbeat). */
  paused(follower: string): boolean {
    if (this.mode.get(follower) === 'probe') return this.probing.has(follower);
    return (this.inFlight.get(follower)?.length ?? 0) >= this.maxInFlight;
  }

  /** An append went to `follower`, its entries (if any) ending at `lastIndex`. */
  sent(follower: string, lastIndex: number, withEntries: boolean): void {
    if (this.mode.get(follower) !== 'replicate') {
      this.probing.add(follower);
      return;
    }
    if (!withEntries) return;
    this.next.set(follower, lastIndex + 1);
    this.inFlight.get(follower)?.push(lastIndex);
  }

  /**
   * A snapshot went to `follower`: nothing more until it answers, or `heartbeats` heartbeats have gone by
   * (a snapshot may be large, and take a while to send and to install).
   */
  sentSnapshot(follower: string, heartbeats: number): void {
    this.mode.set(follower, 'probe');
    this.inFlight.set(follower, []);
    this.probing.add(follower);
    this.snapshotWait.set(follower, heartbeats);
  }

  /** Whether a snapshot sent to `follower` is still awaited (heartbeats then carry no entries). */
  awaitsSnapshot(follower: string): boolean {
    return this.snapshotWait.has(follower);
  }

  /** A heartbeat is due: a probe unanswered so long is taken as lost, and may be sent again. */
  heartbeat(follower: string): void {
    const wait = this.snapshotWait.get(follower);
    if (wait !== undefined && wait > 1) {
      this.snapshotWait.set(follower, wait - 1);
      return;
    }
    this.snapshotWait.delete(follower);
    this.probing.delete(follower);
  }

  /** The follower has the leader's log up to `index`; returns the next index to send it. */
  acknowledged(follower: string, index: number): number {
    if (index > this.matchedIndexOf(follower)) this.matched.set(follower, index);
    const next = Math.max(this.next.get(follower) ?? 1, index + 1);
    this.next.set(follower, next);
    this.mode.set(follower, 'replicate');
    this.probing.delete(follower);
    this.snapshotWait.delete(follower);
    const inFlight = this.inFlight.get(follower);
    if (inFlight)
      this.inFlight.set(
        follower,
        inFlight.filter((last) => last > index),
      );
    return next;
  }

  /**
   * The follower's log did not match before the entries sent; `hint` is where it suggests to look. Back to
   * probing; true when that moved where to send from (an answer to the probe, or the first of a run of
   * rejections), false for a rejection that says nothing new (appends sent before the first was rejected).
   */
  rejected(follower: string, hint: number): boolean {
    // The heartbeats sent while a snapshot is out are rejected by a follower that lacks it: nothing new.
    if (this.snapshotWait.has(follower)) return false;
    const before = this.next.get(follower);
    // A rejection may be stale: never go back to or below what is known to match.
    const next = Math.max(this.matchedIndexOf(follower) + 1, Math.min(before ?? 1, hint + 1));
    this.next.set(follower, next);
    const wasReplicating = this.mode.get(follower) === 'replicate';
    this.mode.set(follower, 'probe');
    this.inFlight.set(follower, []);
    if (next === before && !wasReplicating) return false;
    this.probing.delete(follower);
    return true;
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
