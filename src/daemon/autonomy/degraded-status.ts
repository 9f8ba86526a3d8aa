import type { Cluster } from '../../cluster/cluster.js';
import type { ClusterStatus } from '../../ipc/protocol.js';
import { isStoreUnreachable } from '../../store/unreachable.js';
import type { Clock } from '../clock.js';
import type { StoreReachability } from './store-reachability.js';

/**
 * `sched cluster status` in any weather: the federation's status with the degraded notice while the store
 * cannot be reached; when the membership cannot be read either, what this node knows by itself.
 */
export async function clusterStatusOrDegraded(
  cluster: Cluster,
  reachability: StoreReachability,
  clock: Clock,
  firingLagMs: number | null,
): Promise<ClusterStatus> {
  try {
    const status = await cluster.status(firingLagMs);
    const degraded = reachability.notice();
    return degraded === null ? status : { ...status, degraded };
  } catch (error) {
    if (!isStoreUnreachable(error)) throw error;
    reachability.failed(error);
    return {
      mode: 'federated',
      node: cluster.nodeId,
      coordinator: null,
      term: cluster.fenceToken(),
      mapPublishedAt: null,
      now: clock.now(),
      nodes: [],
      unassignedShards: 0,
      firingLagMs,
      degraded: reachability.notice() ?? undefined,
    };
  }
}
