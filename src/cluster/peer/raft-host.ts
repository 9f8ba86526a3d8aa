import { randomInt } from 'node:crypto';
import type { CancelTimer, Clock } from '../../core/clock.js';
import type { LogEntry, RaftMessage, Snapshot } from '../../core/consensus/raft-messages.js';
import { dataJson, entryJson } from '../../core/consensus/entry-json.js';
import { LeaderContact } from '../../core/consensus/leader-contact.js';
import {
  RaftNode,
  type RaftDurableState,
  type RaftReady,
  type RaftRole,
  type TransferStart,
} from '../../core/consensus/raft-node.js';
import { MAX_STREAM_FRAME } from '../../core/peer/wire-fields.js';
import type { DurableChanges } from './raft-disk.js';

/** How a host's Raft messages reach the other members (sealed and framed by the peer transport). */
export interface RaftChannel<Data, State> {
  send(message: RaftMessage<Data | null, State>): void;
  /** Messages addressed to this member; a malformed one never gets this far. */
  onMessage(handler: (message: RaftMessage<Data | null, State>) => void): void;
}

/** The replicated state machine: what the committed entries are applied to, on every member alike. */
export interface RaftStateMachine<Data, State> {
  apply(entry: LogEntry<Data | null>): void;
  /**
   * Starts over from a snapshot (after a restart, or one the leader sent). A machine that takes long may
   * return a promise: the host carries out no step until it settles, and none ever after it rejects (the
   * machine has told why, and its member stops).
   */
  restore(state: State): void | Promise<void>;
  /**
   * The state as of the last entry applied, for a snapshot. A machine that keeps its state durable itself
   * may snapshot a mere mark, which its channel sends as the state itself (see snapshotFileChannel); state
   * sent may be of a later entry than the snapshot's only if the machine skips the entries it already applied.
   */
  snapshot(): State;
}

/** Where a host keeps what must survive a restart: a RaftDisk, or memory in a simulation. */
export interface RaftHostDisk<Data, State> {
  load(): RaftDurableState<Data, State>;
  /** Durable before it returns: the host sends nothing a step produced until its changes are kept. */
  persist(changes: DurableChanges<Data, State>): void;
  saveSnapshot(snapshot: Snapshot<State>): void;
}

export interface RaftHostOptions<Data, State> {
  id: string;
  voters: readonly string[];
  disk: RaftHostDisk<Data, State>;
  channel: RaftChannel<Data, State>;
  machine: RaftStateMachine<Data, State>;
  clock: Clock;
  /** One Raft tick; elections time out after electionTicks to twice that. */
  tickMs: number;
  electionTicks: number;
  heartbeatTicks: number;
  /** A snapshot is taken once this many applied entries follow the last one. */
  compactEvery: number;
  /**
   * Applied entries left in the log behind a snapshot (default none), so a member briefly gone (restarted,
   * cut off for seconds) catches up by appends rather than by a snapshot of every row. Only for a machine
   * whose snapshot says how far it has applied and skips entries at or below that (the store's replica):
   * the snapshot is labelled with the log index it is taken at minus these, and the entries after that
   * label are applied to it again.
   */
  retainEntries?: number;
  /**
   * Bytes of entries at most in one append message (default: half the largest frame the peer streams
   * carry, leaving room for the message around them); a proposal larger than this is refused.
   */
  maxAppendBytes?: number;
  /** Uniform in [0, 1): election timeouts and contact numbers (default: crypto), seeded in a simulation. */
  random?: () => number;
  /**
   * Puts off carrying out a step, so that what arrives together (the frames of one read from the network,
   * the proposals of one turn of the event loop) is carried out as one: one write to the disk, one append
   * per follower. Default: setImmediate, after the I/O at hand; a simulation that runs synchronously
   * passes one that calls it at once.
   */
  defer?: (step: () => void) => void;
  /**
   * Whether `member` runs a build that can be handed the leadership (default: every member): a leader hands
   * over (when it leaves, or stops) only to one that can (see protocolFeatures).
   */
  takesTransfer?: (member: string) => boolean;
}

