import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Cluster } from '../../../src/cluster/cluster.js';
import { PostgresCluster } from '../../../src/cluster/postgres-cluster.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { migratePostgres } from '../../../src/store/postgres/connection.js';
import { usePostgres } from '../../support/postgres.js';
import { agreeOnMap, describeClusterContract } from './cluster-contract.js';

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
      await agreeOnMap(nodes);
      return nodes;
    },
    cleanup: async () => {
      for (const node of joined.splice(0)) await node.leave();
      for (const home of homes.splice(0)) fs.rmSync(home, { recursive: true, force: true });
      await database.drop();
    },
  };
});
