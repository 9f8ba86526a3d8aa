import { LeaderReplication } from './leader-replication.js';
import { LeadershipTransfer, transferTarget } from './leadership-transfer.js';
import { RaftLog } from './raft-log.js';
import { RaftMembership } from './raft-membership.js';
import type {
  AppendRequest,
  AppendResponse,
  ForcedVoters,
  HardState,
  LogEntry,
  RaftMessage,
  Snapshot,
  SnapshotRequest,
  TimeoutNow,
  VoteRequest,
  VoteResponse,
} from './raft-messages.js';

export type RaftRole = 'follower' | 'pre-candidate' | 'candidate' | 'leader';

/** Election timeouts a leader waits for the answer to a snapshot before it sends it again. */
const SNAPSHOT_WAIT_ELECTIONS = 5;

export interface RaftConfig {
  id: string;
  /**
   * The voting members when the log holds no configuration yet: the initial members, or none for a node
   * joining a running group (a learner, which takes the group's configuration from the leader's log).
   */
  voters: readonly string[];
  /** Ticks without hearing a leader before standing for election; the timeout is randomised in [n, 2n). */
  electionTicks: number;
  /** Ticks between a leader's heartbeats (which also resend a probe a follower has not answered). */
  heartbeatTicks: number;
  /** Entries at most in one append message. */
  maxEntriesPerMessage?: number;
  /**
   * Bytes at most in one append message, as `entryBytes` counts them (its first entry goes whatever its
   * size), so a batch of large entries never exceeds what the transport carries and is dropped, to be
   * resent forever. The host refuses a proposal larger than this.
   */
  maxBytesPerMessage?: number;
  entryBytes?: (entry: LogEntry<unknown>) => number;
  /** Uniform in [0, 1): the only randomness, so a simulator replays a run exactly from its seed. */
  random: () => number;
  /** Ask for pre-votes before standing for election (default true). */
  preVote?: boolean;
  /**
   * A leader that has not heard from a majority for an election timeout steps down, and a node that
   * hears from its leader ignores vote requests of higher terms meanwhile (default true).
   */
  checkQuorum?: boolean;
  /**
   * Whether `member` can be handed the leadership: its build knows `timeout-now` (default: every member). A
   * leader leaving the group hands over only to one that can; with none, it steps down as older builds do.
   */
  takesTransfer?: (member: string) => boolean;
}

/**
 * What survived a restart, as the host persisted it: the hard state, the latest snapshot (the host
 * restores its state machine from it before handing it here) and the entries after it.
 */
export interface RaftDurableState<Data, State> {
  hardState: HardState;
  snapshot?: Snapshot<State> | null;
  entries: readonly LogEntry<Data | null>[];
  /** Voters forced by a recovery, until a configuration of the log supersedes them. */
  forced?: ForcedVoters | null;
}

/**
 * What the host must do after a step, in this order: persist `hardState`, `snapshot` (dropping the
 * stored entries it covers) and `logChanges` (write the entries over what is stored from `from` on);
 * then send `messages`; then restore the state machine from `snapshot` and apply `committed` in order.
 */
export interface RaftReady<Data, State> {
  hardState: HardState | null;
  /** A snapshot a leader sent: the state machine starts over from it. */
  snapshot: Snapshot<State> | null;
  logChanges: { from: number; entries: LogEntry<Data | null>[] } | null;
  messages: RaftMessage<Data | null, State>[];
  committed: LogEntry<Data | null>[];
  /** A configuration the log committed supersedes the forced voters: forget them (with the other changes). */
  forcedSettled: boolean;
}

export type Proposal =
  | { accepted: true; index: number; term: number }
  | { accepted: false; leader: string | null; reason?: string };

/** A hand-over of the leadership begun (to `target`), or why not. */
export type TransferStart = { started: true; target: string } | { started: false; reason: string };

/** What a leader handing over its leadership answers a proposal or a change of voters meanwhile. */
export const HANDING_OVER = 'the leader is handing over its leadership';

/**
 * One member of a Raft group (Ongaro and Ousterhout, 2014), as a pure state machine: the host feeds it
 * ticks, messages and proposals, and carries out what `takeReady` returns. It owns no clock, socket or
 * disk, so a simulator can drive many of them through any interleaving. The host compacts the log
 * with a snapshot of what it applied (`compact`). Members join and leave one at a time (`changeVoters`,
 * Ongaro's thesis, 4.1): a configuration is in force as soon as it is in a node's log. A new member first
 * follows the log as a learner, which does not vote (`addLearner`, 4.2.1), until it has caught up. A leader
 * hands its leadership to another voter (`transferLeadership`, 3.10), as it does once it has removed itself.
 */
