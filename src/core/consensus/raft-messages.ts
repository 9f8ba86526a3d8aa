/**
 * One entry of the replicated log. Indexes start at 1; `data` is opaque to the log (a new leader's
 * no-op entry carries null).
 */
export interface LogEntry<Data> {
  index: number;
  term: number;
  data: Data;
  /** A configuration entry: the voters from this entry on, in force as soon as it is in a log. */
  voters?: readonly string[];
}

/** What a node must have on disk before it sends anything that depends on it. */
export interface HardState {
  term: number;
  votedFor: string | null;
}

/**
 * Voters forced on a survivor of a group that lost its majority for good (`sched cluster recover --force`).
 * They are in force until the log holds a configuration made in `term` or later, which only a leader
 * elected after the recovery can write; until then an election needs every one of them, so the first
 * leader holds every entry any of them applied.
 */
export interface ForcedVoters {
  voters: readonly string[];
  /** The term the survivor was moved to when they were forced: past every term it had seen. */
  term: number;
}

/**
 * A vote asked for, or a pre-vote (Ongaro's thesis, 9.6): whether the voter would vote for a
 * candidate at `term`, asked before the candidate raises its own term, so a node cut off from the
 * others does not disrupt them with ever higher terms when it comes back.
 */
export interface VoteRequest {
  type: 'vote' | 'pre-vote';
  from: string;
  to: string;
  term: number;
  lastLogIndex: number;
  lastLogTerm: number;
  /**
   * A vote asked by a candidate its leader told to stand (a TimeoutNow, thesis 3.10): granted even by a
   * voter that still hears that leader, whose leave to disrupt it is what the flag carries (thesis 4.2.3).
   */
  transfer?: boolean;
}

export interface VoteResponse {
  type: 'vote-response' | 'pre-vote-response';
  from: string;
  to: string;
  term: number;
  granted: boolean;
}

export interface AppendRequest<Data> {
  type: 'append';
  from: string;
  to: string;
  term: number;
  prevLogIndex: number;
  prevLogTerm: number;
  entries: LogEntry<Data>[];
  leaderCommit: number;
  /** The leader's check-quorum round it was sent in, which the answer carries back (see RaftNode.tick). */
  round?: number;
  /** The host's: the latest `contact` the leader received from this member (see LeaderContact). */
  echo?: number;
}

export interface AppendResponse {
  type: 'append-response';
  from: string;
  to: string;
  term: number;
  success: boolean;
  /** On success, the last index known to match the leader's log; on failure, where to look next. */
  index: number;
  /** The round of the append (or snapshot) this answers, when it carried one. */
  round?: number;
  /** The host's: this response's number, for the leader to echo (see LeaderContact). */
  contact?: number;
}

/** The state machine as of a committed index, which a compacted log stands on. */
export interface Snapshot<State> {
  index: number;
  term: number;
  /** The voters as of `index`. */
  voters: readonly string[];
  state: State;
}

/** A leader's snapshot, for a follower that needs entries the leader has compacted away. */
export interface SnapshotRequest<State> {
  type: 'snapshot';
  from: string;
  to: string;
  term: number;
  snapshot: Snapshot<State>;
  /** As an append's. */
  round?: number;
}

/**
 * A leader handing over its leadership (thesis 3.10) tells the voter it chose, whose log it knows to be as
 * long as its own, to stand for election now, without waiting for its timeout or asking for pre-votes.
 */
export interface TimeoutNow {
  type: 'timeout-now';
  from: string;
  to: string;
  term: number;
}

export type RaftMessage<Data, State = unknown> =
  VoteRequest | VoteResponse | AppendRequest<Data> | AppendResponse | SnapshotRequest<State> | TimeoutNow;
