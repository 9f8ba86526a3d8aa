import os from 'node:os';
import type pg from 'pg';
import { DEFAULT_LEASE_TTL_MS } from '../core/cluster/lease-timing.js';
import { liveNodes } from '../core/cluster/liveness.js';
import type { ShardMap } from '../core/cluster/shard-map.js';
import { SHARD_COUNT } from '../core/cluster/shard.js';
import type { Clock } from '../core/clock.js';
import type { ClusterNodeStatus, ClusterStatus } from '../ipc/protocol.js';
import { PostgresClusterStore } from '../store/postgres/cluster-store.js';
import { openPostgresPool } from '../store/postgres/connection.js';
import type { PostgresServer } from '../store/postgres/tls-options.js';
import type { Cluster, MapListener } from './cluster.js';
import { MappedCluster } from './mapped-cluster.js';
import { ClusterMember } from './cluster-member.js';
import { loadNodeId } from './node-identity.js';

export interface PostgresClusterOptions {
  server: PostgresServer;
  home: string;
  version: string;
  /** `--label KEY=VALUE` of this node, matched by jobs' `--on`. */
  labels: Record<string, string>;
  /** This node's metrics/health address, '' when it serves none. */
  address: () => string;
  /** Runs running here now. */
  load: () => number;
  heartbeatIntervalMs?: number;
  leaseTtlMs?: number;
  clock: Clock;
  onError: (error: Error) => void;
}

/**
 * This daemon's membership of a PostgreSQL federation: its node id, the cluster member loop (heartbeats,
 * coordinator lease, shard map), and the answers the daemon asks of it: does this node fire that job,
 * from which map (the fence), and what does the cluster look like.
 */
export class PostgresCluster extends MappedCluster implements Cluster {
  private readonly listeners: MapListener[] = [];
  private previous: ShardMap | null = null;

  private constructor(
    nodeId: string,
    private readonly member: ClusterMember,
    private readonly store: PostgresClusterStore,
    private readonly pool: pg.Pool,
    private readonly deadAfterMs: number,
    labels: Record<string, string>,
  ) {
    super(nodeId, labels);
    member.on('map:changed', (map) => {
      const previous = this.previous;
      this.previous = map;
      for (const listener of this.listeners) listener(map, previous);
    });
  }

  static async join(options: PostgresClusterOptions): Promise<PostgresCluster> {
    const nodeId = loadNodeId(options.home);
    const leaseTtlMs = options.leaseTtlMs ?? DEFAULT_LEASE_TTL_MS;
    const pool = await openPostgresPool(options.server, {
      poolSize: 3,
      applicationName: 'sched-cluster',
      stalledTransactionTimeoutMs: leaseTtlMs,
    });
    const store = new PostgresClusterStore(pool);
    const heartbeatIntervalMs = options.heartbeatIntervalMs ?? 2_000;
    const deadAfterMs = 3 * heartbeatIntervalMs;
    const member = new ClusterMember({
      store,
      clock: options.clock,
      heartbeatIntervalMs,
      leaseTtlMs,
      deadAfterMs,
      node: () => ({
        id: nodeId,
        hostname: os.hostname(),
        address: options.address(),
        version: options.version,
        labels: options.labels,
        load: options.load(),
      }),
    });
    member.on('member:error', ({ error }) => options.onError(error));
    const cluster = new PostgresCluster(nodeId, member, store, pool, deadAfterMs, options.labels);
    await member.start();
    cluster.previous = member.currentMap();
    return cluster;
  }

  onMapChanged(listener: MapListener): void {
    this.listeners.push(listener);
  }

  protected get map(): ShardMap | null {
    return this.member.currentMap();
  }

  isCoordinator(): boolean {
    return this.member.isCoordinator();
  }

  async status(firingLagMs: number | null): Promise<ClusterStatus> {
    const map = this.map;
    const { nodes, dbNow } = await this.store.listNodes();
    const alive = new Set(liveNodes(nodes, dbNow, this.deadAfterMs).map((node) => node.id));
    const shards = new Map<string, number>();
    for (const owner of map?.owners ?? [])
      if (owner !== null) shards.set(owner, (shards.get(owner) ?? 0) + 1);
    const rows: ClusterNodeStatus[] = nodes.map((node) => ({
      ...node,
      alive: alive.has(node.id),
      shards: shards.get(node.id) ?? 0,
      coordinator: map?.coordinator === node.id,
      self: node.id === this.nodeId,
    }));
    const owned = [...shards.values()].reduce((sum, count) => sum + count, 0);
    return {
      mode: 'federated',
      node: this.nodeId,
      coordinator: map?.coordinator ?? null,
      term: map?.term ?? 0,
      mapPublishedAt: map?.publishedAt ?? null,
      now: dbNow,
      nodes: rows.sort((a, b) => a.hostname.localeCompare(b.hostname) || a.id.localeCompare(b.id)),
      unassignedShards: SHARD_COUNT - owned,
      firingLagMs,
    };
  }

  /** Hands the lease over and drops out of the map at once. */
  async leave(): Promise<void> {
    await this.member.stop({ leave: true }).catch(() => undefined);
    await this.pool.end().catch(() => undefined);
  }
}