export class RaftNode<Data, State = unknown> {
  readonly id: string;
  private readonly membership: RaftMembership;
  private forcedSettled = false;
  private readonly log: RaftLog<Data | null>;
  private readonly preVote: boolean;
  private readonly checkQuorum: boolean;

  private term: number;
  private votedFor: string | null;
  private hardStateChanged = false;
  private role: RaftRole = 'follower';
  private leader: string | null = null;
  private commitIndex = 0;
  private appliedIndex = 0;
  private electionElapsed = 0;
  private electionTimeout = 0;
  private heartbeatElapsed = 0;
  /** Leading: the check-quorum round (one per election timeout) its appends are sent in, never reused. */
  private round = 0;
  private votesGranted = new Set<string>();
  /** While this node leads: how it sends its log to each follower, and what it knows of them. */
  private replication: LeaderReplication<Data, State> | null = null;
  /** While this node leads and hands its leadership over: to whom, and since when. */
  private transfer: LeadershipTransfer | null = null;
  private outbox: RaftMessage<Data | null, State>[] = [];
  /** The latest snapshot, sent to followers that need what it covers. */
  private snapshot: Snapshot<State> | null;
  private installedSnapshot: Snapshot<State> | null = null;

  constructor(
    private readonly config: RaftConfig,
    durable?: RaftDurableState<Data, State>,
  ) {
    if (!(config.heartbeatTicks > 0 && config.heartbeatTicks < config.electionTicks))
      throw new RangeError('heartbeatTicks must be positive and below electionTicks');
    this.id = config.id;
    this.preVote = config.preVote ?? true;
    this.checkQuorum = config.checkQuorum ?? true;
    this.snapshot = durable?.snapshot ?? null;
    this.log = new RaftLog(this.snapshot ?? undefined, durable?.entries ?? []);
    const initialVoters = [...new Set(config.voters)].sort();
    this.membership = new RaftMembership(this.id, initialVoters, durable?.forced ?? null, this.log);
    this.commitIndex = this.appliedIndex = this.log.snapshotIndex;
    this.term = durable?.hardState.term ?? 0;
    this.votedFor = durable?.hardState.votedFor ?? null;
    this.resetElectionTimer();
  }

  get currentTerm(): number {
    return this.term;
  }

  get currentRole(): RaftRole {
    return this.role;
  }

  /** The leader of the current term as far as this node knows, or null. */
  get currentLeader(): string | null {
    return this.leader;
  }

  get committedIndex(): number {
    return this.commitIndex;
  }

  get lastIndex(): number {
    return this.log.lastIndex;
  }

  /** The last index the latest snapshot covers; the log holds only the entries after it. */
  get snapshotIndex(): number {
    return this.log.snapshotIndex;
  }

  /**
   * Compacts the log up to `index`, an index already applied, with the state machine as of it. The
   * host persists the snapshot and may then drop the stored entries it covers.
   */
  compact(index: number, state: State): Snapshot<State> {
    if (index > this.appliedIndex)
      throw new RangeError(`cannot compact to ${index}: only ${this.appliedIndex} is applied`);
    const term = this.log.termAt(index);
    if (term === undefined || index <= this.log.snapshotIndex)
      throw new RangeError(`cannot compact to ${index}: the log starts after ${this.log.snapshotIndex}`);
    const voters = this.membership.votersAt(index);
    this.log.compact(index);
    const snapshot = { index, term, voters, state };
    this.snapshot = snapshot;
    return snapshot;
  }

  entryAt(index: number): LogEntry<Data | null> | undefined {
    return this.log.entryAt(index);
  }

  /** The voters in force here: those of the latest configuration in this node's log (or forced). */
  get currentVoters(): readonly string[] {
    return this.membership.voters;
  }

  /** Who this leader sends its log to without counting them (none on a node that does not lead). */
  get currentLearners(): readonly string[] {
    return this.role === 'leader' ? this.membership.learners : [];
  }

