import { QuorumWatch } from '../../../src/cluster/peer/quorum-watch.js';
import { PEER_RAFT_TIMING } from '../../../src/cluster/peer/peer-replica.js';
import { RaftHost } from '../../../src/cluster/peer/raft-host.js';
import {
  memberLeaseExpired,
  memberSurelyStopped,
  type MemberLeaseBounds,
} from '../../../src/core/cluster/member-lease.js';
import type { LogEntry, RaftMessage } from '../../../src/core/consensus/raft-messages.js';
import { PEER_MEMBER_LEASE } from '../../../src/daemon/cluster/peer-membership.js';
import { DEFAULT_KILL_GRACE_MS } from '../../../src/daemon/executor/command-executor.js';
import { FaultyLinks, NO_FAULTS, type LinkFaults } from './faulty-links.js';
import { MemoryDisk } from './raft-simulation.js';
import { RunsWatch } from './runs-watch.js';
import { randomInt, seededRandom } from './seeded-random.js';
import { DriftingClock, VirtualTime } from './virtual-time.js';

export interface MemberLeaseSimulationOptions {
  seed: number;
  members?: number;
  /** Real ms with faults, then real ms of a healed, lossless network with every member up. */
  faultyMs?: number;
  healedMs?: number;
  /** Loss, duplication and delay: drawn per seed up to these unless given. */
  faults?: Partial<LinkFaults>;
  /** Every 100 ms (real) of the faulty part: chance the cuts change (healed, a partition, one-way cuts). */
  cutRate?: number;
  /** Of the changes that cut, the share that are one-way cuts rather than partitions (default a half). */
  oneWayShare?: number;
  /** Of the links cut one way, the share left flaky instead (80 to 100 % lost) (default 0.3). */
  flakyShare?: number;
  /** Every 100 ms: chance an up member crashes, and a crashed one restarts. */
  crashRate?: number;
  restartRate?: number;
  /** How far clock rates really stray (default: the bound the lease assumes). */
  actualDrift?: number;
  /** The bounds the majority drops members by (default PEER_MEMBER_LEASE). */
  lease?: MemberLeaseBounds;
  /** A broken member, for checking the simulation catches it: the lease it keeps its runs by. */
  memberLease?: MemberLeaseBounds;
  /** The daemon as it was: a fire applied while the lease is expired starts its run all the same. */
  startWhileExpired?: boolean;
  /** Whether members fire now and then on their own (default true; a script may fire them instead). */
  randomFires?: boolean;
  /** Faults at set times instead of random ones (the random cuts and crashes are off unless rates are given). */
  script?: readonly ScriptedStep[];
  /** Called with each notable event, for replaying a failing seed by eye. */
  trace?: (line: string) => void;
}

/** What a scripted step may do to the simulated cluster. */
export interface SimulationControl {
  readonly members: readonly string[];
  /** The member leading now (the newest term's), or null. */
  leader(): string | null;
  links: FaultyLinks<unknown>;
  crash(member: string): void;
  boot(member: string): void;
  /** `member` fires a once-job now (forwarded to the leader it knows). */
  fire(member: string): void;
}

export interface ScriptedStep {
  at: number;
  act(control: SimulationControl): void;
}

export interface MemberLeaseSimulationResult {
  seed: number;
  violations: string[];
  fires: number;
  runsStarted: number;
  runsKilled: number;
  runsStartedExpired: number;
  /** Fires applied while the member's lease was expired, whose runs it refused to start. */
  runsRefused: number;
  /** Instants at which a leader could drop a member (its lease surely over) that had no run alive: the fine case. */
  dropsSafe: number;
  crashes: number;
  leaderTerms: number;
}

/** A write forwarded to the leader (CommandForwarding), or a Raft message. */
type Wire = { raft: RaftMessage<string | null, string[]> } | { forward: string };

interface Life {
  number: number;
  clock: DriftingClock;
  host: RaftHost<string, string[]>;
  watch: QuorumWatch;
  /** The fires applied on this member, in this life (restored from snapshots). */
  applied: Set<string>;
  nextFire: number;
}

interface Member {
  id: string;
  disk: MemoryDisk<string, string[]>;
  life: Life | null;
  lives: number;
}

const MAX_VIOLATIONS = 3;

