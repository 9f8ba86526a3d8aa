import os from 'node:os';
import { labelsMatch } from '../core/cluster/shard-map.js';
import { SHARD_COUNT } from '../core/cluster/shard.js';
import type { Clock } from '../core/clock.js';
import type { ClusterStatus } from '../ipc/protocol.js';
import type { Cluster, FireFence, PlacedJob } from './cluster.js';

export interface SingleNodeOptions {
  nodeId: string;
  version: string;
  labels: Record<string, string>;
  /** The store's fence epoch, taken once at start: what `SCHED_FENCE` carries on a daemon alone. */
  epoch: number;
  clock: Clock;
  startedAt: number;
  /** Runs running here now. */
  load: () => number;
}

/**
 * A daemon alone on its store: a cluster of one, coordinator of every shard. It fires every job (an
 * `every-host` job's every host is this one, and `--on` has no other node to choose), its map never
 * changes, and nothing can take a fire from it, so it needs no fence at the fire.
 */
export class SingleNodeCluster implements Cluster {
  readonly shared = false;
  readonly nodeId: string;

  constructor(private readonly options: SingleNodeOptions) {
    this.nodeId = options.nodeId;
  }

  fenceToken(): number {
    return this.options.epoch;
  }

  fireFence(): FireFence | undefined {
    return undefined;
  }

  owns(): boolean {
    return true;
  }

  matches(job: PlacedJob): boolean {
    return labelsMatch(this.options.labels, job.placement.on);
  }

  runnersOf(): string[] {
    return [this.nodeId];
  }

  startsWaitingRun(): boolean {
    return true;
  }

  isCoordinator(): boolean {
    return true;
  }

  onMapChanged(): void {
    // A cluster of one has one map, for as long as it runs.
  }

  async status(firingLagMs: number | null): Promise<ClusterStatus> {
    const { nodeId, version, labels, epoch, startedAt } = this.options;
    const now = this.options.clock.now();
    return {
      mode: 'single',
      node: nodeId,
      coordinator: nodeId,
      term: epoch,
      mapPublishedAt: null,
      now,
      nodes: [
        {
          id: nodeId,
          hostname: os.hostname(),
          address: '',
          version,
          labels,
          load: this.options.load(),
          startedAt,
          heartbeatAt: now,
          alive: true,
          shards: SHARD_COUNT,
          coordinator: true,
          self: true,
        },
      ],
      unassignedShards: 0,
      firingLagMs,
    };
  }

  async leave(): Promise<void> {
    // Nothing to hand over: the store is this node's alone.
  }
}