  /** The voters a recovery forced, while no configuration of the log has superseded them. */
  get forcedVoters(): ForcedVoters | null {
    return this.membership.forcedVoters;
  }

  /** The voter this leader is handing its leadership to, or null. */
  get transferringTo(): string | null {
    return this.transfer?.target ?? null;
  }

  /** Whether a configuration change is in the log and not committed yet. */
  get changePending(): boolean {
    return this.log.latestConfigIndex > this.commitIndex;
  }

  /** How much of this leader's log `member` is known to hold; undefined when it is not replicated to. */
  matchedIndexOf(member: string): number | undefined {
    if (this.replication === null || !this.replication.isTracked(member)) return undefined;
    return this.replication.matchedIndexOf(member);
  }

  /**
   * Adds or removes one voter (the leader only). Refused while an earlier change is not committed, and
   * until an entry of the leader's own term is, so two changes never overlap. A voter removed (other than
   * this leader) stays a learner, so it gets the entry that removes it and stops asking to be elected.
   */
  changeVoters(voters: readonly string[]): Proposal {
    if (this.role !== 'leader') return { accepted: false, leader: this.leader };
    if (this.transfer !== null) return { accepted: false, leader: this.id, reason: HANDING_OVER };
    const next = [...new Set(voters)].sort();
    const change = this.membership.changeTo(next);
    if (change === null)
      return { accepted: false, leader: this.id, reason: 'add or remove exactly one voter at a time' };
    if (this.changePending)
      return { accepted: false, leader: this.id, reason: 'an earlier change is not committed yet' };
    if (this.log.termAt(this.commitIndex) !== this.term)
      return { accepted: false, leader: this.id, reason: 'no entry of this leader’s term is committed yet' };
    this.membership.proposing(change);
    const entry = this.log.append(this.term, null, next);
    return this.replicate(entry);
  }

  /**
   * Starts sending the log to `member` without counting it in any majority (the leader only), so a new
   * member catches up before it votes. It is forgotten when this node stops leading.
   */
  addLearner(member: string): boolean {
    if (this.role !== 'leader' || !this.membership.addLearner(member)) return false;
    this.syncVoters();
    this.replication!.sendAppend(member);
    return true;
  }

  removeLearner(member: string): void {
    this.membership.removeLearner(member);
    this.syncVoters();
  }

  /**
   * Hands the leadership to `to`, or to the voter that holds the most of the log (the leader only; thesis
   * 3.10). Proposals are refused until it is over: once `to` is elected (this leader then hears its term), or
   * after an election timeout, when this leader takes them again.
   */
  transferLeadership(to?: string): TransferStart {
    if (this.role !== 'leader') return { started: false, reason: 'not the leader' };
    if (this.transfer !== null)
      return { started: false, reason: `already handing the leadership to ${this.transfer.target}` };
    if (!this.handOverCanWin())
      return { started: false, reason: 'too few voters run a build that takes part in a hand-over' };
    const target = to ?? this.transferTarget();
    if (target === null) return { started: false, reason: 'no other voter can take the leadership' };
    if (!this.membership.peers.includes(target))
      return { started: false, reason: `${target} is not another voter` };
    if (!this.takesTransfer(target))
      return { started: false, reason: `${target} runs a build that cannot take the leadership` };
    this.beginTransfer(target, false);
    return { started: true, target };
  }

  /** One unit of logical time. */
  tick(): void {
    if (this.role === 'leader') {
      if (this.transfer?.tick()) {
        this.giveUpTransfer();
        if (this.role !== 'leader') return;
      }
      this.electionElapsed += 1;
      if (this.electionElapsed >= this.config.electionTicks) {
        this.electionElapsed = 0;
        const active = this.replication!.takeActive();
        this.round += 1;
        if (this.checkQuorum && !this.isMajority(active)) {
          this.becomeFollower(this.term, null);
          return;
        }
      }
      this.heartbeatElapsed += 1;
      if (this.heartbeatElapsed >= this.config.heartbeatTicks) {
        this.heartbeatElapsed = 0;
        this.replication!.heartbeat(this.membership.replicas);
      }
      return;
    }
    this.electionElapsed += 1;
    if (this.electionElapsed < this.electionTimeout) return;
    // A node that does not vote (a learner, or removed) never stands for election; it forgets a leader it
    // no longer hears, so its host knows to ask to be followed again.
    if (!this.membership.voters.includes(this.id)) {
      this.leader = null;
      return;
    }
    if (this.preVote) this.preCampaign();
    else this.campaign();
  }

