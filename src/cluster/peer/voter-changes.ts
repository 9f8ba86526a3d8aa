import { z } from 'zod';
import type { Clock } from '../../core/clock.js';
import { settledWithin, TIMED_OUT } from '../../daemon/clock.js';
import { majority } from '../../core/consensus/quorum.js';
import { mayFollowTheLog } from '../../core/peer/protocol-version.js';
import { SchedError } from '../../core/errors.js';
import { tryParsePeerAddress } from '../../core/peer/peer-address.js';
import { decodeWire, wireCount, wireId } from '../../core/peer/wire-fields.js';
import type { PeerStreams } from './peer-streams.js';
import type { ProposalOutcome } from './raft-host.js';
import { voterChangeRefusal } from './voter-change-refusals.js';

/** One voter added (`sched cluster join`) or removed (`sched cluster leave`). */
export interface VoterChange {
  action: 'add' | 'remove';
  member: string;
}

/** The configuration committed by a change: its voters, and the leader that made it. */
export interface VoterChangeResult {
  voters: string[];
  leader: string;
  index: number;
}

/** What voter changes need of this member's Raft (a RaftHost). */
export interface VoterHost {
  readonly role: string | null;
  readonly leader: string | null;
  readonly voters: readonly string[];
  readonly changePending: boolean;
  readonly committed: number;
  readonly applied: number;
  matchedIndexOf(member: string): number | undefined;
  addLearner(member: string): boolean;
  removeLearner(member: string): void;
  changeVoters(voters: readonly string[]): Promise<ProposalOutcome>;
}

export interface VoterChangesOptions {
  self: string;
  raft: VoterHost;
  /** Whether gossip sees `member` alive now. */
  isAlive(member: string): boolean;
  /** The peer protocol version gossip says `member` speaks; absent: any member may be added. */
  protocolOf?(member: string): number | undefined;
  clock: Clock;
  /** How long a new member has to catch up with the log as a learner before it is made a voter (30 s). */
  catchUpWithinMs?: number;
  /** How long the leader waits for a change to be committed (30 s). */
  commitWithinMs?: number;
  onMalformed?: (detail: string) => void;
}

const changeSchema = z.object({ action: z.enum(['add', 'remove']), member: wireId });
const requestSchema = z.object({ request: wireCount, from: wireId, change: changeSchema });
const replySchema = z.union([
  z.object({
    request: wireCount,
    ok: z.literal(true),
    voters: z.array(wireId).max(64),
    leader: wireId,
    index: wireCount,
  }),
  z.object({
    request: wireCount,
    ok: z.literal(false),
    error: z.object({
      code: z.string().max(40),
      message: z.string().max(1_000),
      hint: z.string().max(1_000).optional(),
    }),
  }),
]);
const utf8 = new TextEncoder();
const POLL_MS = 100;

/**
 * Adds or removes one voter, asked on any member: a member that does not lead sends the change to the
 * leader and waits for its answer. The leader makes one change at a time: it checks the change (the member
 * alive in gossip for an add, a voter for a remove, a live majority left either way, as etcd's strict
 * reconfiguration check does), lets a new member catch up with the log as a learner, then proposes the new
 * configuration and answers once it is committed.
 */
export class VoterChanges {
  private requests = 0;
  private readonly waiting = new Map<number, (reply: z.infer<typeof replySchema>) => void>();
  private under: VoterChange | null = null;

  constructor(
    private readonly streams: PeerStreams,
    private readonly options: VoterChangesOptions,
  ) {
    streams.handle('voters', (body) => void this.take(body));
    streams.handle('voters-reply', (body) => this.answered(body));
  }

  /** Makes the change through the leader; resolves once it is committed (and applied here, when it can be). */
  async change(change: VoterChange): Promise<VoterChangeResult> {
    const { raft, self } = this.options;
    const result = raft.role === 'leader' ? await this.lead(change) : await this.forward(change);
    // Read your own change: `cluster status` here shows it at once (a member removed may never apply it).
    if (!(change.action === 'remove' && change.member === self))
      await this.until(() => raft.applied >= result.index, 5_000);
    return result;
  }

  private async forward(change: VoterChange): Promise<VoterChangeResult> {
    const { raft, self } = this.options;
    const leader = raft.leader === null || raft.leader === self ? null : raft.leader;
    const address = leader === null ? null : tryParsePeerAddress(leader);
    if (leader === null || address === null) throw voterChangeRefusal('no-leader', { raft, self });
    this.requests += 1;
    const request = this.requests;
    const commitWithin = this.options.commitWithinMs ?? 30_000;
    const catchUpWithin = this.options.catchUpWithinMs ?? 30_000;
    const reply = new Promise<z.infer<typeof replySchema>>((resolve) => this.waiting.set(request, resolve));
    this.streams.send(address, 'voters', utf8.encode(JSON.stringify({ request, from: self, change })));
    try {
      const answer = await settledWithin(this.options.clock, reply, commitWithin + catchUpWithin + 5_000);
      if (answer === TIMED_OUT) throw voterChangeRefusal('leader-silent', { leader });
      if (!answer.ok) throw SchedError.fromShape(answer.error as never);
      return { voters: answer.voters, leader: answer.leader, index: answer.index };
    } finally {
      this.waiting.delete(request);
    }
  }

