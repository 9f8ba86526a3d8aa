import os from 'node:os';
import { memberSurelyStopped, type MemberLeaseBounds } from '../core/cluster/member-lease.js';
import { assignShards } from '../core/cluster/rendezvous.js';
import { sameAssignment, type ShardMap } from '../core/cluster/shard-map.js';
import { SHARD_COUNT } from '../core/cluster/shard.js';
import type { CancelTimer, Clock } from '../core/clock.js';
import type { ClusterNodeStatus, ClusterStatus } from '../ipc/protocol.js';
import type { Cluster, MapListener } from './cluster.js';
import { MappedCluster } from './mapped-cluster.js';
import type { Replication } from './peer/replicated-store.js';
import type { MemberContact } from './peer/swim-membership.js';
import type { MemberRecord } from './peer/store-commands.js';
import { hasErrorCode } from '../core/errors.js';
import { PROTOCOL_VERSION } from '../core/peer/protocol-version.js';

/** What the cluster reads of this member's Raft. */
export interface RaftView {
  readonly role: string | null;
  readonly term: number;
  readonly leader: string | null;
  /** Leading: how long `member` has surely not been in touch with this leader (see LeaderContact). */
  memberSilentForMs(member: string): number;
  /** Leading: how long since `member` was last heard by this leader, from its election at most. */
  memberUnheardForMs(member: string): number;
  /** The voters in force on this member: its log's latest configuration (or forced by a recovery). */
  readonly voters: readonly string[];
}

/** What the cluster reads of membership (SWIM): how it sees a member now, and when it last heard from it. */
export interface MembershipView {
  stateOf(id: string): 'alive' | 'suspect' | 'dead' | undefined;
  /** The last word from `id` and the running runs it last told; undefined if none yet. */
  contactOf(id: string): MemberContact | undefined;
  /** The peer protocol version `id` advertises; undefined for none (an older build's: version 1). */
  protocolOf?(id: string): number | undefined;
}

export interface PeerClusterOptions {
  self: string;
  labels: Record<string, string>;
  version: string;
  raft: RaftView;
  replication: Pick<Replication, 'currentMap' | 'publishMap' | 'onMapChanged' | 'members' | 'registerMember'>;
  membership: MembershipView;
  /** The members' leases on their runs: a member leaves the map only once its lease surely ran out. */
  lease: MemberLeaseBounds;
  clock: Clock;
  startedAt: number;
  /** This member's running runs now. */
  load: () => number;
  /**
   * A voter this leader has not heard from for this long is given no new work (shards, `--on` runs) until it
   * is heard again; it stays among the map's nodes until its lease surely ran out.
   */
  placeUnheardForMs: number;
  /** How often the leader checks the map against the live members, and a member its registration (1 s). */
  coordinateEveryMs?: number;
  onError: (error: Error) => void;
  /** The voters in force changed (checked each round). */
  onVoters?: (voters: readonly string[]) => void;
}

/**
 * Peer mode's cluster: the Raft leader coordinates. It publishes, through the log, a shard map over the
 * voters in force that registered and that membership sees alive (or suspected: a slow member is not dropped
 * at once), or whose lease on their runs may not have run out yet (a member cut off stops its runs first),
 * in its own term, whenever they or the term change; every member fires from the map the log put in force,
 * and a fire from another map is refused where the log is applied. A member that stopped voting (removed),
 * or that the leader has not heard from for `placeUnheardForMs`, keeps its place among the map's nodes under
 * the same rule, since leaving the map is what records its runs lost, but owns no shards and has no labels to
 * place `--on` jobs by: so a dead leader's jobs move once its successor has waited about an election timeout
 * for it, not its whole lease, while its runs are recorded lost only after that. A learner that never voted is not in
 * the map. Each voter registers its labels, host and version through the log, so the coordinator can place
 * `--on` jobs.
 */
export class PeerCluster extends MappedCluster implements Cluster {
  private timer: CancelTimer | null = null;
  private stopped = false;
  private busy = false;
  private votersSeen: readonly string[] = [];

  constructor(private readonly options: PeerClusterOptions) {
    super(options.self, options.labels);
  }

  start(): void {
    this.arm();
  }

  protected get map(): ShardMap | null {
    return this.options.replication.currentMap();
  }

  /** The voters in force on this member, as its log (or a forced recovery) says. */
  get votersInForce(): readonly string[] {
    return this.options.raft.voters;
  }

  isCoordinator(): boolean {
    return this.options.raft.role === 'leader' && this.map?.coordinator === this.nodeId;
  }

  onMapChanged(listener: MapListener): void {
    this.options.replication.onMapChanged(listener);
  }