  /** Appends `data` if this node leads; it is committed once a majority has it (see `committed`). */
  propose(data: Data): Proposal {
    if (this.role !== 'leader') return { accepted: false, leader: this.leader };
    if (this.transfer !== null) return { accepted: false, leader: this.id, reason: HANDING_OVER };
    return this.replicate(this.log.append(this.term, data));
  }

  private replicate(entry: LogEntry<Data | null>): Proposal {
    this.syncVoters();
    this.replication!.appended(entry.index);
    this.advanceCommit();
    return { accepted: true, index: entry.index, term: entry.term };
  }

  step(message: RaftMessage<Data | null, State>): void {
    if (message.to !== this.id) return;
    if (message.term === this.term && this.answersThisRound(message))
      this.replication?.heardFrom(message.from);
    if (message.term > this.term) {
      // A pre-vote, or a pre-vote granted, carries the term the candidate would stand at: no one's yet.
      const prospective =
        message.type === 'pre-vote' || (message.type === 'pre-vote-response' && message.granted);
      // Leader stickiness: while our leader is heard, a vote for a higher term is a disruption, unless that
      // leader asked for it, handing its leadership over.
      if (message.type === 'vote' && !message.transfer && this.checkQuorum && this.hearsLeader()) return;
      const fromLeader =
        message.type === 'append' || message.type === 'snapshot' || message.type === 'timeout-now';
      if (!prospective) this.becomeFollower(message.term, fromLeader ? message.from : null);
    }
    if (message.term < this.term) {
      // A deposed leader or stale candidate learns the newer term from the answer and steps down.
      if (message.type === 'append' || message.type === 'snapshot')
        this.respondAppend(message, false, this.log.lastIndex);
      else if (message.type === 'vote' || message.type === 'pre-vote') this.refuseVote(message);
      return;
    }
    switch (message.type) {
      case 'vote':
        return this.handleVote(message);
      case 'pre-vote':
        return this.handlePreVote(message);
      case 'vote-response':
        return this.handleVoteResponse(message);
      case 'pre-vote-response':
        return this.handlePreVoteResponse(message);
      case 'append':
        return this.handleAppend(message);
      case 'append-response':
        return this.handleAppendResponse(message);
      case 'snapshot':
        return this.handleSnapshot(message);
      case 'timeout-now':
        return this.handleTimeoutNow(message);
    }
  }

  /**
   * Whether `message` shows its sender follows this leader now: an answer to an append of this check-quorum
   * round or the one before (a round trip may straddle the rounds' edge). Any other message of the term,
   * or an answer that arrives later still, may have been sent before its sender moved on to a newer leader:
   * counted, it would keep a deposed leader passing its checks for as long as late messages trickle in. So
   * a leader is deposed within three election timeouts of its successor's election, the bound its successor
   * counts on (see LeaderContact). An answer without a round (a member of an older release) counts as before.
   */
  private answersThisRound(message: RaftMessage<Data | null, State>): boolean {
    if (message.type !== 'append-response') return false;
    return message.round === undefined || message.round >= this.round - 1;
  }

  takeReady(): RaftReady<Data, State> {
    if (this.role === 'leader') this.replication!.sendDue(this.membership.replicas);
    this.settleForced();
    const forcedSettled = this.forcedSettled;
    this.forcedSettled = false;
    const hardState = this.hardStateChanged ? { term: this.term, votedFor: this.votedFor } : null;
    this.hardStateChanged = false;
    const snapshot = this.installedSnapshot;
    this.installedSnapshot = null;
    const committed: LogEntry<Data | null>[] = [];
    while (this.appliedIndex < this.commitIndex) {
      this.appliedIndex += 1;
      committed.push(this.log.entryAt(this.appliedIndex)!);
    }
    const messages = this.outbox;
    this.outbox = [];
    return { hardState, snapshot, logChanges: this.log.takeChanges(), messages, committed, forcedSettled };
  }

  /** Forgets the forced voters once a configuration made since they were forced is committed here. */
  private settleForced(): void {
    if (this.membership.settleForced(this.commitIndex)) this.forcedSettled = true;
  }

