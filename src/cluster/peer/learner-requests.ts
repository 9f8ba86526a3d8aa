import { z } from 'zod';
import type { CancelTimer, Clock } from '../../core/clock.js';
import { tryParsePeerAddress } from '../../core/peer/peer-address.js';
import { mayFollowTheLog } from '../../core/peer/protocol-version.js';
import { decodeWire, wireId } from '../../core/peer/wire-fields.js';
import type { PeerStreams } from './peer-streams.js';

/** What learner requests need of this member's Raft. */
export interface LearnerView {
  readonly role: string | null;
  readonly leader: string | null;
  readonly voters: readonly string[];
  readonly learners: readonly string[];
  addLearner(member: string): boolean;
  removeLearner(member: string): void;
}

export interface LearnerRequestsOptions {
  /** This member's id (its address). */
  self: string;
  raft: LearnerView;
  /** Whom a member that does not vote asks: the addresses it was told to join through, and those gossip knows. */
  contacts(): readonly string[];
  /** Whether gossip sees `member` alive now. */
  isAlive(member: string): boolean;
  /** The peer protocol version gossip says `member` speaks; absent: every member may follow the log. */
  protocolOf?(member: string): number | undefined;
  clock: Clock;
  /** How often a member that hears no leader asks again, and a leader looks at its learners (1 s). */
  everyMs?: number;
  onMalformed?: (detail: string) => void;
}

/** At most this many learners at once: each is a copy of the whole log the leader sends. */
const MAX_LEARNERS = 16;
/** At most this many members asked in one round. */
const MAX_ASKED = 8;
const requestSchema = z.object({ member: wireId, forwarded: z.boolean() });
const utf8 = new TextEncoder();

/**
 * A member that does not vote (started with --join, or removed) and hears no leader asks the members it
 * knows to be sent the log; a member that does not lead passes the request to its leader (once), and the
 * leader sends the log to it as a learner, which counts in no majority. So a new node holds the whole log
 * before `sched cluster join` makes it a voter, and its daemon's writes are applied on it meanwhile. The
 * leader stops sending to a learner gossip declares dead.
 */
export class LearnerRequests {
  private timer: CancelTimer | null = null;
  private stopped = false;

  constructor(
    private readonly streams: PeerStreams,
    private readonly options: LearnerRequestsOptions,
  ) {
    streams.handle('learn', (body) => this.take(body));
  }

  start(): void {
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.();
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimer(this.options.everyMs ?? 1_000, () => {
      this.round();
      this.arm();
    });
  }

  private round(): void {
    const { raft, self, isAlive } = this.options;
    if (raft.role === 'leader') {
      for (const learner of raft.learners) if (!isAlive(learner)) raft.removeLearner(learner);
      return;
    }
    if (raft.voters.includes(self) || raft.leader !== null) return;
    const asked = [...new Set(this.options.contacts())].filter((id) => id !== self).slice(0, MAX_ASKED);
    for (const id of asked) this.send(id, { member: self, forwarded: false });
  }

  private take(body: Buffer): void {
    const decoded = decodeWire(body, requestSchema, 1_024);
    if (!decoded.ok) return this.options.onMalformed?.(`learner request: ${decoded.reason}`);
    const { member, forwarded } = decoded.message;
    const { raft, self, isAlive } = this.options;
    if (raft.role === 'leader') {
      const room = raft.learners.includes(member) || raft.learners.length < MAX_LEARNERS;
      if (room && !raft.voters.includes(member) && isAlive(member) && this.mayFollow(member))
        raft.addLearner(member);
      return;
    }
    if (!forwarded && raft.leader !== null && raft.leader !== self)
      this.send(raft.leader, { member, forwarded: true });
  }

  /** An older build is not sent the log: it would apply it otherwise than the others (see mayFollowTheLog). */
  private mayFollow(member: string): boolean {
    const { protocolOf } = this.options;
    return protocolOf === undefined || mayFollowTheLog(protocolOf(member));
  }

  private send(to: string, request: z.infer<typeof requestSchema>): void {
    const address = tryParsePeerAddress(to);
    if (address !== null) this.streams.send(address, 'learn', utf8.encode(JSON.stringify(request)));
  }
}
