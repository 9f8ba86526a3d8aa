import type { Job } from '../core/job.js';
import type { ShardMap } from '../core/cluster/shard-map.js';
import type { Run } from '../core/run.js';
import type { ClusterStatus } from '../ipc/protocol.js';

/** What the cluster needs to know of a job: where it may run. */
export type PlacedJob = Pick<Job, 'id' | 'placement'>;

export type MapListener = (map: ShardMap, previous: ShardMap | null) => void;

/** The map a fire was decided on, which the store checks is still in force when it commits the fire. */
export interface FireFence {
  term: number;
  publishedAt: number;
}

/**
 * What a daemon asks of the cluster it belongs to: who it is, which jobs it fires, where a run executes,
 * what fences its runs, and what the cluster looks like. A daemon alone on its store is a cluster of one
 * (SingleNodeCluster); daemons sharing a PostgreSQL store form a federation (PostgresCluster). Nothing
 * outside an implementation reaches the database behind it.
 */
export interface Cluster {
  /** This node's id, which its runs carry. */
  readonly nodeId: string;
  /**
   * Whether other daemons share this node's store. Then jobs change under it from elsewhere, `every-host`
   * jobs fire on each node separately, and a run another node left `running` is that node's business;
   * alone, every run left `running` at start is a dead daemon's.
   */
  readonly shared: boolean;
  /** The fencing token of this node's runs (`SCHED_FENCE`): the term of the map it acts on. */
  fenceToken(): number;
  /** The map this node fires from, for the store to check at the fire; undefined when nothing can move. */
  fireFence(): FireFence | undefined;
  /** Whether this node fires the job's shared instants. */
  owns(job: PlacedJob): boolean;
  /** Whether this node's labels match every `--on KEY=VALUE` of the job. */
  matches(job: PlacedJob): boolean;
  /** The nodes where a run of the job executes now (see runPlacement); empty when none qualifies. */
  runnersOf(job: PlacedJob): string[];
  /** Whether this node starts a waiting run: the node that made it, or the job's owner once that node is gone. */
  startsWaitingRun(run: Pick<Run, 'node'>, job: PlacedJob): boolean;
  isCoordinator(): boolean;
  /** Called with every new map (a new term or assignment), and the one before it. */
  onMapChanged(listener: MapListener): void;
  status(firingLagMs: number | null): Promise<ClusterStatus>;
  /** Leaves the cluster: what this node owned moves on at once. */
  leave(): Promise<void>;
}