  /** Asks whether a majority would vote at the next term, changing nothing of its own state yet. */
  private preCampaign(): void {
    this.role = 'pre-candidate';
    this.leader = null;
    this.votesGranted = new Set([this.id]);
    this.resetElectionTimer();
    if (this.isMajority(this.votesGranted)) return this.campaign();
    this.askForVotes('pre-vote', this.term + 1);
  }

  /** `transfer`: the leader handed its leadership to this node, which stands at once (see VoteRequest). */
  private campaign(transfer = false): void {
    this.term += 1;
    this.role = 'candidate';
    this.leader = null;
    this.votedFor = this.id;
    this.hardStateChanged = true;
    this.votesGranted = new Set([this.id]);
    this.resetElectionTimer();
    if (this.isMajority(this.votesGranted)) return this.becomeLeader();
    this.askForVotes('vote', this.term, transfer);
  }

  private askForVotes(type: VoteRequest['type'], term: number, transfer = false): void {
    const { lastIndex: lastLogIndex, lastTerm: lastLogTerm } = this.log;
    for (const peer of this.membership.peers) {
      const request: VoteRequest = { ...this.header(peer), term, type, lastLogIndex, lastLogTerm };
      if (transfer) request.transfer = true;
      this.send(request);
    }
  }

  /**
   * The leader hands its leadership to this node: a voter stands at once, skipping pre-votes (its leader
   * asked it to). One that does not vote (a learner, or removed) or that leads ignores it; one of a stale
   * term never gets here.
   */
  private handleTimeoutNow(_message: TimeoutNow): void {
    if (this.role === 'leader' || !this.membership.voters.includes(this.id)) return;
    this.campaign(true);
  }

  private handleVote(request: VoteRequest): void {
    const free = this.votedFor === null || this.votedFor === request.from;
    const granted = free && this.log.isUpToDate(request.lastLogIndex, request.lastLogTerm);
    if (granted) {
      this.votedFor = request.from;
      this.hardStateChanged = true;
      // Granting a vote counts as hearing from a would-be leader: do not stand against it at once.
      this.resetElectionTimer();
    }
    this.send({ ...this.header(request.from), type: 'vote-response', granted });
  }

  /** A pre-vote is granted as a vote would be, but only by a node that no longer hears a leader. */
  private handlePreVote(request: VoteRequest): void {
    const granted =
      !this.hearsLeader() &&
      (request.term > this.term || this.votedFor === null || this.votedFor === request.from) &&
      this.log.isUpToDate(request.lastLogIndex, request.lastLogTerm);
    if (!granted) return this.refuseVote(request);
    this.send({ ...this.header(request.from), term: request.term, type: 'pre-vote-response', granted: true });
  }

  private handlePreVoteResponse(response: VoteResponse): void {
    if (this.role !== 'pre-candidate' || !response.granted || response.term !== this.term + 1) return;
    this.votesGranted.add(response.from);
    if (this.isMajority(this.votesGranted)) this.campaign();
  }

  private refuseVote(request: VoteRequest): void {
    const type = request.type === 'vote' ? 'vote-response' : 'pre-vote-response';
    this.send({ ...this.header(request.from), type, granted: false });
  }

  /** Whether this node leads, or heard from its leader within the last election timeout. */
  hearsLeader(): boolean {
    if (this.role === 'leader') return true;
    return this.leader !== null && this.electionElapsed < this.config.electionTicks;
  }

  private handleVoteResponse(response: VoteResponse): void {
    if (this.role !== 'candidate' || !response.granted) return;
    this.votesGranted.add(response.from);
    if (this.isMajority(this.votesGranted)) this.becomeLeader();
  }

  private becomeLeader(): void {
    this.role = 'leader';
    this.leader = this.id;
    this.heartbeatElapsed = 0;
    this.electionElapsed = 0;
    this.round += 1;
    this.membership.forgetLearners();
    this.replication = this.replicateToPeers();
    // Entries of earlier terms are committed only through one of the leader's own term (§5.4.2). While the
    // voters are not in the log yet (the initial ones, or forced ones), that entry writes them there, so a
    // restart takes them from the log whatever it is started with.
    this.replicate(this.log.append(this.term, null, this.membership.unlogged));
  }

  private isMajority(members: ReadonlySet<string>): boolean {
    return this.membership.isMajority(members);
  }

