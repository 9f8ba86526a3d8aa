import { majority } from './quorum.js';
import type { RaftLog } from './raft-log.js';
import type { ForcedVoters } from './raft-messages.js';

/**
 * Who votes and who is sent the log, as one member sees it: the voters of the latest configuration in its
 * log (or forced by a recovery, or the initial ones while the log holds none), the other voters it asks for
 * votes, and, while it leads, the learners it sends its log to without counting them.
 */
export class RaftMembership {
  /** The voters in force. */
  voters: readonly string[] = [];
  /** The other voters: who is asked for votes. */
  peers: readonly string[] = [];
  /** Who a leader sends its log to but does not count: learners, and the voters it just removed. */
  learners: readonly string[] = [];
  /** The voting peers and the learners: who a leader sends its log to. */
  replicas: readonly string[] = [];

  constructor(
    private readonly self: string,
    /** Sorted once, so they compare by identity. */
    private readonly initialVoters: readonly string[],
    private forced: ForcedVoters | null,
    private readonly log: RaftLog<unknown>,
  ) {
    this.sync();
  }

  /** The voters a recovery forced, while no configuration of the log has superseded them. */
  get forcedVoters(): ForcedVoters | null {
    return this.forced;
  }

  /** Takes the voters from the log (or forced, or initial); learners that became voters are learners no more. */
  sync(): void {
    const voters = this.forcedInForce() ? this.forced!.voters : (this.log.latestVoters ?? this.initialVoters);
    if (voters !== this.voters) {
      this.voters = voters;
      this.peers = voters.filter((voter) => voter !== this.self);
      this.learners = this.learners.filter((learner) => !voters.includes(learner));
    }
    this.replicas = [...this.peers, ...this.learners];
  }

  /** Whether `members` make a majority of the voters. */
  isMajority(members: ReadonlySet<string>): boolean {
    const voting = this.voters.filter((voter) => members.has(voter)).length;
    // Forced voters elect their first leader all together: a majority of them might lack what one applied.
    if (this.forcedInForce()) return voting === this.voters.length;
    return voting >= majority(this.voters.length);
  }

  /** The voters a new leader writes into its first entry: those not in the log yet (initial, or forced). */
  get unlogged(): readonly string[] | undefined {
    return this.log.latestVoters === undefined || this.forcedInForce() ? this.voters : undefined;
  }

  /** The voters a snapshot up to `index` records. */
  votersAt(index: number): readonly string[] {
    return this.log.votersAt(index) ?? this.forced?.voters ?? this.initialVoters;
  }

  /** Forgets the forced voters once a configuration made since they were forced is committed; true if it did. */
  settleForced(commitIndex: number): boolean {
    if (this.forced === null || !this.log.hasConfigSince(this.forced.term, commitIndex)) return false;
    this.forced = null;
    this.sync();
    return true;
  }

  /** The one voter `next` adds or removes, or null when it changes none or more than one. */
  changeTo(next: readonly string[]): { added: string[]; removed: string[] } | null {
    const added = next.filter((voter) => !this.voters.includes(voter));
    const removed = this.voters.filter((voter) => !next.includes(voter));
    return added.length + removed.length === 1 && next.length > 0 ? { added, removed } : null;
  }

  /**
   * A leader proposing `change`: a voter removed (other than this member) becomes a learner, so it gets
   * the entry that removes it; one added is a learner no more (once the entry is in the log, see sync).
   */
  proposing(change: { removed: string[] }): void {
    const removed = change.removed.filter((member) => member !== this.self);
    this.learners = [...new Set([...this.learners, ...removed])].sort();
  }

  addLearner(member: string): boolean {
    if (member === this.self || this.voters.includes(member)) return false;
    if (!this.learners.includes(member)) this.learners = [...this.learners, member].sort();
    this.sync();
    return true;
  }

  removeLearner(member: string): void {
    this.learners = this.learners.filter((learner) => learner !== member);
    this.sync();
  }

  /** A member that stops leading forgets its learners. */
  forgetLearners(): void {
    this.learners = [];
    this.replicas = this.peers;
  }

  /** Whether forced voters are in force: no configuration of the log was made since they were forced. */
  private forcedInForce(): boolean {
    return this.forced !== null && (this.log.latestConfigTerm ?? 0) < this.forced.term;
  }
}
