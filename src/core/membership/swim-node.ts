import { failedProbePenalty, LocalHealth } from './local-health.js';
import { addsVersion, overrides, retransmitLimit, withKnownVersion } from './member-updates.js';
import { MembershipNews } from './membership-news.js';
import type { MemberState, MemberUpdate, SwimMessage } from './swim-messages.js';
import { Suspicion, suspicionBounds } from './suspicion.js';

export interface SwimConfig {
  id: string;
  /** The members this node knows at start (itself included or not), taken to be alive. */
  seeds: readonly string[];
  /** Ticks per protocol period: one member is probed each period (times the local health multiplier). */
  probeTicks: number;
  /** Ticks to wait for a direct ack before asking others to probe (below probeTicks; scaled as it is). */
  ackTimeoutTicks: number;
  /** How many members are asked to probe a member that did not answer directly. */
  indirectProbes: number;
  /**
   * α: a suspect that others confirm is declared dead after α·max(1, log10 n) probe periods, unless it
   * refutes (memberlist's SuspicionMult; see suspicion.ts).
   */
  suspicionMultiplier: number;
  /** β: how many times that a suspicion no other member confirms lasts (memberlist's default: 6). */
  suspicionMaxMultiplier?: number;
  /** The local health multiplier's ceiling (memberlist's AwarenessMaxMultiplier: 8); 1 turns it off. */
  maxLocalHealth?: number;
  /** Updates piggybacked on one message at most. */
  maxUpdatesPerMessage?: number;
  /** The peer protocol version this member advertises with its own updates (none: it advertises none). */
  version?: number;
  random: () => number;
}

/** Members a refutation is sent to at once, besides the one that brought the doubt (memberlist's GossipNodes). */
const REFUTATION_FANOUT = 3;

interface Probe {
  target: string;
  seq: number;
  sentAt: number;
  /** The ack timeout as the local health stood when the probe began. */
  ackTimeout: number;
  /** The helpers asked to probe the target, once the ack timeout passed; and those that nacked. */
  helpers: string[] | null;
  nacks: Set<string>;
}

/**
 * A ping this node sends for another's indirect probe: an ack is passed back under their seq, and a nack
 * if none came within the ack timeout (a later ack is still passed back, until the relay expires).
 */
interface Relay {
  requester: string;
  requesterSeq: number;
  nackAt: number | null;
  expiresAt: number;
}

/**
 * One member of a SWIM group (Das, Gupta and Motivala, 2002) as a pure state machine: each protocol
 * period it pings one member (round robin over a shuffled list), asks `indirectProbes` others to ping it
 * when no ack comes, and suspects it when none comes by the period's end; a suspect that does not
 * refute (by raising its incarnation) in time is declared dead. News rides on every message.
 *
 * With Lifeguard's three extensions (Dadgar, Phillips and Currey, 2018), as memberlist has them: a local
 * health multiplier stretches this member's probe period and ack timeout while it sees signs of being slow
 * itself (local-health.ts); a suspicion lasts long unless other members confirm it (suspicion.ts); and a
 * probe of a suspect tells it so, so that it refutes at once (the buddy system). The host feeds ticks and
 * messages and sends what `takeMessages` returns.
 */
export class SwimNode {
  readonly id: string;
  private readonly members = new Map<string, MemberUpdate>();
  private readonly suspicions = new Map<string, Suspicion>();
  private readonly news = new MembershipNews();
  private readonly relays = new Map<number, Relay>();
  private readonly health: LocalHealth;
  private readonly contacts = new Set<string>();
  private order: string[] = [];
  private probe: Probe | null = null;
  private nextProbeAt: number;
  private now = 0;
  private seq = 0;
  private outbox: SwimMessage[] = [];

  constructor(private readonly config: SwimConfig) {
    if (!(config.ackTimeoutTicks > 0 && config.ackTimeoutTicks < config.probeTicks))
      throw new RangeError('ackTimeoutTicks must be positive and below probeTicks');
    this.id = config.id;
    this.health = new LocalHealth(config.maxLocalHealth ?? 8);
    this.nextProbeAt = config.probeTicks;
    this.members.set(this.id, this.selfAt(0));
    for (const seed of config.seeds)
      if (seed !== this.id) this.members.set(seed, { id: seed, incarnation: 0, state: 'alive' });
  }