/**
 * The member lease on runs, over real RaftHosts in virtual time: each member fires once-jobs by forwarding
 * the fire to the leader and starts the run when the fire is applied on it (as the daemon does), and kills
 * its runs when QuorumWatch says its lease ran out; clocks drift within the bound, links lose, delay,
 * duplicate and reorder, are cut both ways or one way, members crash (their runs with them) and restart
 * from their disk. Before each instant it checks what the majority could do: a leader that could still
 * commit, whose clock says a member surely stopped (`memberSurelyStopped`, what PeerCluster drops a member
 * by, SWIM taken as saying dead at the worst moment), must find no run of that member alive. And Raft's:
 * one leader per term, committed entries never changed, every committed fire on every member after healing.
 */
export function simulateMemberLeases(options: MemberLeaseSimulationOptions): MemberLeaseSimulationResult {
  return new MemberLeaseSimulation(options).run();
}

class MemberLeaseSimulation {
  private readonly random: () => number;
  private readonly time = new VirtualTime();
  private readonly links: FaultyLinks<Wire>;
  private readonly members: Member[];
  private readonly lease: MemberLeaseBounds;
  private readonly memberLease: MemberLeaseBounds;
  private readonly runs = new RunsWatch(() => this.time.now);
  private readonly violations: string[] = [];
  private readonly leaderOfTerm = new Map<number, string>();
  private readonly committed = new Map<number, string | null>();
  private readonly fired = new Set<string>();
  private crashes = 0;
  private dropsSafe = 0;
  private readonly quietFrom: number;

  constructor(private readonly options: MemberLeaseSimulationOptions) {
    this.random = seededRandom(options.seed);
    this.lease = options.lease ?? PEER_MEMBER_LEASE;
    this.memberLease = options.memberLease ?? this.lease;
    const given = options.faults ?? {};
    this.links = new FaultyLinks(this.time, this.random, {
      lossRate: given.lossRate ?? this.random() * 0.3,
      duplicateRate: given.duplicateRate ?? this.random() * 0.1,
      minDelayMs: given.minDelayMs ?? 1,
      maxDelayMs: given.maxDelayMs ?? randomInt(this.random, 5, 400),
    });
    this.quietFrom = (options.faultyMs ?? 40_000) + (options.healedMs ?? 15_000) - 5_000;
    this.members = Array.from({ length: options.members ?? 3 }, (_, i) => ({
      id: `n${i + 1}`,
      disk: new MemoryDisk<string, string[]>(),
      life: null,
      lives: 0,
    }));
  }

  run(): MemberLeaseSimulationResult {
    for (const member of this.members) this.boot(member);
    const faultyMs = this.options.faultyMs ?? 40_000;
    this.everyStep(faultyMs);
    for (const step of this.options.script ?? []) this.time.at(step.at, () => step.act(this.control()));
    this.time.runUntil(faultyMs, () => this.check());
    this.links.heal();
    this.links.faults = NO_FAULTS;
    for (const member of this.members) if (member.life === null) this.boot(member);
    this.time.runUntil(this.quietFrom + 5_000, () => this.check());
    if (this.violations.length === 0) this.checkEveryFireEverywhere();
    return {
      seed: this.options.seed,
      violations: this.violations,
      fires: this.fired.size,
      runsStarted: this.runs.started,
      runsKilled: this.runs.killed,
      runsStartedExpired: this.runs.startedExpired,
      runsRefused: this.runs.refused,
      dropsSafe: this.dropsSafe,
      crashes: this.crashes,
      leaderTerms: this.leaderOfTerm.size,
    };
  }

  private trace(line: string): void {
    this.options.trace?.(`${this.time.now.toFixed(1)} ${line}`);
  }

  /** Faults every 100 ms of the faulty part: cuts that change, crashes and restarts. */
  private everyStep(until: number): void {
    const step = () => {
      if (this.time.now >= until || this.violations.length >= MAX_VIOLATIONS) return;
      const scripted = this.options.script !== undefined;
      if (this.random() < (this.options.cutRate ?? (scripted ? 0 : 0.02))) this.changeCuts();
      for (const member of this.members) {
        if (member.life !== null && this.random() < (this.options.crashRate ?? (scripted ? 0 : 0.002)))
          this.crash(member);
        else if (member.life === null && this.random() < (this.options.restartRate ?? (scripted ? 0 : 0.05)))
          this.boot(member);
      }
      this.time.at(this.time.now + 100, step);
    };
    this.time.at(100, step);
  }