  /**
   * Takes the latest configuration in the log (or the forced voters) as the voters. A leader starts
   * tracking a new voter (or learner) from the end of its log, forgets a removed one, and steps down once
   * its own removal is committed.
   */
  private syncVoters(): void {
    this.membership.sync();
    this.replication?.track(this.membership.replicas);
  }

  private becomeFollower(term: number, leader: string | null): void {
    this.transfer = null;
    if (term !== this.term) {
      this.term = term;
      this.votedFor = null;
      this.hardStateChanged = true;
    }
    this.role = 'follower';
    this.leader = leader;
    this.replication = null;
    this.membership.forgetLearners();
    this.resetElectionTimer();
  }

  private handleAppend(request: AppendRequest<Data | null>): void {
    this.followLeader(request);
    const { prevLogIndex, entries } = request;
    // What is committed here matches the leader's log (Leader Completeness): an append from before it is
    // taken from there on. Ignored whole, the append of a leader that never hears this node's answers (and
    // so keeps sending from where it last heard of it) would never move its commit index again.
    if (prevLogIndex < this.commitIndex) {
      const after = entries.filter((entry) => entry.index > this.commitIndex);
      return this.appendMatched(request, this.commitIndex, after);
    }
    const prevTerm = this.log.termAt(prevLogIndex);
    if (prevTerm !== request.prevLogTerm) {
      return this.respondAppend(request, false, this.conflictHint(prevLogIndex, prevTerm));
    }
    this.appendMatched(request, prevLogIndex, entries);
  }

  /** Takes `entries`, which follow `prevLogIndex`, where this log is known to match the leader's. */
  private appendMatched(
    request: AppendRequest<Data | null>,
    prevLogIndex: number,
    entries: LogEntry<Data | null>[],
  ): void {
    this.log.merge(entries);
    this.syncVoters();
    const lastNew = prevLogIndex + entries.length;
    // Only what is known to match the leader's log may be committed here, not a stale tail after it.
    const commit = Math.min(request.leaderCommit, lastNew);
    if (commit > this.commitIndex) this.commitIndex = commit;
    this.respondAppend(request, true, lastNew);
  }

  /**
   * Where the leader should look next after a mismatch at `index`: past our end, from our end; on a
   * conflicting term, from before all our entries of that term, so a long divergent tail is skipped a
   * term at a time instead of an entry at a time (what is committed here is never in question).
   */
  private conflictHint(index: number, termHere: number | undefined): number {
    if (termHere === undefined) return this.log.lastIndex;
    let hint = index - 1;
    while (hint > this.commitIndex && this.log.termAt(hint) === termHere) hint -= 1;
    return Math.max(0, hint);
  }

  private handleSnapshot(request: SnapshotRequest<State>): void {
    this.followLeader(request);
    const { snapshot } = request;
    if (snapshot.index > this.commitIndex) {
      this.log.restore(snapshot);
      this.syncVoters();
      this.snapshot = snapshot;
      this.installedSnapshot = snapshot;
      this.commitIndex = this.appliedIndex = snapshot.index;
    }
    this.respondAppend(request, true, this.commitIndex);
  }

  /** Same term: there is one leader per term, and this is it. */
  private followLeader(request: { term: number; from: string }): void {
    if (this.role !== 'follower') this.becomeFollower(request.term, request.from);
    this.leader = request.from;
    this.electionElapsed = 0;
  }

  private handleAppendResponse(response: AppendResponse): void {
    const replication = this.replication;
    if (this.role !== 'leader' || !replication?.isTracked(response.from)) return;
    if (!replication.answered(response)) return;
    this.advanceCommit();
    if (this.transfer?.target === response.from) this.handOverIfCaughtUp();
    // Not when that commit removed this leader: it no longer sends the log.
    this.replication?.sendNext(response.from);
  }

  private advanceCommit(): void {
    const { voters } = this.membership;
    const candidate = this.replication!.majorityMatched(voters);
    if (candidate > this.commitIndex && this.log.termAt(candidate) === this.term)
      this.commitIndex = candidate;
    // A leader that removed itself leads until that change is committed, then hands the group over to the
    // rest, telling them first what it committed: they could learn it only from their next leader, once it
    // has committed an entry of its own term, and writes it acknowledged would wait for that election.
    if (
      !voters.includes(this.id) &&
      this.commitIndex >= this.log.latestConfigIndex &&
      !this.transfer?.stepDown
    ) {
      this.replication!.heartbeat(this.membership.replicas);
      this.leave();
    }
  }