  /** Every member known, with the state this node holds of it. */
  view(): MemberUpdate[] {
    return [...this.members.values()];
  }

  stateOf(id: string): MemberState | undefined {
    return this.members.get(id)?.state;
  }

  /** The peer protocol version `id` advertises, as far as this node has heard; undefined if none. */
  versionOf(id: string): number | undefined {
    return this.members.get(id)?.version;
  }

  /** This member's local health multiplier: 0 while it sees no sign of being slow itself. */
  get localHealth(): number {
    return this.health.score;
  }

  tick(): void {
    this.now += 1;
    this.checkProbe();
    this.expireSuspicions();
    this.tendRelays();
    if (this.now >= this.nextProbeAt) this.startProbe();
  }

  step(message: SwimMessage): void {
    if (message.to !== this.id) return;
    this.contacts.add(message.from);
    const incarnation = this.members.get(this.id)!.incarnation;
    for (const update of message.updates) this.learn(update);
    this.answer(message);
    if (this.members.get(this.id)!.incarnation > incarnation) this.spreadRefutation(message);
  }

  private answer(message: SwimMessage): void {
    switch (message.type) {
      case 'ping':
        // A member that pings us while we hold it suspect or dead hears so, and can refute it.
        return this.send({
          type: 'ack',
          from: this.id,
          to: message.from,
          seq: message.seq,
          updates: this.doubtsAbout(message.from),
        });
      case 'ping-req': {
        const seq = this.nextSeq();
        this.relays.set(seq, {
          requester: message.from,
          requesterSeq: message.seq,
          nackAt: this.now + nackTimeout(this.config.ackTimeoutTicks),
          expiresAt: this.now + this.config.probeTicks,
        });
        return this.send({ type: 'ping', from: this.id, to: message.target, seq, updates: [] });
      }
      case 'ack':
        return this.acked(message.seq);
      case 'nack':
        if (this.probe?.seq === message.seq && this.probe.helpers?.includes(message.from))
          this.probe.nacks.add(message.from);
        return;
    }
  }

  /**
   * Takes in another member's whole view (a push-pull state exchange). A member it holds dead is taken as
   * suspect (memberlist's rule), so it has this node's own suspicion time to refute before it is dead here.
   */
  merge(members: readonly MemberUpdate[]): void {
    for (const update of members)
      if (update.id === this.id || update.state === 'alive') this.learn(update);
      else this.learn({ ...update, state: 'suspect', suspectedBy: update.suspectedBy ?? this.id });
  }

  takeMessages(): SwimMessage[] {
    // Every message also says who sent it and at which incarnation: a node that another holds dead (its
    // news long spent) is heard alive again by each node it probes.
    const self = this.members.get(this.id)!;
    const messages = this.outbox.map((message) => {
      const told = [self, ...message.updates];
      const news = this.news
        .take(this.config.maxUpdatesPerMessage ?? 8)
        .filter((update) => !told.some((known) => known.id === update.id));
      return { ...message, updates: [...told, ...news] };
    });
    this.outbox = [];
    return messages;
  }

  /**
   * The members heard from since the last call: the sender of every message, and the target of a probe
   * acked through a helper. The host stamps them with its clock (`sched cluster status`'s heartbeat).
   */
  takeContacts(): string[] {
    const heard = [...this.contacts];
    this.contacts.clear();
    return heard;
  }

  /**
   * A refutation goes out at once, by ping (its ack is not waited for), to the member that brought the doubt
   * (unless it is being acked anyway) and to a few others. News here rides on probes, and a member that finds
   * itself slow probes up to eight times less often: waiting for its own probes would leave it suspected or
   * dead that much longer (memberlist gossips on a timer of its own, to 3 members, that its health does not
   * slow).
   */
  private spreadRefutation(message: SwimMessage): void {
    const others = this.liveOthers().filter((id) => id !== message.from);
    const doubter = message.type === 'ping' ? [] : [message.from];
    for (const to of [...doubter, ...shuffled(others, this.config.random).slice(0, REFUTATION_FANOUT)])
      this.send({ type: 'ping', from: this.id, to, seq: this.nextSeq(), updates: [] });
  }

