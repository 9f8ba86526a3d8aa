import { forceVoters } from '../../../src/core/consensus/forced-voters.js';
import { RaftNode, type RaftDurableState, type RaftReady } from '../../../src/core/consensus/raft-node.js';
import type {
  ForcedVoters,
  HardState,
  LogEntry,
  RaftMessage,
  Snapshot,
} from '../../../src/core/consensus/raft-messages.js';
import { randomInt, seededRandom } from './seeded-random.js';

export interface RaftSimulationOptions {
  seed: number;
  voters?: number;
  /** Ticks with faults, then ticks of a healed, lossless network in which every node must catch up. */
  faultyTicks?: number;
  healedTicks?: number;
  lossRate?: number;
  duplicateRate?: number;
  maxDelayTicks?: number;
  /** Per tick: chance the partition changes (a new random split, or healed). */
  partitionRate?: number;
  /** Per tick: chance a running node crashes, and a crashed one restarts. */
  crashRate?: number;
  restartRate?: number;
  /** Per tick: chance the leader (if any) is asked to append a new entry. */
  proposeRate?: number;
  /** Raft's optional extensions, both on unless set false. */
  preVote?: boolean;
  checkQuorum?: boolean;
  /** Hosts beyond the initial voters, which membership changes may add (and voters they may remove). */
  spares?: number;
  /**
   * Per tick: chance the leader (if any) asks to add or remove one voter. A host is added as a learner
   * first, and made a voter by a later change (whether it has caught up or not).
   */
  changeRate?: number;
  /** Per tick: chance the leader (if any) is asked to hand its leadership to a voter (chosen or its pick). */
  transferRate?: number;
  /**
   * The last this many hosts run an older build, which knows neither `timeout-now` nor a vote's `transfer`
   * flag: the others must never hand them the leadership (one sent a `timeout-now` is a violation), and
   * they ignore the flag (as an older build's decoder drops it).
   */
  olderBuilds?: number;
  /**
   * After the faulty ticks, this many of the initial voters are lost for good and the others are recovered
   * with `forceVoters` (every survivor, the same voters), as `sched cluster recover --force` does. Entries
   * only lost hosts applied may be lost; anything a survivor applied must not be, nor may two survivors
   * ever apply different entries at one index.
   */
  loseForGood?: number;
  /** A host compacts its log once this many applied entries follow its snapshot (0: never). */
  compactEvery?: number;
  /** A broken host, for checking that the simulator catches it: votedFor is not persisted. */
  forgetVoteOnRestart?: boolean;
  /** Where each host keeps its durable state (default: in memory); e.g. a RaftDisk on a real file. */
  openDisk?: (hostId: string) => SimulatedDisk;
}

type Entry = LogEntry<string | null>;
/** The simulated state machine is the list of entries applied, so a snapshot is that list. */
type Message = RaftMessage<string | null, Entry[]>;

/** A host's durable state, as RaftDisk keeps it: what survives a crash. */
export interface SimulatedDisk {
  load(): RaftDurableState<string, Entry[]>;
  persist(
    changes: Pick<RaftReady<string, Entry[]>, 'hardState' | 'snapshot' | 'logChanges'> &
      Partial<Pick<RaftReady<string, Entry[]>, 'forcedSettled'>>,
  ): void;
  saveSnapshot(snapshot: Snapshot<Entry[]>): void;
  /** Writes a forced recovery (only the in-memory disk needs to, for `loseForGood`). */
  force?(hardState: HardState, forced: ForcedVoters): void;
}

/**
 * The durable state kept in memory, with RaftDisk's semantics: a SimulatedDisk here, a RaftHost's disk in
 * the member-lease simulation.
 */
export class MemoryDisk<Data = string, State = Entry[]> {
  private state: RaftDurableState<Data, State> = {
    hardState: { term: 0, votedFor: null },
    snapshot: null,
    entries: [],
    forced: null,
  };

  load(): RaftDurableState<Data, State> {
    return this.state;
  }