/** Where a proposal went: applied here at `index`, or refused with the leader to ask instead. */
export type ProposalOutcome =
  { applied: true; index: number; term: number } | { applied: false; leader: string | null; reason: string };

/** Where an entry offered went: appended at `index` of the leader's log, or refused with the leader to ask. */
export type Offer =
  | { accepted: true; index: number; term: number }
  | { accepted: false; leader: string | null; reason: string };

interface Waiter {
  term: number;
  settle: (outcome: ProposalOutcome) => void;
}

/**
 * Runs one RaftNode for real: ticks from a timer, messages from the channel, each step's changes made
 * durable on disk before its messages leave, committed entries applied to the state machine in order.
 * A proposal settles once its entry is applied on this member, so a write is read back here at once.
 * A write to the disk that fails is thrown, not retried: a member that cannot keep what it acknowledges
 * must stop (fail-stop is what Raft's safety rests on).
 */
export class RaftHost<Data, State> {
  private node: RaftNode<Data, State> | null = null;
  private cancelTick: CancelTimer | null = null;
  private appliedIndex = 0;
  private readonly waiters = new Map<number, Waiter>();
  private flushing = false;
  private readonly sizes = new WeakMap<object, number>();
  private readonly maxAppendBytes: number;
  private flushAgain = false;
  private flushDeferred = false;
  /** Since when (monotonic) this member has heard no leader, or null while it leads or hears one. */
  private leaderSilentSince: number | null = null;
  private contact: LeaderContact | null = null;
  private wasLeader = false;
  /** A snapshot the machine is still restoring: no step is carried out meanwhile. */
  private restoring: Promise<void> | null = null;
  /** The step whose snapshot the machine restored, to finish (its changes kept, its messages sent). */
  private restoredStep: RaftReady<Data, State> | null = null;

  constructor(private readonly options: RaftHostOptions<Data, State>) {
    this.maxAppendBytes = options.maxAppendBytes ?? MAX_STREAM_FRAME / 2;
  }

  get role(): RaftRole | null {
    return this.node?.currentRole ?? null;
  }

  get term(): number {
    return this.node?.currentTerm ?? 0;
  }

  get leader(): string | null {
    return this.node?.currentLeader ?? null;
  }

  get applied(): number {
    return this.appliedIndex;
  }

  /** How long ago this member was last surely in touch with a leader (0 while it leads): its lease's age. */
  leaseAgeMs(): number {
    return this.contact?.leaseAgeMs(this.options.clock.monotonic()) ?? 0;
  }

  /** When (monotonic) this member was last surely in touch with a leader; null while it leads (or is stopped). */
  leaseContactAt(): number | null {
    return this.contact?.lastSureContact ?? null;
  }

  /** Leading: how long `member` has surely not been in touch with this leader; 0 when it does not lead. */
  memberSilentForMs(member: string): number {
    return this.contact?.memberSilentForMs(member, this.options.clock.monotonic()) ?? 0;
  }

  /** Leading: how long since `member` was last heard by this leader (see LeaderContact); 0 when it does not lead. */
  memberUnheardForMs(member: string): number {
    return this.contact?.memberUnheardForMs(member, this.options.clock.monotonic()) ?? 0;
  }

  /** Leading: `member` reached this leader with a write it forwarded (see LeaderContact.heard). */
  heardFrom(member: string): void {
    if (this.wasLeader) this.contact?.heard(member, this.options.clock.monotonic());
  }

  /** Where this member's log starts: its last snapshot's index (0 before the first). */
  get snapshotIndex(): number {
    return this.node?.snapshotIndex ?? 0;
  }

  /** How long this member has heard no leader (0 while it leads or hears one): a side without a majority grows it. */
  leaderSilentForMs(): number {
    return this.leaderSilentSince === null ? 0 : this.options.clock.monotonic() - this.leaderSilentSince;
  }

  /** The voters in force on this member (those of its log, or forced by a recovery). */
  get voters(): readonly string[] {
    return this.node?.currentVoters ?? [];
  }

