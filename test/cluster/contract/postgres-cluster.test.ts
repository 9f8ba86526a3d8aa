import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Cluster } from '../../../src/cluster/cluster.js';
import { PostgresCluster } from '../../../src/cluster/postgres-cluster.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { migratePostgres } from '../../../src/store/postgres/connection.js';
import { usePostgres } from '../../support/postgres.js';
import { describeClusterContract } from './cluster-contract.js';

const postgres = usePostgres();
// Slow enough that a loaded machine does not make a node miss its heartbeats and move shards mid-test.
const TIMING = { heartbeatIntervalMs: 400, leaseTtlMs: 4_000 };

describeClusterContract('PostgreSQL', { nodes: 3 }, async () => {
  const database = await postgres.freshDatabase();
  await migratePostgres(database.url, 'sched-contract');
  const homes: string[] = [];
  const joined: Cluster[] = [];
  return {
    join: async (labels) => {
      const nodes = await Promise.all(
        labels.map((nodeLabels) => {
          const home = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-contract-'));
          homes.push(home);
          return PostgresCluster.join({
            server: database.url,
            home,
            version: '0.0.0-contract',
            labels: nodeLabels,
            address: () => '',
            load: () => 0,
            ...TIMING,
            clock: systemClock,
            onError: () => undefined,
          });
        }),
      );
      joined.push(...nodes);
      await agree(nodes);
      return nodes;
    },
    cleanup: async () => {
      for (const node of joined.splice(0)) await node.leave();
      for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
      await database.drop();
    },
  };
});

/** Resolves once every node acts on one map (same term, same publication) that gives each of them shards. */
async function agree(nodes: Cluster[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const statuses = await Promise.all(nodes.map((node) => node.status(null)));
    const first = statuses[0]!;
    const same = statuses.every(
      (status) => status.term === first.term && status.mapPublishedAt === first.mapPublishedAt,
    );
    const everyNodeOwns = first.nodes.filter((row) => row.shards > 0).length === nodes.length;
    if (same && first.mapPublishedAt !== null && everyNodeOwns && first.unassignedShards === 0) return;
    if (Date.now() > deadline)
      throw new Error(`the nodes did not agree on a map: ${JSON.stringify(statuses)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
