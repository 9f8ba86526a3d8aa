import { randomInt } from 'node:crypto';
import type { CancelTimer, Clock } from '../../core/clock.js';
import type { MemberState, MemberUpdate, SwimMessage } from '../../core/membership/swim-messages.js';
import { SwimNode } from '../../core/membership/swim-node.js';
import { decodeStateExchange, encodeStateExchange } from '../../core/membership/swim-wire.js';
import { formatPeerAddress, tryParsePeerAddress, type PeerAddress } from '../../core/peer/peer-address.js';
import type { MessageSeal } from './message-seal.js';
import type { PeerStreams } from './peer-streams.js';
import { SwimDatagrams, type DatagramDrop } from './swim-datagrams.js';

export interface SwimTiming {
  /** Real time per tick of the state machine. */
  tickMs: number;
  probeTicks: number;
  ackTimeoutTicks: number;
  /** α in α·max(1, log10 n) probe periods, a confirmed suspicion's time (see core/membership/suspicion.ts). */
  suspicionMultiplier: number;
  indirectProbes: number;
  /** How often the whole view is exchanged with one member over a stream (push-pull). */
  pushPullMs: number;
  /**
   * How often the view goes to one member this node holds dead (Serf's reconnect). Probes and push-pull
   * skip the dead, so after a partition each side would hold the other dead for good; one exchange lets
   * both learn they were held dead and refute it.
   */
  reconnectMs?: number;
}

/**
 * memberlist's LAN defaults but for α: a probe a second, half a second for its ack, and five seconds of
 * suspicion (as before Lifeguard) once three other members confirm it, up to 30 s while none does (in a group
 * of four or fewer, none is waited for). A member that finds itself slow stretches its probe period and ack
 * timeout up to eightfold.
 */
const DEFAULT_SWIM_TIMING: SwimTiming = {
  tickMs: 100,
  probeTicks: 10,
  ackTimeoutTicks: 5,
  suspicionMultiplier: 5,
  indirectProbes: 3,
  pushPullMs: 30_000,
  reconnectMs: 10_000,
};

/** When this member last heard from another (wall-clock ms), and the load that member last told it. */
export interface MemberContact {
  heardAt: number;
  /** Null until the member has said (a message without it, from a build before loads were sent). */
  load: number | null;
}

export interface SwimMembershipOptions {
  bind: PeerAddress;
  /** The address others reach this member at, its id; the bound address when not given. */
  advertise?: PeerAddress;
  seeds: readonly PeerAddress[];
  seal: MessageSeal;
  /**
   * The peer streams, for push-pull state exchanges: the view is sent to the seeds on start and to one
   * member every `pushPullMs`. The datagrams are then bound to the streams' port, as a member's id names
   * one port for both.
   */
  streams?: PeerStreams;
  clock: Clock;
  timing?: SwimTiming;
  /** This member's running runs, told to every member it sends to (`sched cluster status`'s LOAD). */
  load?: () => number;
  /** The peer protocol version this member advertises (see protocol-version.ts); none when not given. */
  protocolVersion?: number;
  onDrop?: (reason: DatagramDrop, detail: string) => void;
  onError?: (error: Error) => void;
}

/**
 * A SwimNode run on real time and a UDP socket: the only I/O around the pure state machine. Ticks come
 * from the clock's timers, randomness from the system's CSPRNG, messages from and to SwimDatagrams.
 * A member's id is its address (`host:port`), so a member learnt from gossip can be probed at once.
 */
export class SwimMembership {
  readonly name = 'swim-membership';
  private timer: CancelTimer | null = null;
  private pushPullTimer: CancelTimer | null = null;
  private reconnectTimer: CancelTimer | null = null;
  private stopped = false;
  private readonly contacts = new Map<string, MemberContact>();

  private constructor(
    readonly id: string,
    private readonly node: SwimNode,
    private readonly transport: SwimDatagrams,
    private readonly options: SwimMembershipOptions,
  ) {}

  static async start(options: SwimMembershipOptions): Promise<SwimMembership> {
    const timing = options.timing ?? DEFAULT_SWIM_TIMING;
    let membership: SwimMembership | null = null;
    const bind = options.streams ? { ...options.bind, port: options.streams.address().port } : options.bind;
    const transport = await SwimDatagrams.open({
      bind,
      seal: options.seal,
      onMessage: (message) => membership?.receive(message),
      onDrop: options.onDrop,
    });
    const id = formatPeerAddress(options.advertise ?? transport.address());
    const node = new SwimNode({
      id,
      seeds: options.seeds.map(formatPeerAddress),
      probeTicks: timing.probeTicks,
      ackTimeoutTicks: timing.ackTimeoutTicks,
      suspicionMultiplier: timing.suspicionMultiplier,
      indirectProbes: timing.indirectProbes,
      version: options.protocolVersion,
      random: () => randomInt(2 ** 47) / 2 ** 47,
    });
    const started = new SwimMembership(id, node, transport, options);
    membership = started;
    started.arm(options.clock.monotonic() + timing.tickMs, timing.tickMs);
    if (options.streams) {
      options.streams.handle('push-pull', (body) => started.exchange(body));
      for (const seed of options.seeds) started.sendState(seed, false);
      started.armPushPull(timing.pushPullMs);
      if (timing.reconnectMs !== undefined) started.armReconnect(timing.reconnectMs);
    }
    return started;
  }