  private doubtsAbout(id: string): MemberUpdate[] {
    const member = this.members.get(id);
    return member && member.state !== 'alive' ? [member] : [];
  }

  private acked(seq: number): void {
    const probe = this.probe;
    if (probe?.seq === seq) {
      this.contacts.add(probe.target);
      this.health.apply(-1);
      this.probe = null;
      return;
    }
    const relay = this.relays.get(seq);
    if (!relay) return;
    this.relays.delete(seq);
    this.send({ type: 'ack', from: this.id, to: relay.requester, seq: relay.requesterSeq, updates: [] });
  }

  private startProbe(): void {
    // A probe still open at a new period had no ack at all: its target is suspected.
    if (this.probe) this.probeFailed(this.probe);
    this.nextProbeAt = this.now + this.health.scale(this.config.probeTicks);
    const target = this.nextTarget();
    if (target === undefined) {
      this.probe = null;
      return;
    }
    const seq = this.nextSeq();
    const ackTimeout = this.health.scale(this.config.ackTimeoutTicks);
    this.probe = { target, seq, sentAt: this.now, ackTimeout, helpers: null, nacks: new Set() };
    // The buddy system: a suspect probed hears it is suspected from the probe itself, and refutes in its ack.
    this.send({ type: 'ping', from: this.id, to: target, seq, updates: this.doubtsAbout(target) });
  }

  private probeFailed(probe: Probe): void {
    this.health.apply(failedProbePenalty(probe.helpers?.length ?? 0, probe.nacks.size));
    this.suspect(probe.target);
  }

  private checkProbe(): void {
    const probe = this.probe;
    if (!probe || probe.helpers !== null || this.now - probe.sentAt < probe.ackTimeout) return;
    // Helpers are members held alive, as in memberlist: a suspect one may be the slow one, and not nack.
    const helpers = shuffled(
      this.liveOthers().filter((id) => id !== probe.target && this.stateOf(id) === 'alive'),
      this.config.random,
    ).slice(0, this.config.indirectProbes);
    probe.helpers = helpers;
    for (const helper of helpers)
      this.send({
        type: 'ping-req',
        from: this.id,
        to: helper,
        seq: probe.seq,
        target: probe.target,
        updates: [],
      });
  }

  private tendRelays(): void {
    for (const [seq, relay] of this.relays) {
      if (relay.expiresAt <= this.now) this.relays.delete(seq);
      else if (relay.nackAt !== null && relay.nackAt <= this.now) {
        relay.nackAt = null;
        this.send({ type: 'nack', from: this.id, to: relay.requester, seq: relay.requesterSeq, updates: [] });
      }
    }
  }

  private expireSuspicions(): void {
    for (const [id, suspicion] of this.suspicions) {
      if (this.now < suspicion.deadline) continue;
      const member = this.members.get(id);
      this.suspicions.delete(id);
      if (member?.state === 'suspect') this.record({ ...member, state: 'dead' });
    }
  }

  /** This node's own probe of `id` failed: a suspicion of its own, or a confirmation of another's. */
  private suspect(id: string): void {
    const member = this.members.get(id);
    if (member?.state === 'alive') this.record({ ...member, state: 'suspect', suspectedBy: this.id });
    else if (member?.state === 'suspect') this.confirm(member, this.id);
  }

  /** Takes in what another node says of a member; news about this node itself is refuted. */
  private learn(news: MemberUpdate): void {
    if (news.id === this.id) return this.refute(news);
    const current = this.members.get(news.id);
    const update = withKnownVersion(news, current);
    if (overrides(update, current)) return this.record(update);
    if (addsVersion(update, current)) return this.record({ ...current!, version: update.version });
    if (
      update.state === 'suspect' &&
      current?.state === 'suspect' &&
      update.incarnation === current.incarnation
    )
      this.confirm(current, update.suspectedBy);
  }