  async status(firingLagMs: number | null): Promise<ClusterStatus> {
    const { raft, membership, clock } = this.options;
    const voters = [...raft.voters];
    const map = this.map;
    const now = clock.now();
    const shards = new Map<string, number>();
    for (const owner of map?.owners ?? [])
      if (owner !== null) shards.set(owner, (shards.get(owner) ?? 0) + 1);
    const records = this.options.replication.members();
    // The voters, and this node when it is not one (joining, or removed): a member that left is not listed.
    const ids = [...new Set([...voters, this.nodeId])].sort();
    const stateOf = (id: string) => (id === this.nodeId ? 'alive' : (membership.stateOf(id) ?? 'dead'));
    const protocolOf = (id: string) =>
      id === this.nodeId ? PROTOCOL_VERSION : (membership.protocolOf?.(id) ?? 1);
    // Another member's load and heartbeat are what it last told this one, and when: a member not heard from
    // since this daemon started shows that start, so its age reads as how long it has been silent at least.
    const contact = (id: string) =>
      id === this.nodeId ? { heardAt: now, load: this.options.load() } : membership.contactOf(id);
    const nodes: ClusterNodeStatus[] = ids.map((id) => {
      const record = records.find((each) => each.id === id);
      const heard = contact(id);
      return {
        id,
        hostname: record?.hostname ?? '',
        address: id,
        version: record?.version ?? '',
        labels: record?.labels ?? {},
        load: heard?.load ?? 0,
        startedAt: record?.startedAt ?? 0,
        heartbeatAt: heard?.heardAt ?? this.options.startedAt,
        alive: stateOf(id) !== 'dead',
        shards: shards.get(id) ?? 0,
        coordinator: map?.coordinator === id,
        self: id === this.nodeId,
      };
    });
    const owned = [...shards.values()].reduce((sum, count) => sum + count, 0);
    return {
      mode: 'peers',
      node: this.nodeId,
      coordinator: map?.coordinator ?? null,
      term: map?.term ?? 0,
      mapPublishedAt: map?.publishedAt ?? null,
      now,
      nodes,
      unassignedShards: SHARD_COUNT - owned,
      firingLagMs,
      peers: {
        voters,
        voting: voters.includes(this.nodeId),
        leader: raft.leader,
        raftTerm: raft.term,
        members: ids.map((id) => ({ id, state: stateOf(id), protocol: protocolOf(id) })),
      },
    };
  }

  async leave(): Promise<void> {
    this.stopped = true;
    this.timer?.();
  }

  private arm(): void {
    if (this.stopped) return;
    this.timer = this.options.clock.setTimer(this.options.coordinateEveryMs ?? 1_000, () => {
      void this.round().finally(() => this.arm());
    });
  }

  /**
   * One round: register this member if it votes and the log does not have it as it is, and, leading, keep
   * the map current.
   */
  async round(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      const { voters } = this.options.raft;
      if (voters.join() !== this.votersSeen.join()) {
        this.votersSeen = voters;
        if (voters.length > 0) this.options.onVoters?.(voters);
      }
      // With no leader the write could only be refused: the degraded notice already says so, once.
      if (voters.includes(this.nodeId) && this.options.raft.leader !== null) await this.register();
      if (this.options.raft.role === 'leader') await this.coordinate();
    } catch (error) {
      if (!hasErrorCode(error, 'NO_QUORUM')) this.options.onError(error as Error);
    } finally {
      this.busy = false;
    }
  }

  private async register(): Promise<void> {
    const { replication, labels, version, startedAt } = this.options;
    const record: MemberRecord = { id: this.nodeId, hostname: os.hostname(), version, labels, startedAt };
    const known = replication.members().find((member) => member.id === this.nodeId);
    if (known === undefined || JSON.stringify(known) !== JSON.stringify(record))
      await replication.registerMember(record);
  }

  private async coordinate(): Promise<void> {
    const { replication, raft, membership, clock, lease } = this.options;
    const live = replication
      .members()
      .filter(
        (member) =>
          member.id === this.nodeId ||
          (membership.stateOf(member.id) ?? 'dead') !== 'dead' ||
          !memberSurelyStopped(raft.memberSilentForMs(member.id), lease),
      );
    // Fires are fenced by the map in the log, so work may move off a silent voter at once; its runs may not.
    const placeable = (id: string) =>
      raft.voters.includes(id) &&
      (id === this.nodeId || raft.memberUnheardForMs(id) < this.options.placeUnheardForMs);
    const nodes = live.map((member) => ({
      id: member.id,
      labels: placeable(member.id) ? member.labels : {},
    }));
    const owners = assignShards(nodes.filter((node) => placeable(node.id)).map((node) => node.id));
    const assignment = { nodes, owners };
    const current = this.map;
    if (current !== null && current.term === raft.term && sameAssignment(current, assignment)) return;
    const publishedAt = Math.max(clock.now(), (current?.publishedAt ?? 0) + 1);
    await replication.publishMap({ term: raft.term, coordinator: this.nodeId, publishedAt, ...assignment });
  }
}