  private control(): SimulationControl {
    const byId = (id: string) => this.members.find((member) => member.id === id)!;
    return {
      members: this.members.map((member) => member.id),
      leader: () => {
        const leaders = this.members.filter((member) => member.life?.host.role === 'leader');
        leaders.sort((a, b) => b.life!.host.term - a.life!.host.term);
        return leaders[0]?.id ?? null;
      },
      links: this.links as FaultyLinks<unknown>,
      crash: (id) => byId(id).life !== null && this.crash(byId(id)),
      boot: (id) => byId(id).life === null && this.boot(byId(id)),
      fire: (id) => {
        const member = byId(id);
        if (member.life !== null) this.fire(member, member.life);
      },
    };
  }

  private changeCuts(): void {
    const ids = this.members.map((member) => member.id);
    this.links.heal();
    if (this.random() < 0.3) {
      // healed
    } else if (this.random() >= (this.options.oneWayShare ?? 0.5)) {
      const side = ids.filter(() => this.random() < 0.5);
      this.links.partition([side, ids.filter((id) => !side.includes(id))]);
    } else {
      // One-way cuts: some links go dead (or nearly) in one direction only (a member hears the leader, not
      // the reverse; or only a message now and then gets through).
      for (const from of ids)
        for (const to of ids) {
          if (from === to || this.random() >= 0.25) continue;
          if (this.random() < (this.options.flakyShare ?? 0.3))
            this.links.degrade(from, to, 0.8 + this.random() * 0.2);
          else this.links.cut(from, to);
        }
    }
    this.trace(`cuts: ${this.links.describeCuts()}`);
  }

  private boot(member: Member): void {
    const drift = this.options.actualDrift ?? this.lease.maxDrift;
    const clock = new DriftingClock(this.time, 1 - drift + this.random() * 2 * drift, this.random() * 1e6);
    const number = ++member.lives;
    const applied = new Set<string>();
    let receive: ((message: RaftMessage<string | null, string[]>) => void) | null = null;
    const host: RaftHost<string, string[]> = new RaftHost<string, string[]>({
      id: member.id,
      voters: this.members.map((each) => each.id),
      disk: member.disk,
      channel: {
        send: (message) => this.links.send(member.id, message.to, { raft: message }),
        onMessage: (handler) => (receive = handler),
      },
      machine: {
        apply: (entry) => this.applied(member, entry),
        restore: (state) => {
          applied.clear();
          for (const fire of state) applied.add(fire);
        },
        snapshot: () => [...applied],
      },
      clock,
      ...PEER_RAFT_TIMING,
      compactEvery: 40,
      random: seededRandom(Math.floor(this.random() * 2 ** 32)),
      // The simulation runs synchronously: each step is carried out as it is taken.
      defer: (step) => step(),
    });
    const watch = new QuorumWatch({
      leaderSilentForMs: () => host.leaderSilentForMs(),
      clock,
      onLost: () => undefined,
      onRegained: () => undefined,
      leaseContactAt: () => host.leaseContactAt(),
      lease: this.memberLease,
      onLeaseExpired: () => {
        this.trace(`${member.id} lease expired: kills its runs`);
        this.runs.kill(member.id, DEFAULT_KILL_GRACE_MS / clock.rate);
      },
    });
    member.life = { number, clock, host, watch, applied, nextFire: 0 };
    this.links.receiveAt(member.id, (wire, from) => {
      if ('raft' in wire) return receive?.(wire.raft);
      // As CommandForwarding takes a forwarded write.
      if (host.role !== 'leader') return;
      host.heardFrom(from);
      host.offer(wire.forward);
    });
    host.start();
    watch.start();
    if (this.options.randomFires ?? true) this.armFires(member, member.life);
    this.trace(`${member.id} starts life ${number} (clock rate ${clock.rate.toFixed(3)})`);
  }