  /** On the leader: answer a change another member forwarded. */
  private async take(body: Buffer): Promise<void> {
    const decoded = decodeWire(body, requestSchema, 4_096);
    if (!decoded.ok) return this.options.onMalformed?.(`voter change: ${decoded.reason}`);
    const { request, from, change } = decoded.message;
    const to = tryParsePeerAddress(from);
    if (to === null) return this.options.onMalformed?.(`voter change from ${from}: not an address`);
    let reply: z.infer<typeof replySchema>;
    try {
      reply = { request, ok: true, ...(await this.lead(change)) };
    } catch (error) {
      const refusal =
        error instanceof SchedError
          ? error
          : voterChangeRefusal('failed', { reason: (error as Error).message });
      const { code, message, hint } = refusal.toShape();
      reply = {
        request,
        ok: false,
        error: { code, message: message.slice(0, 1_000), hint: hint?.slice(0, 1_000) },
      };
    }
    this.streams.send(to, 'voters-reply', utf8.encode(JSON.stringify(reply)));
  }

  private answered(body: Buffer): void {
    const decoded = decodeWire(body, replySchema, 64 * 1_024);
    if (!decoded.ok) return this.options.onMalformed?.(`answer to a voter change: ${decoded.reason}`);
    this.waiting.get(decoded.message.request)?.(decoded.message);
  }

  /** The leader's part: one change at a time, checked, caught up, committed. */
  private async lead(change: VoterChange): Promise<VoterChangeResult> {
    const { raft, self } = this.options;
    if (raft.role !== 'leader') throw voterChangeRefusal('no-leader', { raft, self });
    if (this.under !== null) throw voterChangeRefusal('busy', { under: this.under });
    this.under = change;
    try {
      const next = this.checked(change);
      if (change.action === 'add') await this.catchUp(change.member);
      return await this.commit(next);
    } finally {
      this.under = null;
    }
  }

  /** The voters after `change`, or why it is refused; nothing is changed by a refusal. */
  private checked(change: VoterChange): string[] {
    const { raft, isAlive, self } = this.options;
    const voters = [...raft.voters];
    const { member, action } = change;
    if (raft.changePending) throw voterChangeRefusal('pending', {});
    if (action === 'add' && voters.includes(member))
      throw voterChangeRefusal('already-voter', { member, voters });
    if (action === 'remove' && !voters.includes(member))
      throw voterChangeRefusal('not-voter', { member, voters });
    if (action === 'remove' && voters.length === 1) throw voterChangeRefusal('last-voter', { member });
    if (action === 'add' && !isAlive(member)) throw voterChangeRefusal('not-alive', { member, self });
    const { protocolOf } = this.options;
    if (action === 'add' && protocolOf !== undefined && !mayFollowTheLog(protocolOf(member)))
      throw voterChangeRefusal('older-build', { member, version: protocolOf(member) ?? 1 });
    const next = action === 'add' ? [...voters, member] : voters.filter((voter) => voter !== member);
    const alive = next.filter((voter) => voter === self || isAlive(voter));
    if (alive.length < majority(next.length))
      throw voterChangeRefusal('no-live-majority', { change, next, alive });
    return next;
  }

  /** Sends the log to a new member as a learner until it holds what was committed when the change began. */
  private async catchUp(member: string): Promise<void> {
    const { raft } = this.options;
    const target = raft.committed;
    if (!raft.addLearner(member)) throw voterChangeRefusal('no-leader', { raft, self: this.options.self });
    const caughtUp = await this.until(
      () => raft.role !== 'leader' || (raft.matchedIndexOf(member) ?? 0) >= target,
      this.options.catchUpWithinMs ?? 30_000,
    );
    if (raft.role !== 'leader') throw voterChangeRefusal('lost-leadership', {});
    if (!caughtUp)
      throw voterChangeRefusal('behind', { member, held: raft.matchedIndexOf(member) ?? 0, target });
  }

  private async commit(next: string[]): Promise<VoterChangeResult> {
    const { raft, clock, self } = this.options;
    // A leader just elected may not have committed an entry of its term yet: that takes a heartbeat or two.
    const settleBy = clock.monotonic() + 5_000;
    for (;;) {
      const outcome = await settledWithin(
        clock,
        raft.changeVoters(next),
        this.options.commitWithinMs ?? 30_000,
      );
      if (outcome === TIMED_OUT) throw voterChangeRefusal('not-committed', { next });
      if (outcome.applied) return { voters: [...raft.voters], leader: self, index: outcome.index };
      const waitForTerm = outcome.reason === 'no entry of this leader’s term is committed yet';
      if (!waitForTerm || clock.monotonic() >= settleBy)
        throw voterChangeRefusal(raft.role === 'leader' ? 'failed' : 'lost-leadership', {
          reason: outcome.reason,
        });
      await this.sleep(POLL_MS);
    }
  }

  /** Polls `done` until it holds (true) or `withinMs` passes (false). */
  private async until(done: () => boolean, withinMs: number): Promise<boolean> {
    const deadline = this.options.clock.monotonic() + withinMs;
    while (!done()) {
      if (this.options.clock.monotonic() >= deadline) return false;
      await this.sleep(POLL_MS);
    }
    return true;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.options.clock.setTimer(ms, resolve));
  }
}