  persist({
    hardState,
    snapshot,
    logChanges,
    forcedSettled,
  }: Pick<RaftReady<Data, State>, 'hardState' | 'snapshot' | 'logChanges'> &
    Partial<Pick<RaftReady<Data, State>, 'forcedSettled'>>): void {
    if (hardState) this.state = { ...this.state, hardState: { ...hardState } };
    if (forcedSettled) this.state = { ...this.state, forced: null };
    if (snapshot) this.saveSnapshot(snapshot);
    if (logChanges) {
      const { from, entries } = logChanges;
      this.state = {
        ...this.state,
        entries: [...this.state.entries.filter((entry) => entry.index < from), ...entries],
      };
    }
  }

  saveSnapshot(snapshot: Snapshot<State>): void {
    this.state = {
      ...this.state,
      snapshot,
      entries: this.state.entries.filter((entry) => entry.index > snapshot.index),
    };
  }

  force(hardState: HardState, forced: ForcedVoters): void {
    this.state = { ...this.state, hardState: { ...hardState }, forced };
  }
}

export interface RaftSimulationResult {
  seed: number;
  violations: string[];
  proposals: number;
  acknowledged: number;
  leaderTerms: number;
  crashes: number;
  snapshotsInstalled: number;
  votersChanged: number;
  /** Entries committed after a forced recovery (0 without one). */
  acknowledgedAfterRecovery: number;
  /** Leaders that committed their own removal, and a successor was elected after. */
  selfRemovals: number;
  /** The ticks from each such commit to its successor's election, in order, and their sum. */
  successionTicks: number[];
  ticksToSuccessor: number;
  /** `timeout-now` messages sent: leaders that handed their leadership over. */
  timeoutNows: number;
}

interface SimulatedHost {
  id: string;
  node: RaftNode<string, Entry[]> | null;
  disk: SimulatedDisk;
  /** The state machine: what this host applied since it last started (it re-applies after a restart). */
  applied: Entry[];
  /** Everything it ever applied, in any of its lives, by index. */
  appliedEver: Map<number, Entry>;
  wasLeader: boolean;
  /** The term it last led. */
  ledTerm: number;
  lostForGood: boolean;
}

/** Ticks without a leader before a voter stands: its election timeout is in [10, 20). */
export const ELECTION_TICKS = 10;
const HEARTBEAT_TICKS = 2;
const QUIET_TICKS = 50;
const SETTLE_TICKS = 1_000;

/**
 * Runs one Raft group in virtual time under message loss, duplication, delay (and so reordering),
 * partitions, crashes and restarts from what each host persisted, all drawn from one seed. After every
 * step it checks Raft's safety properties (Figure 3 of the paper); at the end, after healing, that every
 * acknowledged entry is on every host.
 */
export function simulateRaft(options: RaftSimulationOptions): RaftSimulationResult {
  return new RaftSimulation(options).run();
}

class RaftSimulation {
  private readonly random: () => number;
  private readonly hosts: SimulatedHost[];
  private readonly hostById = new Map<string, SimulatedHost>();
  private readonly ids: string[];
  private inFlight: { deliverAt: number; message: Message }[] = [];
  private side = new Map<string, number>();
  private now = 0;
  private readonly violations: string[] = [];
  private readonly leaderOfTerm = new Map<number, string>();
  /** Every entry any host applied, by index: all hosts must apply the same one there. */
  private readonly committed = new Map<number, Entry>();
  private readonly acknowledged = new Set<string>();
  private proposals = 0;
  private crashes = 0;
  private snapshotsInstalled = 0;
  private votersChanged = 0;
  private recovered = false;
  private acknowledgedAfterRecovery = 0;
  private readonly initialVoters: string[];
  /** A leader committed its own removal at this tick and term: its successor is awaited. */
  private succession: { since: number; term: number } | null = null;
  private readonly successionTicks: number[] = [];
  /** The removals timed, as `host@term`. */
  private readonly removalsTimed = new Set<string>();
  private timeoutNows = 0;

  constructor(private readonly options: RaftSimulationOptions) {
    this.random = seededRandom(options.seed);
    const voters = options.voters ?? 3;
    this.ids = Array.from({ length: voters + (options.spares ?? 0) }, (_, index) => `n${index + 1}`);
    this.initialVoters = this.ids.slice(0, voters);
    this.hosts = this.ids.map((id) => ({
      id,
      node: null,
      disk: options.openDisk?.(id) ?? new MemoryDisk(),
      applied: [],
      appliedEver: new Map(),
      wasLeader: false,
      ledTerm: 0,
      lostForGood: false,
    }));
    for (const host of this.hosts) {
      this.hostById.set(host.id, host);
      this.boot(host);
    }
  }

