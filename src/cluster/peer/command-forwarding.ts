import { z } from 'zod';
import type { Clock } from '../../core/clock.js';
import { tryParsePeerAddress } from '../../core/peer/peer-address.js';
import { decodeWire, MAX_STREAM_FRAME, wireCount, wireId } from '../../core/peer/wire-fields.js';
import type { Offer } from './raft-host.js';
import type { PeerStreams } from './peer-streams.js';
import type { Submission } from './replicated-store.js';
import { storeCommandSchema, type StoreCommand } from './store-commands.js';

/** What forwarding needs of this member's Raft: whether it leads, who does, and a way to append. */
export interface LeaderView {
  readonly role: string | null;
  readonly leader: string | null;
  offer(command: StoreCommand): Offer;
  /** Leading: `member` forwarded a write here now, which counts as contact for its lease on its runs. */
  heardFrom(member: string): void;
}

export interface CommandForwardingOptions {
  /** This member's id (its address), where the leader sends its answer. */
  self: string;
  raft: LeaderView;
  clock: Clock;
  /** How long to wait for the leader's answer (2 s). */
  answerWithinMs?: number;
  /** A forwarded message that does not read (counted, never acted on). */
  onMalformed?: (detail: string) => void;
}

const requestSchema = z.object({ request: wireCount, from: wireId, command: storeCommandSchema });
const answerSchema = z.object({
  request: wireCount,
  accepted: z.boolean(),
  leader: wireId.nullable().optional(),
  reason: z.string().max(500).optional(),
  index: wireCount.optional(),
  term: wireCount.optional(),
});
const utf8 = new TextEncoder();

/**
 * A write made on a member that does not lead goes to the leader, which appends it and says so; the member
 * then waits to apply it itself (read your own write). A leader that cannot take it says why, and the
 * write is offered again once a leader is known. An answer that never comes (the leader died) leaves the
 * write possibly in the log, and it is offered again all the same: a copy applied after the first is
 * skipped by its id (see ProposerSessions), so the writer need not wait out its commit timeout.
 */
export class CommandForwarding {
  private requests = 0;
  private readonly waiting = new Map<number, (submission: Submission) => void>();

  constructor(
    private readonly streams: PeerStreams,
    private readonly options: CommandForwardingOptions,
  ) {
    streams.handle('forward', (body) => this.take(body));
    streams.handle('forward-reply', (body) => this.answered(body));
  }

  submit(command: StoreCommand): Promise<Submission> {
    const { raft, self, clock } = this.options;
    if (raft.role === 'leader') return Promise.resolve(submissionOf(raft.offer(command)));
    const leader = raft.leader === null || raft.leader === self ? null : tryParsePeerAddress(raft.leader);
    if (leader === null) return Promise.resolve({ accepted: false, leader: null, reason: 'no leader known' });
    this.requests += 1;
    const request = this.requests;
    const body = utf8.encode(JSON.stringify({ request, from: self, command }));
    if (body.length > this.streams.maxBody || !this.streams.send(leader, 'forward', body))
      return Promise.resolve({
        accepted: false,
        leader: raft.leader,
        reason: 'the leader cannot be sent it now',
      });
    return new Promise<Submission>((resolve) => {
      const cancel = clock.setTimer(this.options.answerWithinMs ?? 2_000, () => {
        this.waiting.delete(request);
        resolve({ accepted: false, leader: raft.leader, reason: 'the leader did not answer' });
      });
      this.waiting.set(request, (answer) => {
        cancel();
        this.waiting.delete(request);
        resolve(answer);
      });
    });
  }

  /** On the leader: append what a member forwarded, and tell it whether it was taken. */
  private take(body: Buffer): void {
    const decoded = decodeWire(body, requestSchema, MAX_STREAM_FRAME);
    if (!decoded.ok) return this.options.onMalformed?.(`forwarded write: ${decoded.reason}`);
    const { request, from, command } = decoded.message;
    const to = tryParsePeerAddress(from);
    if (to === null) return this.options.onMalformed?.(`forwarded write from ${from}: not an address`);
    this.options.raft.heardFrom(from);
    const offer = this.options.raft.offer(command);
    const answer = offer.accepted
      ? { request, accepted: true, index: offer.index, term: offer.term }
      : { request, accepted: false, leader: offer.leader, reason: offer.reason };
    this.streams.send(to, 'forward-reply', utf8.encode(JSON.stringify(answer)));
  }

  private answered(body: Buffer): void {
    const decoded = decodeWire(body, answerSchema, 4_096);
    if (!decoded.ok) return this.options.onMalformed?.(`answer to a forwarded write: ${decoded.reason}`);
    const { request, accepted, leader, reason, index, term } = decoded.message;
    this.waiting.get(request)?.(
      accepted
        ? { accepted: true, ...(index !== undefined && term !== undefined ? { at: { index, term } } : {}) }
        : { accepted: false, leader: leader ?? null, reason: reason ?? 'refused' },
    );
  }
}

/** What a leader's offer tells the member that asked: taken at a place, or refused and why. */
export function submissionOf(offer: Offer): Submission {
  return offer.accepted
    ? { accepted: true, at: { index: offer.index, term: offer.term } }
    : { accepted: false, leader: offer.leader, reason: offer.reason };
}