  private crash(member: Member): void {
    const life = member.life!;
    life.watch.stop();
    life.host.stop();
    life.clock.stop();
    member.life = null;
    this.links.receiveAt(member.id, null);
    this.runs.crashed(member.id);
    this.crashes += 1;
    this.trace(`${member.id} crashes`);
  }

  /** A member fires a once-job now and then: through the leader's log, the run starting once it is applied here. */
  private armFires(member: Member, life: Life): void {
    life.clock.setTimer(randomInt(this.random, 300, 3_000), () => {
      // Quiet for the last seconds, so the check after healing sees a settled log, not one in flight.
      if (this.time.now > this.quietFrom) return;
      this.fire(member, life);
      this.armFires(member, life);
    });
  }

  private fire(member: Member, life: Life): void {
    const fire = `${member.id}/${life.number}/${++life.nextFire}`;
    const { host } = life;
    if (host.role === 'leader') void host.propose(fire);
    else if (host.leader !== null) this.links.send(member.id, host.leader, { forward: fire });
    this.trace(`${member.id} fires ${fire} (leader ${host.leader})`);
  }

  private applied(member: Member, entry: LogEntry<string | null>): void {
    const life = member.life!;
    const seen = this.committed.get(entry.index);
    if (seen === undefined) this.committed.set(entry.index, entry.data);
    else if (seen !== entry.data)
      this.violate(`${member.id} applied ${entry.data} at ${entry.index}, where ${seen} was committed`);
    // A fire applied twice (a forwarded write that arrived twice) is one fire: the store's idempotency.
    if (entry.data === null || life.applied.has(entry.data)) return;
    life.applied.add(entry.data);
    this.fired.add(entry.data);
    const [by, lifeNumber] = entry.data.split('/');
    if (by !== member.id || Number(lifeNumber) !== life.number) return;
    // The daemon refuses to start a once-job's run while its lease is expired (RunLauncher's refuseLaunch).
    const expired = memberLeaseExpired(life.host.leaseAgeMs(), this.memberLease);
    if (expired && !this.options.startWhileExpired) {
      this.runs.refused += 1;
      this.trace(`${member.id} refuses run ${entry.data}: its lease is expired`);
      return;
    }
    this.runs.start(member.id, entry.data, randomInt(this.random, 500, 20_000), expired);
    this.trace(`${member.id} starts run ${entry.data}${expired ? ' with its lease expired' : ''}`);
  }

  /** Before each instant: what the majority could do now, and Raft's election safety. */
  private check(): void {
    if (this.violations.length >= MAX_VIOLATIONS) return;
    for (const leader of this.members) {
      const host = leader.life?.host;
      if (host === undefined || host.role !== 'leader') continue;
      const known = this.leaderOfTerm.get(host.term);
      if (known === undefined) this.leaderOfTerm.set(host.term, leader.id);
      else if (known !== leader.id)
        this.violate(`two leaders in term ${host.term}: ${known} and ${leader.id}`);
      if (!this.couldCommit(host.term)) continue;
      for (const member of this.members) {
        if (member === leader) continue;
        const silentMs = host.memberSilentForMs(member.id);
        if (!memberSurelyStopped(silentMs, this.lease)) continue;
        const violation = this.runs.checkDrop(leader.id, member.id, silentMs);
        if (violation === null) this.dropsSafe += 1;
        else this.violate(violation);
      }
    }
  }

  /** Whether a leader of `term` could still commit: a majority has not moved past its term. */
  private couldCommit(term: number): boolean {
    const behind = this.members.filter(
      (member) => (member.life?.host.term ?? member.disk.load().hardState.term) <= term,
    );
    return behind.length * 2 > this.members.length;
  }

  private checkEveryFireEverywhere(): void {
    for (const member of this.members) {
      const applied = member.life!.applied;
      const missing = [...this.fired].filter((fire) => !applied.has(fire));
      const { host } = member.life!;
      if (missing.length > 0)
        this.violate(
          `after healing, ${member.id} lacks ${missing.length} committed fires, e.g. ${missing[0]} ` +
            `(it applied ${host.applied}, knows ${host.committed} committed, ${host.role} of term ${host.term})`,
        );
    }
  }

  private violate(violation: string): void {
    if (this.violations.length < MAX_VIOLATIONS) this.violations.push(violation);
    this.trace(`VIOLATION ${violation}`);
  }
}