  run(): RaftSimulationResult {
    const faulty = this.options.faultyTicks ?? 300;
    for (let tick = 0; tick < faulty && this.violations.length === 0; tick++) {
      this.injectFaults();
      this.advance(true);
      if (tick % 25 === 0) this.checkLogMatching();
    }
    this.side.clear();
    if (this.options.loseForGood) this.recover(this.options.loseForGood);
    for (const host of this.hosts) if (host.node === null && !host.lostForGood) this.boot(host);
    // Proposals stop for the last ticks, so the check sees a quiet cluster rather than one in flight.
    const healed = this.options.healedTicks ?? 200;
    for (let tick = 0; tick < healed && this.violations.length === 0; tick++)
      this.advance(false, tick < healed - QUIET_TICKS);
    // Then quiet until every voter has everything committed: a late election or a voter still catching up
    // may need a while, but the group must get there (liveness), within a bound.
    for (let tick = 0; tick < SETTLE_TICKS && this.violations.length === 0 && !this.settled(); tick++)
      this.advance(false, false);
    if (this.violations.length === 0) this.checkConverged();
    if (this.recovered && this.violations.length === 0 && this.acknowledgedAfterRecovery === 0)
      this.violate('the survivors committed nothing after the forced recovery');
    return {
      seed: this.options.seed,
      violations: this.violations,
      proposals: this.proposals,
      acknowledged: this.acknowledged.size,
      leaderTerms: this.leaderOfTerm.size,
      crashes: this.crashes,
      snapshotsInstalled: this.snapshotsInstalled,
      votersChanged: this.votersChanged,
      acknowledgedAfterRecovery: this.acknowledgedAfterRecovery,
      selfRemovals: this.successionTicks.length,
      successionTicks: this.successionTicks,
      ticksToSuccessor: this.successionTicks.reduce((sum, ticks) => sum + ticks, 0),
      timeoutNows: this.timeoutNows,
    };
  }

  /**
   * `lost` of the initial voters are lost for good; every other host is stopped, recovered with the
   * survivors as its voters, and started again. From then on, what the lost hosts alone applied is
   * forgotten by the checks: only what some survivor applied must never be lost or contradicted.
   */
  private recover(lost: number): void {
    const gone = new Set(this.initialVoters.slice(0, lost));
    const survivors = this.hosts.filter((host) => !gone.has(host.id));
    for (const host of this.hosts) {
      host.node = null;
      host.applied = [];
      host.wasLeader = false;
      host.lostForGood = gone.has(host.id);
    }
    this.inFlight = [];
    this.committed.clear();
    this.acknowledged.clear();
    // A survivor cannot know the terms only lost hosts saw: it may lead one of them again, harmlessly while
    // they never come back. Terms the survivors saw are never reused (an election needs them all).
    for (const [term, leader] of this.leaderOfTerm) if (gone.has(leader)) this.leaderOfTerm.delete(term);
    for (const host of survivors) {
      for (const [index, entry] of host.appliedEver) {
        this.committed.set(index, entry);
        if (entry.data !== null) this.acknowledged.add(entry.data);
      }
      const { hardState, forced } = forceVoters(
        host.disk.load(),
        survivors.map((survivor) => survivor.id),
      );
      host.disk.force!(hardState, forced);
    }
    this.recovered = true;
    this.succession = null;
  }

  private advance(faulty: boolean, proposing = true): void {
    this.now += 1;
    for (const host of this.hosts) {
      if (!host.node) continue;
      host.node.tick();
      this.handleReady(host, faulty);
    }
    const leader = this.hosts.find((host) => host.node?.currentRole === 'leader');
    if (leader && proposing && this.random() < (this.options.proposeRate ?? 0.3))
      this.propose(leader, faulty);
    if (leader && proposing && this.random() < (this.options.changeRate ?? 0))
      this.changeVoters(leader, faulty);
    if (leader && proposing && this.options.transferRate && this.random() < this.options.transferRate)
      this.transferLeadership(leader, faulty);
    this.deliverDue(faulty);
  }