  view(): MemberUpdate[] {
    return this.node.view();
  }

  stateOf(id: string): MemberState | undefined {
    return this.node.stateOf(id);
  }

  /** The peer protocol version `id` advertises as far as gossip says; undefined for none (version 1). */
  protocolOf(id: string): number | undefined {
    return this.node.versionOf(id);
  }

  /**
   * When this member last heard from `id` (any message from it, or an ack of a probe of it through a helper)
   * and the load it last sent; undefined if never since this member started.
   */
  contactOf(id: string): MemberContact | undefined {
    return this.contacts.get(id);
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.timer?.();
    this.pushPullTimer?.();
    this.reconnectTimer?.();
    await this.transport.close();
  }

  /**
   * One tick per timer, however late it fires: a stall's missed ticks are skipped, not replayed, since
   * replaying them at once would open and give up probes with no time for an ack, and suspect healthy
   * members. Time in the state machine then runs slow, which only delays detection.
   */
  private arm(dueAt: number, tickMs: number): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimer(dueAt - this.options.clock.monotonic(), () => {
      const now = this.options.clock.monotonic();
      if (now < dueAt) return this.arm(dueAt, tickMs);
      this.guarded(() => this.node.tick());
      this.arm(Math.max(dueAt + tickMs, now + tickMs / 2), tickMs);
    });
  }

  /** Every `intervalMs`, the whole view to one live member chosen at random, which answers with its own. */
  private armPushPull(intervalMs: number): void {
    if (this.stopped) return;
    this.pushPullTimer = this.options.clock.setTimer(intervalMs, () => {
      this.sendStateToOne((state) => state !== 'dead');
      this.armPushPull(intervalMs);
    });
  }

  /** Every `intervalMs`, the whole view to one member held dead, in case it is back (see SwimTiming). */
  private armReconnect(intervalMs: number): void {
    if (this.stopped) return;
    this.reconnectTimer = this.options.clock.setTimer(intervalMs, () => {
      this.sendStateToOne((state) => state === 'dead');
      this.armReconnect(intervalMs);
    });
  }

  private sendStateToOne(picks: (state: MemberState) => boolean): void {
    const candidates = this.node.view().filter((member) => member.id !== this.id && picks(member.state));
    const chosen =
      candidates.length > 0 ? tryParsePeerAddress(candidates[randomInt(candidates.length)]!.id) : null;
    if (chosen) this.sendState(chosen, false);
  }

  private sendState(to: PeerAddress, reply: boolean): void {
    if (this.stopped) return;
    const exchange = {
      type: 'state' as const,
      from: this.id,
      to: formatPeerAddress(to),
      reply,
      members: this.node.view(),
      load: this.options.load?.(),
    };
    this.options.streams?.send(to, 'push-pull', encodeStateExchange(exchange));
  }

  private exchange(body: Buffer): void {
    if (this.stopped) return;
    const decoded = decodeStateExchange(body);
    if (!decoded.ok) return this.options.onDrop?.('malformed', `state exchange: ${decoded.reason}`);
    const { from, to, reply, members, load } = decoded.message;
    if (to !== this.id) return;
    this.heard(from, load);
    this.guarded(() => this.node.merge(members));
    const sender = tryParsePeerAddress(from);
    if (!reply && sender) this.sendState(sender, true);
  }

  private receive(message: SwimMessage): void {
    if (this.stopped || message.to !== this.id) return;
    this.heard(message.from, message.load);
    this.guarded(() => this.node.step(message));
  }

  /** Stamps a contact with this member's clock; the load only from the member itself, as it sent it. */
  private heard(id: string, load: number | undefined): void {
    const known = this.contacts.get(id);
    this.contacts.set(id, { heardAt: this.options.clock.now(), load: load ?? known?.load ?? null });
  }

  /** Runs a step of the state machine and sends what it has to say; a failure is reported, never thrown. */
  private guarded(step: () => void): void {
    try {
      step();
      for (const id of this.node.takeContacts()) if (id !== this.id) this.heard(id, undefined);
      const messages = this.node.takeMessages();
      const load = messages.length > 0 ? this.options.load?.() : undefined;
      for (const message of messages) {
        const to = tryParsePeerAddress(message.to);
        if (to) this.transport.send({ ...message, load }, to);
      }
    } catch (error) {
      this.options.onError?.(error as Error);
    }
  }
}