  private refute(update: MemberUpdate): void {
    const self = this.members.get(this.id)!;
    if (update.incarnation < self.incarnation) return;
    if (update.state === 'alive' && !this.misstatesVersion(update, self)) return;
    this.record(this.selfAt(update.incarnation + 1));
    // Being suspected is a sign of being slow: memberlist's refute raises the local health multiplier too.
    if (update.state !== 'alive') this.health.apply(1);
  }

  /**
   * Whether news that this member is alive says it under another version than it advertises: news of an
   * earlier life of it (restarted on another build, within its suspicion time, others still hold that life's
   * word). News without a version may be this life's, passed on by an older build: only one of an
   * incarnation this life never reached is taken as an earlier life's (refuted every time, it would raise
   * the incarnation for as long as older builds pass it on).
   */
  private misstatesVersion(update: MemberUpdate, self: MemberUpdate): boolean {
    const own = this.config.version;
    if (own === undefined || update.version === own) return false;
    return update.version !== undefined || update.incarnation > self.incarnation;
  }

  /** This member's own word at `incarnation`: alive, with the version it advertises. */
  private selfAt(incarnation: number): MemberUpdate {
    const { version } = this.config;
    return { id: this.id, incarnation, state: 'alive', ...(version === undefined ? {} : { version }) };
  }

  /** Another member's independent suspicion shortens the timeout, and is passed on for others to count. */
  private confirm(member: MemberUpdate, accuser: string | undefined): void {
    if (accuser === undefined || !this.suspicions.get(member.id)?.confirm(accuser)) return;
    this.spread({ ...member, suspectedBy: accuser });
  }

  private record(update: MemberUpdate): void {
    if (update.state !== 'suspect' && update.suspectedBy !== undefined) {
      const { suspectedBy: _accuser, ...rest } = update;
      return this.record(rest);
    }
    this.members.set(update.id, update);
    if (update.state === 'suspect') this.startSuspicion(update);
    else this.suspicions.delete(update.id);
    this.spread(update);
  }

  private startSuspicion(update: MemberUpdate): void {
    const { probeTicks, suspicionMultiplier, suspicionMaxMultiplier } = this.config;
    const members = this.liveOthers().length + 1;
    const bounds = suspicionBounds(members, probeTicks, suspicionMultiplier, suspicionMaxMultiplier ?? 6);
    this.suspicions.set(update.id, new Suspicion(this.now, update.suspectedBy ?? '', bounds));
  }

  private spread(update: MemberUpdate): void {
    this.news.add(update, retransmitLimit(this.members.size));
  }

  /** Round robin over a list shuffled at each pass, so every member is probed within a bounded time. */
  private nextTarget(): string | undefined {
    for (let attempts = 0; attempts < 2; attempts++) {
      while (this.order.length > 0) {
        const candidate = this.order.shift()!;
        const state = this.members.get(candidate)?.state;
        if (state !== undefined && state !== 'dead') return candidate;
      }
      this.order = shuffled(this.liveOthers(), this.config.random);
    }
    return undefined;
  }

  private liveOthers(): string[] {
    return [...this.members.values()]
      .filter((member) => member.id !== this.id && member.state !== 'dead')
      .map((member) => member.id);
  }

  private nextSeq(): number {
    this.seq += 1;
    return this.seq;
  }

  private send(message: SwimMessage): void {
    this.outbox.push(message);
  }
}

/**
 * A helper nacks after 80% of the ack timeout (the Lifeguard paper's figure), so that its nack reaches the
 * prober within the period: the prober asks for help only after its own ack timeout, and a nack sent after
 * a whole one would land on the period's end (swift-cluster-membership found its nacks all missed so).
 */
function nackTimeout(ackTimeoutTicks: number): number {
  return Math.max(1, Math.floor(ackTimeoutTicks * 0.8));
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}
