import { FollowerProgress } from './follower-progress.js';
import { majorityMatched } from './quorum.js';
import type { RaftLog } from './raft-log.js';
import type { AppendResponse, LogEntry, RaftMessage, Snapshot } from './raft-messages.js';

/** What the leader's replication reads of its node when it sends: these change while it leads. */
export interface LeaderState<State> {
  readonly term: number;
  readonly commitIndex: number;
  /** The check-quorum round appends are sent in (see RaftNode.tick). */
  readonly round: number;
  /** The latest snapshot, for a follower that needs what it covers. */
  readonly snapshot: Snapshot<State> | null;
}

export interface LeaderReplicationOptions<Data, State> {
  /** The leader's id. */
  id: string;
  log: RaftLog<Data | null>;
  state: () => LeaderState<State>;
  send: (message: RaftMessage<Data | null, State>) => void;
  /** Entries at most in one append message. */
  maxEntries: number;
  /** Bytes at most in one append message, as `of` counts them (its first entry goes whatever its size). */
  batchBytes?: { max: number; of: (entry: LogEntry<unknown>) => number };
  /** Heartbeats a snapshot sent is waited for before it is taken as lost and sent again. */
  snapshotWaitHeartbeats: number;
}

/**
 * How a leader sends its log to the members it replicates to, for one term: appends from where each is
 * expected to be (a snapshot when that is compacted away), within the window FollowerProgress keeps, the
 * entries proposed in one step together, and the commit index to each as soon as it can use it.
 */
export class LeaderReplication<Data, State> {
  private readonly progress: FollowerProgress;
  /** The commit index each follower can have learned from what was sent to it. */
  private readonly commitTold = new Map<string, number>();
  /** Entries were appended since the last `sendDue`, which sends them to every follower at once. */
  private appendsDue = false;

  constructor(
    private readonly options: LeaderReplicationOptions<Data, State>,
    followers: readonly string[],
  ) {
    this.progress = new FollowerProgress(options.id, followers, options.log.lastIndex);
  }

  /** Starts replicating to new followers from the end of the log and forgets those no longer replicated to. */
  track(followers: readonly string[]): void {
    this.progress.track(followers, this.options.log.lastIndex);
  }

  isTracked(member: string): boolean {
    return this.progress.isTracked(member);
  }

  matchedIndexOf(member: string): number {
    return this.progress.matchedIndexOf(member);
  }

  /** The highest index a majority of `voters` (the leader among them) is known to hold. */
  majorityMatched(voters: readonly string[]): number {
    return majorityMatched(voters.map((voter) => this.progress.matchedIndexOf(voter)));
  }

  heardFrom(member: string): void {
    this.progress.heardFrom(member);
  }

  /** Who answered since the last call (the leader always), and starts the next period. */
  takeActive(): ReadonlySet<string> {
    return this.progress.takeActive();
  }

  /** The leader appended up to `index`: it goes to every follower with what else the step appends. */
  appended(index: number): void {
    this.progress.appendedHere(index);
    this.appendsDue = true;
  }

  /** A heartbeat to each of `followers`, which also resends a probe left unanswered. */
  heartbeat(followers: readonly string[]): void {
    for (const peer of followers) {
      this.progress.heartbeat(peer);
      this.sendAppend(peer, true);
    }
  }

  /**
   * What a step leaves to send, once for all it did: the entries proposed since the last step, in one
   * append per follower (each proposal's own append would cost a message, and the follower a write to
   * its disk, per entry), and the commit index to each follower that cannot have learned it yet.
   */
  sendDue(followers: readonly string[]): void {
    const due = this.appendsDue;
    this.appendsDue = false;
    for (const peer of followers) {
      if (due) this.sendAppend(peer);
      this.tellCommit(peer);
    }
  }

  /**
   * Takes a follower's answer: a rejection moves where to send from (and sends from there when that
   * says something new); true for an acknowledgement, after which the commit index may move and `sendNext`
   * sends what follows.
   */
  answered(response: AppendResponse): boolean {
    if (!response.success) {
      if (this.progress.rejected(response.from, response.index)) this.sendAppend(response.from);
      return false;
    }
    this.progress.acknowledged(response.from, response.index);
    return true;
  }

  /** Sends `peer` what it lacks, if anything (after an acknowledgement). */
  sendNext(peer: string): void {
    const next = this.progress.nextIndexOf(peer);
    if (next !== undefined && next <= this.options.log.lastIndex) this.sendAppend(peer);
  }

  /**
   * Sends `peer` what it lacks from where it is expected to be, unless the window of what it has not
   * answered is full (see FollowerProgress); a heartbeat goes regardless, so it keeps its leader.
   */
  sendAppend(peer: string, heartbeat = false): void {
    const { progress } = this;
    const { log } = this.options;
    if (progress.paused(peer) && !heartbeat) return;
    if (progress.awaitsSnapshot(peer)) {
      // Only so the follower keeps its leader; it accepts this once it has installed the snapshot.
      if (heartbeat) this.sendEmptyAppend(peer, log.snapshotIndex);
      return;
    }
    const next = progress.nextIndexOf(peer) ?? log.lastIndex + 1;
    const prevLogIndex = next - 1;
    const { term, round, snapshot } = this.options.state();
    if (prevLogIndex < log.snapshotIndex && snapshot) {
      this.options.send({ from: this.options.id, to: peer, term, type: 'snapshot', snapshot, round });
      progress.sentSnapshot(peer, this.options.snapshotWaitHeartbeats);
      return;
    }
    const entries = log.slice(next, this.options.maxEntries, this.options.batchBytes);
    this.sendEntries(peer, prevLogIndex, entries);
    progress.sent(peer, prevLogIndex + entries.length, entries.length > 0);
  }

  /**
   * Tells a follower a commit index it has not been sent, at once instead of at the next heartbeat: a
   * write proposed through a follower is answered once that follower has applied it, so the heartbeat
   * interval would otherwise be added to every such write. It is told as far as its log will match once
   * what was sent to it arrives; no later append may carry it (none is sent until a write is answered).
   */
  private tellCommit(peer: string): void {
    const { progress } = this;
    if (progress.awaitsSnapshot(peer)) return;
    const prevLogIndex = progress.expectedMatchOf(peer);
    const { commitIndex } = this.options.state();
    if (Math.min(commitIndex, prevLogIndex) <= (this.commitTold.get(peer) ?? 0)) return;
    if (this.options.log.termAt(prevLogIndex) === undefined) return;
    this.sendEmptyAppend(peer, prevLogIndex);
  }

  /** An append after `prevLogIndex` with `count` entries went to `peer`: the commit index it can learn. */
  private toldCommit(peer: string, prevLogIndex: number, count: number): void {
    const told = Math.min(this.options.state().commitIndex, prevLogIndex + count);
    if (told > (this.commitTold.get(peer) ?? 0)) this.commitTold.set(peer, told);
  }

  /** An append of no entries after `prevLogIndex`: the commit index, and the leader's presence. */
  private sendEmptyAppend(peer: string, prevLogIndex: number): void {
    this.sendEntries(peer, prevLogIndex, []);
  }

  private sendEntries(peer: string, prevLogIndex: number, entries: LogEntry<Data | null>[]): void {
    this.toldCommit(peer, prevLogIndex, entries.length);
    const { term, commitIndex, round } = this.options.state();
    this.options.send({
      from: this.options.id,
      to: peer,
      term,
      type: 'append',
      prevLogIndex,
      prevLogTerm: this.options.log.termAt(prevLogIndex) ?? 0,
      entries,
      leaderCommit: commitIndex,
      round,
    });
  }
}