  /** Who this member, leading, sends the log to without counting them. */
  get learners(): readonly string[] {
    return this.node?.currentLearners ?? [];
  }

  /** Whether a change of voters is in the log and not committed yet. */
  get changePending(): boolean {
    return this.node?.changePending ?? false;
  }

  /** The voters a recovery forced, while no configuration of the log has superseded them. */
  get forcedVoters(): readonly string[] | null {
    return this.node?.forcedVoters?.voters ?? null;
  }

  /** How much of the log `member` is known to hold (this member leading), or undefined. */
  matchedIndexOf(member: string): number | undefined {
    return this.node?.matchedIndexOf(member);
  }

  /** The highest index this member knows to be committed. */
  get committed(): number {
    return this.node?.committedIndex ?? 0;
  }

  /** Starts sending the log to `member` without counting it (this member leading); false otherwise. */
  addLearner(member: string): boolean {
    const added = this.node?.addLearner(member) ?? false;
    this.deferFlush();
    return added;
  }

  removeLearner(member: string): void {
    this.node?.removeLearner(member);
  }

  /**
   * Proposes `voters` (one added or removed) as the new configuration when this member leads; settles once
   * it is committed and applied here, or refused at once (another change under way, not the leader).
   */
  changeVoters(voters: readonly string[]): Promise<ProposalOutcome> {
    if (this.node === null) return Promise.resolve({ applied: false, leader: null, reason: 'stopped' });
    const proposal = this.node.changeVoters(voters);
    if (!proposal.accepted) {
      const reason = proposal.reason ?? 'not the leader';
      return Promise.resolve({ applied: false, leader: proposal.leader, reason });
    }
    return this.settled(proposal);
  }

  /**
   * Leading: hands the leadership to the voter that holds the most of the log (or `to`), refusing proposals
   * until it is over (an election timeout at most).
   */
  transferLeadership(to?: string): TransferStart {
    if (this.node === null) return { started: false, reason: 'stopped' };
    const start = this.node.transferLeadership(to);
    this.deferFlush();
    return start;
  }

  /**
   * Leading: hands the leadership over and waits until another is elected (this member then follows it) or
   * the hand-over is given up, an election timeout at most; at once otherwise. A leader stopped this way (a
   * restart, an upgrade) leaves the others no election timeout to wait out first.
   */
  async handOver(): Promise<void> {
    if (!this.transferLeadership().started) return;
    const { clock, tickMs, electionTicks } = this.options;
    const deadline = clock.monotonic() + tickMs * (electionTicks + 2);
    while (!this.handedOver() && clock.monotonic() < deadline)
      await new Promise<void>((resolve) => clock.setTimer(tickMs, resolve));
  }

  /**
   * The hand-over is over: given up while still leading, or another leads and this member has heard it. A
   * member that granted its successor's vote follows it only at the successor's first append, which a busy
   * host may take longer to hear than the vote.
   */
  private handedOver(): boolean {
    const node = this.node;
    if (node === null) return true;
    if (node.transferringTo !== null) return false;
    return node.currentRole === 'leader' || node.currentLeader !== null;
  }

  start(): void {
    const { id, voters, disk, channel, machine, electionTicks, heartbeatTicks } = this.options;
    const durable = disk.load();
    if (durable.snapshot) this.holdWhile(machine.restore(durable.snapshot.state), null);
    this.appliedIndex = durable.snapshot?.index ?? 0;
    this.leaderSilentSince = this.options.clock.monotonic();
    // A deposed leader goes on sending until its check-quorum notices, within three election timeouts of its
    // successor's election (see RaftNode's check-quorum rounds).
    const deposedWithinMs = 3 * electionTicks * this.options.tickMs;
    const random = this.options.random ?? (() => randomInt(2 ** 47) / 2 ** 47);
    const firstContact = 1 + Math.floor(random() * (2 ** 47 - 1));
    this.contact = new LeaderContact(this.leaderSilentSince, deposedWithinMs, firstContact);
    this.node = new RaftNode<Data, State>(
      {
        id,
        voters,
        electionTicks,
        heartbeatTicks,
        random,
        maxBytesPerMessage: this.maxAppendBytes,
        entryBytes: (entry) => this.bytesOf(entry),
        takesTransfer: this.options.takesTransfer,
      },
      durable,
    );
    channel.onMessage((message) => {
      if (this.node === null) return;
      this.noteContact(message);
      this.node.step(message);
      this.deferFlush();
    });
    this.armTick();
  }

