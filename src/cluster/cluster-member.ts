import { EventEmitter } from 'node:events';
import type { CancelTimer, Clock } from '../core/clock.js';
import { mayActUntil } from '../core/cluster/lease-timing.js';
import { assignableNodes, extendStreak } from '../core/cluster/liveness.js';
import type { HeartbeatStreak } from '../core/cluster/liveness.js';
import type { ClusterNode, ClusterNodeInfo, CoordinatorLease } from '../core/cluster/membership.js';
import { assignShards } from '../core/cluster/rendezvous.js';
import { sameAssignment } from '../core/cluster/shard-map.js';
import type { ShardAssignment, ShardMap } from '../core/cluster/shard-map.js';
import { MemberRound, RoundAbandoned } from './member-round.js';
import type { MemberStep } from './member-round.js';
import type { MembershipStore } from './membership-store.js';

export interface ClusterMemberEventMap {
  /** A map with a new term or a new assignment was read from the database. */
  'map:changed': [ShardMap];
  'coordinator:acquired': [{ term: number }];
  /** Emitted BEFORE the lease is released or may expire elsewhere: stop coordinating on it. */
  'coordinator:lost': [{ term: number }];
  /** A round failed (the database unreachable, say); the loop carries on at the next interval. */
  'member:error': [{ error: Error; step: MemberStep }];
}

export interface ClusterMemberOptions {
  store: MembershipStore;
  /** This node, or a function read before every heartbeat so its load and labels stay current. */
  node: ClusterNodeInfo | (() => ClusterNodeInfo);
  /** How often the member heartbeats, renews or tries the lease, and reads the map (default 2 s). */
  heartbeatIntervalMs?: number;
  /** How long a granted lease runs on the database's clock (default 10 s): the bound on failover. */
  leaseTtlMs?: number;
  /**
   * How long without a heartbeat before the coordinator drops a node from the map (default three
   * intervals, so one slow round does not move shards). Must be below the TTL, so a coordinator that
   * takes over from a crashed one already sees it dead.
   */
  deadAfterMs?: number;
  /** Lease windows and rounds are measured on its monotonic reading, so they never jump with the wall clock. */
  clock: Clock;
}

/**
 * One node's part in a Postgres-mode cluster: a single loop that heartbeats, acquires or renews the
 * coordinator lease, publishes the shard map while it coordinates, and reads the current map. The loop
 * never throws out; it reports errors as events and tries again at the next interval.
 */
export class ClusterMember extends EventEmitter<ClusterMemberEventMap> {
  readonly nodeId: string;
  private readonly store: MembershipStore;
  private readonly describeNode: () => ClusterNodeInfo;
  private readonly intervalMs: number;
  private readonly ttlMs: number;
  private readonly deadAfterMs: number;
  private readonly clock: Clock;

  private running = false;
  private cancelNextRound: CancelTimer = () => undefined;
  private round: { round: MemberRound; done: Promise<void> } | undefined;
  private stopping: Promise<void> | undefined;
  /** The term of the lease this node last obtained, and until when (monotonic) it may act on it. */
  private lease: { term: number; actUntil: number } | undefined;
  private announcedTerm: number | undefined;
  private cancelActingDeadline: CancelTimer = () => undefined;
  private highestTerm = 0;
  private map: ShardMap | null = null;
  /** This node's own unbroken heartbeats: the span in which it could have heard the others. */
  private streak: HeartbeatStreak | undefined;
  private readonly maxHeartbeatGapMs: number;

  constructor(options: ClusterMemberOptions) {
    super();
    const node = options.node;
    this.describeNode = typeof node === 'function' ? node : () => node;
    this.nodeId = this.describeNode().id;
    this.store = options.store;
    this.intervalMs = options.heartbeatIntervalMs ?? 2_000;
    this.ttlMs = options.leaseTtlMs ?? 10_000;
    this.deadAfterMs = options.deadAfterMs ?? 3 * this.intervalMs;
    this.clock = options.clock;
    // A gap this long in our own heartbeats may have left every other node's heartbeat older than
    // deadAfterMs; never below 1.5 intervals, so ordinary jitter does not restart the streak forever.
    this.maxHeartbeatGapMs = Math.max(this.deadAfterMs - this.intervalMs, 1.5 * this.intervalMs);
    const actingWindowMs = mayActUntil(0, this.ttlMs);
    if (!(this.intervalMs > 0 && this.intervalMs < actingWindowMs)) {
      throw new RangeError(
        `heartbeatIntervalMs (${this.intervalMs}) must be positive and below the lease's acting window (${actingWindowMs} ms)`,
      );
    }
    if (!(this.deadAfterMs > this.intervalMs && this.deadAfterMs < this.ttlMs)) {
      throw new RangeError(
        `deadAfterMs (${this.deadAfterMs}) must lie between heartbeatIntervalMs (${this.intervalMs}) and leaseTtlMs (${this.ttlMs})`,
      );
    }
  }