  private propose(host: SimulatedHost, faulty: boolean): void {
    const data = `${host.id}@${this.now}#${this.proposals}`;
    const proposal = host.node!.propose(data);
    if (!proposal.accepted) return;
    this.proposals += 1;
    this.handleReady(host, faulty);
  }

  /**
   * Adds a host that does not vote, as a learner first and as a voter when it is one already, or removes a
   * voter (the leader itself among them), while at least two remain.
   */
  private changeVoters(host: SimulatedHost, faulty: boolean): void {
    const node = host.node!;
    const current = node.currentVoters;
    const outside = this.ids.filter((id) => !current.includes(id));
    const remove = outside.length === 0 || (current.length > 2 && this.random() < 0.5);
    const pool = remove ? current : outside;
    const chosen = pool[randomInt(this.random, 0, pool.length - 1)]!;
    if (!remove && !node.currentLearners.includes(chosen)) node.addLearner(chosen);
    else if (
      node.changeVoters(remove ? current.filter((id) => id !== chosen) : [...current, chosen]).accepted
    )
      this.votersChanged += 1;
    this.handleReady(host, faulty);
  }

  /** To a voter chosen at random, or (half the time) to the leader's own pick. */
  private transferLeadership(host: SimulatedHost, faulty: boolean): void {
    const node = host.node!;
    const others = node.currentVoters.filter((id) => id !== host.id);
    const to =
      others.length > 0 && this.random() < 0.5
        ? others[randomInt(this.random, 0, others.length - 1)]
        : undefined;
    node.transferLeadership(to);
    this.handleReady(host, faulty);
  }

  private isOlderBuild(id: string): boolean {
    return this.ids.indexOf(id) >= this.ids.length - (this.options.olderBuilds ?? 0);
  }

  private deliverDue(faulty: boolean): void {
    const due: { message: Message }[] = [];
    const later: typeof this.inFlight = [];
    for (const item of this.inFlight) (item.deliverAt <= this.now ? due : later).push(item);
    this.inFlight = later;
    shuffle(due, this.random);
    for (const { message } of due) {
      const host = this.hostById.get(message.to)!;
      if (!host.node || !this.connected(message.from, message.to)) continue;
      if (this.isOlderBuild(host.id)) {
        if (message.type === 'timeout-now')
          this.violate(`${message.from} handed its leadership to ${host.id}, of an older build`);
        if (message.type === 'vote' && message.transfer) {
          const { transfer: _unknown, ...older } = message;
          host.node.step(older);
          this.handleReady(host, faulty);
          continue;
        }
      }
      host.node.step(message);
      this.handleReady(host, faulty);
    }
  }

  /** Persist, then send, then apply: the order a real host must keep. */
  private handleReady(host: SimulatedHost, faulty: boolean): void {
    const node = host.node!;
    const ready = node.takeReady();
    host.disk.persist(ready);
    for (const message of ready.messages) this.send(message, faulty);
    if (ready.snapshot) {
      this.snapshotsInstalled += 1;
      this.restore(host, ready.snapshot.state);
    }
    for (const entry of ready.committed) this.apply(host, entry);
    this.compactIfDue(host);
    this.checkLeadership(host);
  }

  /** The state machine starts over from a snapshot: every entry in it is checked as if applied now. */
  private restore(host: SimulatedHost, state: readonly Entry[]): void {
    host.applied = [];
    for (const entry of state) this.apply(host, entry);
  }

  private compactIfDue(host: SimulatedHost): void {
    const every = this.options.compactEvery ?? 16;
    const node = host.node!;
    if (every === 0 || host.applied.length - node.snapshotIndex < every) return;
    host.disk.saveSnapshot(node.compact(host.applied.length, [...host.applied]));
  }

  private send(message: Message, faulty: boolean): void {
    if (message.type === 'timeout-now') this.timeoutNows += 1;
    if (faulty && this.random() < (this.options.lossRate ?? 0.05)) return;
    const maxDelay = faulty ? (this.options.maxDelayTicks ?? 3) : 1;
    this.inFlight.push({ deliverAt: this.now + randomInt(this.random, 0, maxDelay), message });
    if (faulty && this.random() < (this.options.duplicateRate ?? 0.02))
      this.inFlight.push({ deliverAt: this.now + randomInt(this.random, 0, maxDelay * 2), message });
  }