  private armTick(): void {
    this.cancelTick = this.options.clock.setTimer(this.options.tickMs, () => {
      if (this.node === null) return;
      this.node.tick();
      this.flush();
      this.armTick();
    });
  }

  /** Appends `data` through the leader's log; settles once applied here, or refused at once when not the leader. */
  propose(data: Data): Promise<ProposalOutcome> {
    const appended = this.append(data);
    if (!appended.accepted) {
      const { leader, reason } = appended;
      return Promise.resolve({ applied: false, leader, reason });
    }
    return this.settled(appended);
  }

  private settled(appended: { index: number; term: number }): Promise<ProposalOutcome> {
    const outcome = new Promise<ProposalOutcome>((settle) =>
      this.waiters.set(appended.index, { term: appended.term, settle }),
    );
    this.deferFlush();
    return outcome;
  }

  /**
   * Appends `data` to the log when this member leads, without waiting for it to commit (a leader taking an
   * entry forwarded by a member that waits for it itself); refused at once otherwise.
   */
  offer(data: Data): Offer {
    const appended = this.append(data);
    if (appended.accepted) this.deferFlush();
    return appended;
  }

  private append(data: Data): Offer {
    if (this.node === null) return { accepted: false, leader: null, reason: 'stopped' };
    const bytes = Buffer.byteLength(dataJson(data));
    if (bytes > this.maxAppendBytes) {
      const reason = `too large: ${bytes} bytes, at most ${this.maxAppendBytes} in one entry`;
      return { accepted: false, leader: this.leader, reason };
    }
    const proposal = this.node.propose(data);
    if (!proposal.accepted)
      return { accepted: false, leader: proposal.leader, reason: proposal.reason ?? 'not the leader' };
    return { accepted: true, index: proposal.index, term: proposal.term };
  }

  stop(): void {
    this.cancelTick?.();
    this.cancelTick = null;
    this.node = null;
    for (const [index, waiter] of this.waiters) {
      this.waiters.delete(index);
      waiter.settle({ applied: false, leader: null, reason: 'stopped before it was committed' });
    }
  }

  private deferFlush(): void {
    if (this.flushDeferred) return;
    this.flushDeferred = true;
    (this.options.defer ?? setImmediate)(() => {
      this.flushDeferred = false;
      this.flush();
    });
  }

  /**
   * Persist, then send, then apply: the order RaftReady asks for. A message that arrives while a step is
   * being carried out (a channel may deliver at once) waits for it, so entries are applied in order.
   */
  private flush(): void {
    if (this.flushing) {
      this.flushAgain = true;
      return;
    }
    this.flushing = true;
    try {
      do {
        this.flushAgain = false;
        this.carryOutStep();
      } while (this.flushAgain);
      this.noteLeaderContact();
    } finally {
      this.flushing = false;
    }
  }

  private noteLeaderContact(): void {
    if (this.node === null) return;
    const now = this.options.clock.monotonic();
    if (this.node.hearsLeader()) this.leaderSilentSince = null;
    else this.leaderSilentSince ??= now;
    const leads = this.node.currentRole === 'leader';
    if (leads !== this.wasLeader) {
      if (leads) this.contact?.becameLeader(now);
      else this.contact?.steppedDown(now);
      this.wasLeader = leads;
    }
  }

