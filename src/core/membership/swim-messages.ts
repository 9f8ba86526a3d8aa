export type MemberState = 'alive' | 'suspect' | 'dead';

/** What one node says of a member: its state at an incarnation only that member may raise. */
export interface MemberUpdate {
  id: string;
  incarnation: number;
  state: MemberState;
}

interface Envelope {
  from: string;
  to: string;
  /** Updates piggybacked on every message: how membership news spreads (infection-style). */
  updates: MemberUpdate[];
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

export type SwimMessage = Ping | Ack | PingRequest;

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
}