  private apply(host: SimulatedHost, entry: Entry): void {
    if (entry.index !== host.applied.length + 1)
      this.violate(`${host.id} applied index ${entry.index} after ${host.applied.length}`);
    host.applied.push(entry);
    host.appliedEver.set(entry.index, entry);
    const known = this.committed.get(entry.index);
    if (known && (known.term !== entry.term || known.data !== entry.data))
      this.violate(
        `state machine safety: ${host.id} applied ${describe(entry)} where another applied ${describe(known)}`,
      );
    if (!known) this.committed.set(entry.index, entry);
    // Applied anywhere means committed: a client may have been told so, and it must never be lost.
    if (entry.data !== null && !this.acknowledged.has(entry.data)) {
      this.acknowledged.add(entry.data);
      if (this.recovered) this.acknowledgedAfterRecovery += 1;
    }
  }

  private checkLeadership(host: SimulatedHost): void {
    const node = host.node!;
    const leads = node.currentRole === 'leader';
    if (leads) {
      const holder = this.leaderOfTerm.get(node.currentTerm);
      if (holder !== undefined && holder !== host.id)
        this.violate(`election safety: ${holder} and ${host.id} both lead term ${node.currentTerm}`);
      this.leaderOfTerm.set(node.currentTerm, host.id);
      if (!host.wasLeader) {
        this.checkLeaderCompleteness(host);
        this.noteSuccessor(node.currentTerm);
      }
      host.ledTerm = node.currentTerm;
    }
    if (leads || host.wasLeader) this.noteRemoval(host);
    host.wasLeader = leads;
  }

  /**
   * A leader (or one that just stepped down, in the term it led) has committed its own removal: how long the
   * rest take to elect a successor from then is measured.
   */
  private noteRemoval(host: SimulatedHost): void {
    const node = host.node!;
    const removal = `${host.id}@${node.currentTerm}`;
    if (node.currentVoters.includes(host.id) || node.changePending || node.currentTerm !== host.ledTerm)
      return;
    // Timed once: a leader that leads on, unaware it has a successor, is not a new removal.
    if (this.removalsTimed.has(removal)) return;
    this.removalsTimed.add(removal);
    if (this.succession === null) this.succession = { since: this.now, term: node.currentTerm };
  }

  private noteSuccessor(term: number): void {
    const succession = this.succession;
    if (succession === null || term <= succession.term) return;
    this.successionTicks.push(this.now - succession.since);
    this.succession = null;
  }

  private checkLeaderCompleteness(host: SimulatedHost): void {
    for (const [index, entry] of this.committed) {
      // Compacted entries were checked as this node applied them.
      if (index <= host.node!.snapshotIndex) continue;
      const own = host.node!.entryAt(index);
      if (!own || own.term !== entry.term || own.data !== entry.data)
        this.violate(
          `leader completeness: ${host.id} leads term ${host.node!.currentTerm} without committed ${describe(entry)}`,
        );
    }
  }

  /** Where two stored logs hold an entry with the same index and term, every entry before it is the same. */
  private checkLogMatching(): void {
    const logs = this.hosts.map((host) => ({
      id: host.id,
      byIndex: new Map(host.disk.load().entries.map((entry) => [entry.index, entry])),
    }));
    for (let a = 0; a < logs.length; a++)
      for (let b = a + 1; b < logs.length; b++) {
        const left = logs[a]!;
        const right = logs[b]!;
        const common = [...left.byIndex.keys()]
          .filter((index) => right.byIndex.has(index))
          .sort((x, y) => y - x);
        const highestShared = common.find(
          (index) => left.byIndex.get(index)!.term === right.byIndex.get(index)!.term,
        );
        if (highestShared === undefined) continue;
        for (const index of common) {
          if (index > highestShared) continue;
          const x = left.byIndex.get(index)!;
          const y = right.byIndex.get(index)!;
          if (x.term !== y.term || x.data !== y.data)
            this.violate(`log matching: ${left.id} and ${right.id} differ at ${index} below a shared entry`);
        }
      }
  }

