export type MemberState = 'alive' | 'suspect' | 'dead';

/** What one node says of a member: its state at an incarnation only that member may raise. */
export interface MemberUpdate {
  id: string;
  incarnation: number;
  state: MemberState;
  /**
   * Of a suspicion: the member that raised it, so that suspicions by different members are counted as
   * independent confirmations (Lifeguard's LHA-Suspicion) and the same one coming back by gossip is not.
   */
  suspectedBy?: string;
  /**
   * The peer protocol version the member advertises (see protocol-version.ts): its own word, at this
   * incarnation. None from a member of an older build, or passed on by one (its decoder drops it).
   */
  version?: number;
}

interface Envelope {
  from: string;
  to: string;
  /** Updates piggybacked on every message: how membership news spreads (infection-style). */
  updates: MemberUpdate[];
  /** The sender's running runs as it sends: `sched cluster status` shows each member's load as last heard. */
  load?: number;
}

export interface Ping extends Envelope {
  type: 'ping';
  seq: number;
}

export interface Ack extends Envelope {
  type: 'ack';
  seq: number;
}

/** Asks `to` to ping `target` and pass the ack back under `seq`: the indirect probe. */
export interface PingRequest extends Envelope {
  type: 'ping-req';
  seq: number;
  target: string;
}

/**
 * A helper's word that its ping of `target` for an indirect probe got no ack within its ack timeout
 * (Lifeguard's LHA-Probe): a prober that hears neither ack nor nack from a helper takes itself to be slow.
 */
export interface Nack extends Envelope {
  type: 'nack';
  seq: number;
}

export type SwimMessage = Ping | Ack | PingRequest | Nack;

/**
 * A member's whole view, sent over a stream (push-pull): on joining, to the seeds, and now and then to one
 * member, who answers with its own (`reply`). It heals what gossip lost and brings a newcomer up to date
 * at once instead of one probe at a time.
 */
export interface StateExchange {
  type: 'state';
  from: string;
  to: string;
  reply: boolean;
  members: MemberUpdate[];
  /** The sender's running runs as it sends. */
  load?: number;
}
