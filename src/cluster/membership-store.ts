import type { ClusterNode, ClusterNodeInfo, CoordinatorLease } from '../core/cluster/membership.js';
import type { ShardAssignment, ShardMap } from '../core/cluster/shard-map.js';

/**
 * What a cluster member needs from the shared database (PostgresClusterStore in Postgres mode). Every
 * instant in and out is on the database's clock.
 */
export interface MembershipStore {
  heartbeat(node: ClusterNodeInfo): Promise<number>;
  listNodes(): Promise<{ nodes: ClusterNode[]; dbNow: number }>;
  removeNode(id: string): Promise<void>;
  acquireOrRenewLease(nodeId: string, ttlMs: number): Promise<CoordinatorLease>;
  releaseLease(nodeId: string, term: number): Promise<boolean>;
  publishMap(nodeId: string, term: number, assignment: ShardAssignment): Promise<boolean>;
  loadMap(): Promise<ShardMap | null>;
}