  /**
   * Leaves the group it led, handing the leadership to the voter that holds the most of the log, so the rest
   * need not wait out an election timeout, and split their votes, to elect one; with no voter that can take
   * it, it steps down at once.
   */
  private leave(): void {
    if (this.transfer !== null) {
      this.transfer.stepDown = true;
      return this.handOverIfCaughtUp();
    }
    const target = this.handOverCanWin() ? this.transferTarget() : null;
    if (target === null) return this.becomeFollower(this.term, null);
    this.beginTransfer(target, true);
  }

  /**
   * Whether the voters that know a vote's `transfer` flag make a majority: one of an older build, still
   * hearing this leader, ignores the vote its successor asks for, and too many of them would leave the
   * successor short of a majority until the hand-over is given up, an election timeout later than a plain
   * step-down. This leader, a voter, votes for its successor.
   */
  private handOverCanWin(): boolean {
    return this.membership.isMajority(
      new Set(this.membership.voters.filter((voter) => voter === this.id || this.takesTransfer(voter))),
    );
  }

  private transferTarget(): string | null {
    const matched = (voter: string) => this.replication!.matchedIndexOf(voter);
    return transferTarget(this.membership.peers, matched, (voter) => this.takesTransfer(voter));
  }

  private takesTransfer(member: string): boolean {
    return this.config.takesTransfer?.(member) ?? true;
  }

  private beginTransfer(target: string, stepDown: boolean): void {
    this.transfer = new LeadershipTransfer(target, stepDown, this.config.electionTicks);
    // What it lacks goes now, and the rest as it acknowledges (see handleAppendResponse).
    if (this.replication!.matchedIndexOf(target) < this.log.lastIndex) this.replication!.sendAppend(target);
    else this.handOverIfCaughtUp();
  }

  /**
   * Tells the target to stand once it holds the whole log (no proposal lengthens it meanwhile), so it wins
   * the votes of the others; again at each answer of it while it does not (the first may be lost). This
   * leader leads on until it hears the target's term, or gives up after an election timeout.
   */
  private handOverIfCaughtUp(): void {
    const transfer = this.transfer;
    if (transfer === null || this.replication!.matchedIndexOf(transfer.target) < this.log.lastIndex) return;
    this.send({ ...this.header(transfer.target), type: 'timeout-now' });
  }

  /** The transfer took an election timeout: a leader that leaves steps down; another takes proposals again. */
  private giveUpTransfer(): void {
    const stepDown = this.transfer!.stepDown;
    this.transfer = null;
    if (stepDown) this.becomeFollower(this.term, null);
  }

  /** The replication of a term just won, to every peer from just past the end of this node's log. */
  private replicateToPeers(): LeaderReplication<Data, State> {
    const { maxEntriesPerMessage, maxBytesPerMessage, entryBytes, electionTicks, heartbeatTicks } =
      this.config;
    return new LeaderReplication<Data, State>(
      {
        id: this.id,
        log: this.log,
        state: () => ({
          term: this.term,
          commitIndex: this.commitIndex,
          round: this.round,
          snapshot: this.snapshot,
        }),
        send: (message) => this.send(message),
        maxEntries: maxEntriesPerMessage ?? 64,
        batchBytes:
          maxBytesPerMessage !== undefined && entryBytes !== undefined
            ? { max: maxBytesPerMessage, of: entryBytes }
            : undefined,
        snapshotWaitHeartbeats: SNAPSHOT_WAIT_ELECTIONS * Math.ceil(electionTicks / heartbeatTicks),
      },
      this.membership.peers,
    );
  }

  private respondAppend(request: { from: string; round?: number }, success: boolean, index: number): void {
    const response: AppendResponse = {
      ...this.header(request.from),
      type: 'append-response',
      success,
      index,
    };
    if (request.round !== undefined) response.round = request.round;
    this.send(response);
  }

  private header(to: string): { from: string; to: string; term: number } {
    return { from: this.id, to, term: this.term };
  }

  private send(message: RaftMessage<Data | null, State>): void {
    this.outbox.push(message);
  }

  private resetElectionTimer(): void {
    this.electionElapsed = 0;
    const ticks = this.config.electionTicks;
    this.electionTimeout = ticks + Math.floor(this.config.random() * ticks);
  }
}
