import { overrides, retransmitLimit } from './member-updates.js';
import type { MemberState, MemberUpdate, SwimMessage } from './swim-messages.js';

export interface SwimConfig {
  id: string;
  /** The members this node knows at start (itself included or not), taken to be alive. */
  seeds: readonly string[];
  /** Ticks per protocol period: one member is probed each period. */
  probeTicks: number;
  /** Ticks to wait for a direct ack before asking others to probe (below probeTicks). */
  ackTimeoutTicks: number;
  /** How many members are asked to probe a member that did not answer directly. */
  indirectProbes: number;
  /** Ticks a member stays suspect before it is declared dead, unless it refutes. */
  suspicionTicks: number;
  /** Updates piggybacked on one message at most. */
  maxUpdatesPerMessage?: number;
  random: () => number;
}

interface Probe {
  target: string;
  seq: number;
  sentAt: number;
  askedOthers: boolean;
}

/** A ping this node sends for another's indirect probe: an ack is passed back under their seq. */
interface Relay {
  requester: string;
  requesterSeq: number;
  expiresAt: number;
}

/**
 * One member of a SWIM group (Das, Gupta and Motivala, 2002) as a pure state machine: each protocol
 * period it pings one member (round robin over a shuffled list), asks `indirectProbes` others to ping it
 * when no ack comes, and suspects it when none comes by the period's end; a suspect that does not
 * refute (by raising its incarnation) within `suspicionTicks` is declared dead. News rides on every
 * message. The host feeds ticks and messages and sends what `takeMessages` returns.
 */
export class SwimNode {
  readonly id: string;
  private readonly members = new Map<string, MemberUpdate>();
  private readonly suspectedAt = new Map<string, number>();
  private readonly news = new Map<string, { update: MemberUpdate; left: number }>();
  private readonly relays = new Map<number, Relay>();
  private order: string[] = [];
  private probe: Probe | null = null;
  private now = 0;
  private seq = 0;
  private outbox: SwimMessage[] = [];

  constructor(private readonly config: SwimConfig) {
    if (!(config.ackTimeoutTicks > 0 && config.ackTimeoutTicks < config.probeTicks))
      throw new RangeError('ackTimeoutTicks must be positive and below probeTicks');
    this.id = config.id;
    this.members.set(this.id, { id: this.id, incarnation: 0, state: 'alive' });
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

  tick(): void {
    this.now += 1;
    this.checkProbe();
    this.expireSuspicions();
    for (const [seq, relay] of this.relays) if (relay.expiresAt <= this.now) this.relays.delete(seq);
    if (this.now % this.config.probeTicks === 0) this.startProbe();
  }

  step(message: SwimMessage): void {
    if (message.to !== this.id) return;
    for (const update of message.updates) this.learn(update);
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
          expiresAt: this.now + this.config.probeTicks,
        });
        return this.send({ type: 'ping', from: this.id, to: message.target, seq, updates: [] });
      }
      case 'ack':
        return this.acked(message.seq);
    }
  }

  /**
   * Takes in another member's whole view (a push-pull state exchange). A member it holds dead is taken as
   * suspect (memberlist's rule), so it has this node's own suspicion time to refute before it is dead here.
   */
  merge(members: readonly MemberUpdate[]): void {
    for (const update of members)
      this.learn(update.state === 'dead' && update.id !== this.id ? { ...update, state: 'suspect' } : update);
  }

  takeMessages(): SwimMessage[] {
    // Every message also says who sent it and at which incarnation: a node that another holds dead (its
    // news long spent) is heard alive again by each node it probes.
    const self = this.members.get(this.id)!;
    const messages = this.outbox.map((message) => {
      const told = [self, ...message.updates];
      const news = this.piggyback().filter((update) => !told.some((known) => known.id === update.id));
      return { ...message, updates: [...told, ...news] };
    });
    this.outbox = [];
    return messages;
  }

  private doubtsAbout(id: string): MemberUpdate[] {
    const member = this.members.get(id);
    return member && member.state !== 'alive' ? [member] : [];
  }

  private acked(seq: number): void {
    if (this.probe?.seq === seq) {
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
    if (this.probe) this.suspect(this.probe.target);
    const target = this.nextTarget();
    if (target === undefined) {
      this.probe = null;
      return;
    }
    const seq = this.nextSeq();
    this.probe = { target, seq, sentAt: this.now, askedOthers: false };
    this.send({ type: 'ping', from: this.id, to: target, seq, updates: [] });
  }

  private checkProbe(): void {
    const probe = this.probe;
    if (!probe || probe.askedOthers || this.now - probe.sentAt < this.config.ackTimeoutTicks) return;
    probe.askedOthers = true;
    const helpers = shuffled(
      this.liveOthers().filter((id) => id !== probe.target),
      this.config.random,
    ).slice(0, this.config.indirectProbes);
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

  private expireSuspicions(): void {
    for (const [id, since] of this.suspectedAt) {
      if (this.now - since < this.config.suspicionTicks) continue;
      const member = this.members.get(id);
      this.suspectedAt.delete(id);
      if (member?.state === 'suspect') this.record({ ...member, state: 'dead' });
    }
  }

  private suspect(id: string): void {
    const member = this.members.get(id);
    if (member?.state === 'alive') this.record({ ...member, state: 'suspect' });
  }

  /** Takes in what another node says of a member; news about this node itself is refuted. */
  private learn(update: MemberUpdate): void {
    if (update.id === this.id) {
      const self = this.members.get(this.id)!;
      if (update.state !== 'alive' && update.incarnation >= self.incarnation)
        this.record({ id: this.id, incarnation: update.incarnation + 1, state: 'alive' });
      return;
    }
    if (overrides(update, this.members.get(update.id))) this.record(update);
  }

  private record(update: MemberUpdate): void {
    this.members.set(update.id, update);
    if (update.state === 'suspect') this.suspectedAt.set(update.id, this.now);
    else this.suspectedAt.delete(update.id);
    this.news.set(update.id, { update, left: retransmitLimit(this.members.size) });
  }

  /** The freshest news first (most retransmissions left), each sent a bounded number of times. */
  private piggyback(): MemberUpdate[] {
    const chosen = [...this.news.values()]
      .sort((a, b) => b.left - a.left)
      .slice(0, this.config.maxUpdatesPerMessage ?? 8);
    for (const item of chosen) {
      item.left -= 1;
      if (item.left <= 0) this.news.delete(item.update.id);
    }
    return chosen.map((item) => item.update);
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

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}
