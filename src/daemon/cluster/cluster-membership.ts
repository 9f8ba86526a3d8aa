import type { Cluster } from '../../cluster/cluster.js';
import { PostgresCluster, type PostgresClusterOptions } from '../../cluster/postgres-cluster.js';
import { SingleNodeCluster, type SingleNodeOptions } from '../../cluster/single-node-cluster.js';
import type { Service } from '../service.js';
import { reachPostgres, type StoreTarget } from '../store-target.js';

export type ClusterSettings = Omit<PostgresClusterOptions, 'server'> & Omit<SingleNodeOptions, 'nodeId'>;

/**
 * This daemon's place in its cluster, for as long as it runs: the daemons sharing its PostgreSQL store,
 * or itself alone on a SQLite one. Which it is follows from the store; everything else asks the Cluster.
 */
export class ClusterMembership implements Service {
  readonly name = 'cluster membership';
  private joined: Cluster | null = null;

  constructor(
    private readonly target: StoreTarget,
    private readonly settings: ClusterSettings,
    private readonly hostname: string,
  ) {}

  get cluster(): Cluster {
    if (this.joined === null) throw new Error('the cluster is used before it was joined');
    return this.joined;
  }

  async start(): Promise<void> {
    const target = this.target;
    this.joined =
      target.kind === 'postgres'
        ? await reachPostgres(target.url, () =>
            PostgresCluster.join({ ...this.settings, server: { url: target.url, tls: target.tls } }),
          )
        : new SingleNodeCluster({ ...this.settings, nodeId: this.hostname });
  }

  async stop(): Promise<void> {
    await this.joined?.leave();
  }
}