  /** Joins the cluster: resolves after the first round, which may have failed (see 'member:error'). */
  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    this.stopping = undefined;
    await this.runRound();
  }

  /**
   * Leaves the cluster: stops coordinating (emitting 'coordinator:lost') and then releases the lease,
   * so another node takes over at its next round rather than after the TTL, and removes this node's row
   * so its shards move at once. With `leave: false` it only stops, as a crash would: the others notice
   * after `deadAfterMs` and the lease TTL (for a shutdown that must not wait on the database).
   */
  async stop(options: { leave?: boolean } = {}): Promise<void> {
    if (!this.running) return this.stopping;
    this.running = false;
    this.stopping = this.leave(options.leave !== false);
    return this.stopping;
  }

  private async leave(cleanly: boolean): Promise<void> {
    this.cancelNextRound();
    if (!cleanly) this.round?.round.abandon();
    // A renewal still in flight would otherwise land after the release and take the lease back.
    await this.round?.done;
    const heldTerm = this.lease?.term;
    this.lease = undefined;
    this.syncCoordinatorRole();
    if (!cleanly) return;
    try {
      if (heldTerm !== undefined) await this.store.releaseLease(this.nodeId, heldTerm);
      await this.store.removeNode(this.nodeId);
    } catch (error) {
      this.emit('member:error', { error: asError(error), step: 'leave' });
    }
  }

  /** The last map read from the database, or null before any was published. */
  currentMap(): ShardMap | null {
    return this.map;
  }

  /** Whether this node may act as coordinator right now: it holds the lease and its window is open. */
  isCoordinator(): boolean {
    return this.lease !== undefined && this.clock.monotonic() < this.lease.actUntil;
  }

  /** The highest coordinator term this node has seen; it never goes down. */
  get term(): number {
    return this.highestTerm;
  }

  private async runRound(): Promise<void> {
    const startedAt = this.clock.monotonic();
    const round = new MemberRound(this.clock, this.ttlMs, (error, step) =>
      this.emit('member:error', { error, step }),
    );
    const done = this.playRound(round)
      .catch((error: unknown) => {
        // Store failures were reported by the round; anything else is a bug, reported but never let
        // out, so the loop keeps its next round.
        if (!(error instanceof RoundAbandoned))
          this.emit('member:error', { error: asError(error), step: 'round' });
      })
      .finally(() => round.finish());
    this.round = { round, done };
    await done;
    this.round = undefined;
    if (!this.running) return;
    const elapsed = this.clock.monotonic() - startedAt;
    this.cancelNextRound = this.clock.setTimer(this.intervalMs - elapsed, () => void this.runRound());
  }

  private async playRound(round: MemberRound): Promise<void> {
    const stampedAt = await round.call('heartbeat', () => this.store.heartbeat(this.describeNode()));
    const streak = extendStreak(this.streak, stampedAt, this.maxHeartbeatGapMs);
    this.streak = streak;
    const sentAt = this.clock.monotonic();
    const lease = await round.call('lease', () => this.store.acquireOrRenewLease(this.nodeId, this.ttlMs));
    this.observeLease(lease, sentAt);
    let map = await round.call('map', () => this.store.loadMap());
    if (this.lease && this.isCoordinator()) {
      const term = this.lease.term;
      const { nodes, dbNow } = await round.call('publish', () => this.store.listNodes());
      const mapped = new Set(map?.nodes.map((node) => node.id));
      const assignment = assignmentOver(
        assignableNodes(nodes, dbNow, this.deadAfterMs, streak.since, mapped),
      );
      const stale = map === null || map.term !== term || !sameAssignment(map, assignment);
      if (stale && this.isCoordinator()) {
        const published = await round.call('publish', () =>
          this.store.publishMap(this.nodeId, term, assignment),
        );
        if (published) map = await round.call('map', () => this.store.loadMap());
      }
    }
    this.observeMap(map);
  }

  private observeLease(lease: CoordinatorLease, sentAt: number): void {
    this.highestTerm = Math.max(this.highestTerm, lease.term);
    this.lease = lease.acquired ? { term: lease.term, actUntil: mayActUntil(sentAt, this.ttlMs) } : undefined;
    this.syncCoordinatorRole();
  }

  private observeMap(map: ShardMap | null): void {
    if (map === null) return;
    this.highestTerm = Math.max(this.highestTerm, map.term);
    const current = this.map;
    if (current && (map.term < current.term || (map.term === current.term && sameAssignment(map, current))))
      return;
    this.map = map;
    this.emit('map:changed', map);
  }

  /**
   * Announces becoming or ceasing to be coordinator. A timer fires when the acting window closes, so a
   * coordinator whose renewals hang or fail stops on time even while its round is stuck on the database.
   */
  private syncCoordinatorRole(): void {
    this.cancelActingDeadline();
    const acting = this.lease && this.isCoordinator() ? this.lease : undefined;
    if (this.announcedTerm !== undefined && this.announcedTerm !== acting?.term) {
      const term = this.announcedTerm;
      this.announcedTerm = undefined;
      this.emit('coordinator:lost', { term });
    }
    if (!acting) return;
    if (this.announcedTerm === undefined) {
      this.announcedTerm = acting.term;
      this.emit('coordinator:acquired', { term: acting.term });
    }
    const remaining = acting.actUntil - this.clock.monotonic();
    this.cancelActingDeadline = this.clock.setTimer(remaining + 1, () => this.syncCoordinatorRole());
  }
}

/** The map of the live nodes, each listed once by id, and the owner of every shard among them. */
function assignmentOver(nodes: readonly ClusterNode[]): ShardAssignment {
  const sorted = [...nodes].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return {
    nodes: sorted.map((node) => ({ id: node.id, labels: node.labels })),
    owners: assignShards(sorted.map((node) => node.id)),
  };
}

function asError(value: unknown): Error {
  return value instanceof Error ? value : new Error(String(value));
}