  /** Takes in the leader-contact numbers a message carries (see LeaderContact). */
  private noteContact(message: RaftMessage<Data | null, State>): void {
    const contact = this.contact;
    if (contact === null || this.node === null) return;
    if (message.type === 'append-response' && message.contact !== undefined && this.wasLeader)
      contact.received(message.from, message.contact, this.options.clock.monotonic());
    else if (message.type === 'append' && message.echo !== undefined && message.term >= this.node.currentTerm)
      contact.echoed(message.echo);
  }

  /** Adds the leader-contact numbers to a message on its way out (see LeaderContact). */
  private stamped(message: RaftMessage<Data | null, State>): RaftMessage<Data | null, State> {
    const contact = this.contact;
    if (contact === null) return message;
    if (message.type === 'append-response')
      return { ...message, contact: contact.stampResponse(this.options.clock.monotonic()) };
    if (message.type === 'append') {
      const echo = contact.echoFor(message.to);
      return echo === undefined ? message : { ...message, echo };
    }
    return message;
  }

  private carryOutStep(): void {
    const node = this.node;
    if (node === null || this.restoring !== null) return;
    const ready = this.restoredStep ?? node.takeReady();
    const { machine } = this.options;
    const installed = ready.snapshot;
    if (installed && this.restoredStep === null && this.holdWhile(machine.restore(installed.state), ready))
      return;
    this.restoredStep = null;
    if (installed) {
      // Restored before the snapshot is kept, which is then what the machine keeps of it (a mere mark): a
      // crash between the two leaves a machine ahead of the log, which skips what it applied.
      this.appliedIndex = installed.index;
      this.settleUpTo(installed.index, null);
      this.options.disk.persist({ ...ready, snapshot: { ...installed, state: machine.snapshot() } });
    } else {
      this.options.disk.persist(ready);
    }
    for (const message of ready.messages) this.options.channel.send(this.stamped(message));
    for (const entry of ready.committed) {
      this.options.machine.apply(entry);
      this.appliedIndex = entry.index;
      this.settleUpTo(entry.index, entry.term);
    }
    const compactTo = this.appliedIndex - (this.options.retainEntries ?? 0);
    if (compactTo - node.snapshotIndex >= this.options.compactEvery) {
      this.options.disk.saveSnapshot(node.compact(compactTo, this.options.machine.snapshot()));
    }
  }

  /**
   * Holds every step while the machine restores a snapshot (`restoring` a promise), then finishes `step` (the
   * one that brought the snapshot; none after a restart) and carries on; whether it holds. Messages that
   * arrive meanwhile are taken in by the node, so the leader's keep this member from starting an election,
   * and their answers leave once the step is finished.
   */
  private holdWhile(restoring: void | Promise<void>, step: RaftReady<Data, State> | null): boolean {
    if (!(restoring instanceof Promise)) return false;
    this.restoring = restoring;
    restoring.then(
      () => {
        this.restoring = null;
        this.restoredStep = step;
        this.flush();
        // What the node took in meanwhile is in its next step.
        this.deferFlush();
      },
      // The machine has told its member why; nothing after the snapshot may be applied without it.
      () => undefined,
    );
    return true;
  }

  /** An entry's size as the wire carries it (JSON), counted once per entry. */
  private bytesOf(entry: LogEntry<unknown>): number {
    let bytes = this.sizes.get(entry);
    if (bytes === undefined) {
      bytes = Buffer.byteLength(entryJson(entry));
      this.sizes.set(entry, bytes);
    }
    return bytes;
  }

  /**
   * Settles the proposals up to `index`: applied when the entry at their index is theirs (same term),
   * lost when another leader's entry took its place (or a snapshot covered it unseen).
   */
  private settleUpTo(index: number, termAtIndex: number | null): void {
    for (const [waiting, waiter] of this.waiters) {
      if (waiting > index) continue;
      this.waiters.delete(waiting);
      if (waiting === index && termAtIndex === waiter.term) {
        waiter.settle({ applied: true, index, term: waiter.term });
      } else {
        waiter.settle({
          applied: false,
          leader: this.leader,
          reason: 'lost to another leader; propose it again',
        });
      }
    }
  }
}
