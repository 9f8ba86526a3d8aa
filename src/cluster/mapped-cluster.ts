import { runPlacement } from '../core/cluster/run-placement.js';
import { labelsMatch, ownerOf, type ShardMap } from '../core/cluster/shard-map.js';
import type { Run } from '../core/run.js';
import type { FireFence, PlacedJob } from './cluster.js';

/**
 * What a cluster that fires from a published shard map answers from the map alone, whatever publishes it
 * (a coordinator lease in PostgreSQL, the Raft leader through the log): who fires a job, where its runs
 * go, who starts a waiting run, and the fence of a fire.
 */
export abstract class MappedCluster {
  readonly shared = true;

  protected constructor(
    readonly nodeId: string,
    private readonly labels: Record<string, string>,
  ) {}

  /** The map this node acts on; null before the first. */
  protected abstract get map(): ShardMap | null;

  fenceToken(): number {
    return this.map?.term ?? 0;
  }

  /** It owns the job's shard (among the nodes matching `--on`); `every-host` jobs fire on each node apart. */
  owns(job: PlacedJob): boolean {
    if (job.placement.mode === 'every-host') return false;
    const map = this.map;
    return map !== null && ownerOf(job.id, job.placement.on, map) === this.nodeId;
  }

  matches(job: PlacedJob): boolean {
    return labelsMatch(this.labels, job.placement.on);
  }

  runnersOf(job: PlacedJob): string[] {
    const map = this.map;
    return map === null ? [] : runPlacement(job.id, job.placement, map);
  }

  startsWaitingRun(run: Pick<Run, 'node'>, job: PlacedJob): boolean {
    if (run.node === this.nodeId) return true;
    const makerInMap = this.map?.nodes.some((node) => node.id === run.node) ?? false;
    return !makerInMap && this.owns(job);
  }

  fireFence(): FireFence | undefined {
    const map = this.map;
    return map === null ? undefined : { term: map.term, publishedAt: map.publishedAt };
  }
}