  /**
   * A leader has committed its whole log and every voter has applied it. Until a leader commits an entry of
   * its own term, the entries of earlier terms it holds are not committed by it (§5.4.2), though an earlier
   * leader may have committed, applied and acknowledged them: a leader elected a tick ago, with nothing of
   * its own committed yet, is not a settled group (seed 3928 of the voter-change case ended there).
   */
  private settled(): boolean {
    const leader = this.hosts.find((host) => host.node?.currentRole === 'leader');
    return (
      leader !== undefined &&
      leader.node!.committedIndex >= leader.node!.lastIndex &&
      this.lagging().length === 0
    );
  }

  /** The voters that have not applied all the leader committed; every host when there is no leader. */
  private lagging(): SimulatedHost[] {
    const leader = this.hosts.find((host) => host.node?.currentRole === 'leader');
    if (!leader) return this.hosts;
    const target = leader.node!.committedIndex;
    const members = leader.node!.currentVoters;
    return this.hosts.filter((host) => members.includes(host.id) && host.applied.length < target);
  }

  private checkConverged(): void {
    const leader = this.hosts.find((host) => host.node?.currentRole === 'leader');
    if (!leader) return this.violate('no leader after healing');
    const { committedIndex, lastIndex } = leader.node!;
    if (committedIndex < lastIndex)
      this.violate(
        `${leader.id} leads but has committed ${committedIndex} of its ${lastIndex} entries after healing`,
      );
    for (const host of this.lagging())
      this.violate(
        `${host.id} has not applied all ${leader.node!.committedIndex} committed entries after healing`,
      );
    const members = leader.node!.currentVoters;
    for (const host of this.hosts.filter((candidate) => members.includes(candidate.id))) {
      const applied = new Set(host.applied.map((entry) => entry.data));
      for (const data of this.acknowledged)
        if (!applied.has(data)) this.violate(`acknowledged ${data} is not on ${host.id} after healing`);
    }
  }

  private injectFaults(): void {
    if (this.random() < (this.options.partitionRate ?? 0.02)) {
      this.side.clear();
      if (this.random() < 0.7) for (const id of this.ids) this.side.set(id, randomInt(this.random, 0, 1));
    }
    for (const host of this.hosts) {
      if (host.lostForGood) continue;
      if (host.node && this.random() < (this.options.crashRate ?? 0.005)) {
        host.node = null;
        host.applied = [];
        host.wasLeader = false;
        this.crashes += 1;
      } else if (!host.node && this.random() < (this.options.restartRate ?? 0.1)) this.boot(host);
    }
  }

  private boot(host: SimulatedHost): void {
    const durable = host.disk.load();
    const hardState = this.options.forgetVoteOnRestart
      ? { ...durable.hardState, votedFor: null }
      : durable.hardState;
    host.applied = durable.snapshot ? [...durable.snapshot.state] : [];
    host.node = new RaftNode<string, Entry[]>(
      {
        id: host.id,
        // A spare joins as a learner: it takes the voters from the leader's log.
        voters: this.initialVoters.includes(host.id) ? this.initialVoters : [],
        electionTicks: ELECTION_TICKS,
        heartbeatTicks: HEARTBEAT_TICKS,
        maxEntriesPerMessage: 8,
        random: this.random,
        preVote: this.options.preVote ?? true,
        checkQuorum: this.options.checkQuorum ?? true,
        // An older build hands its leadership to no one; a newer one to no older build.
        takesTransfer: (member) => !this.isOlderBuild(host.id) && !this.isOlderBuild(member),
      },
      { hardState, snapshot: durable.snapshot, entries: [...durable.entries], forced: durable.forced },
    );
  }

  private connected(from: string, to: string): boolean {
    return (this.side.get(from) ?? 0) === (this.side.get(to) ?? 0);
  }

  private violate(what: string): void {
    this.violations.push(`tick ${this.now}: ${what}`);
  }
}

function describe(entry: Entry): string {
  return `#${entry.index} (term ${entry.term}, ${entry.data ?? 'no-op'})`;
}

function shuffle<T>(items: T[], random: () => number): void {
  for (let index = items.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [items[index], items[other]] = [items[other]!, items[index]!];
  }
}
