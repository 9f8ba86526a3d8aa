/** What a node says about itself in every heartbeat. */
export interface ClusterNodeInfo {
  id: string;
  hostname: string;
  /** The node's metrics/health address, or '' when it serves none. */
  address: string;
  version: string;
  labels: Record<string, string>;
  /** Runs the node has running right now. */
  load: number;
  /** When the node started, in ms since the epoch; the database's time of its first heartbeat if omitted. */
  startedAt?: number;
}

/** A node as the cluster sees it. Instants are on the database's clock. */
export interface ClusterNode extends Required<ClusterNodeInfo> {
  heartbeatAt: number;
}

/** The coordinator lease after an attempt to acquire or renew it. Instants are on the database's clock. */
export interface CoordinatorLease {
  holder: string | null;
  /** The fencing token: it grows by one at every change of holder and never goes down. */
  term: number;
  expiresAt: number;
  dbNow: number;
  /** Whether the asking node holds the lease now. */
  acquired: boolean;
}
