import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Cluster } from '../../../src/cluster/cluster.js';
import { PeerCluster } from '../../../src/cluster/peer-cluster.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { ReplicaCluster } from '../../support/replica-cluster.js';
import { waitFor } from '../../support/sched-harness.js';
import { agreeOnMap, describeClusterContract } from './cluster-contract.js';

// Raft over the in-process wire of ReplicaCluster; membership sees a member alive while it runs.
describeClusterContract('Peers', { nodes: 3 }, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-peer-contract-'));
  let replicas: ReplicaCluster | null = null;
  const joined: PeerCluster[] = [];
  return {
    join: async (labels): Promise<Cluster[]> => {
      const ids = labels.map((_, index) => `127.0.0.1:${7_000 + index}`);
      replicas = new ReplicaCluster(dir, ids);
      replicas.startAll();
      await waitFor(async () => replicas!.leader() !== undefined, 10_000, 10);
      const nodes = ids.map((id, index) => {
        const member = replicas!.member(id);
        const cluster = new PeerCluster({
          self: id,
          labels: labels[index]!,
          version: '0.0.0-contract',
          raft: member.host,
          replication: member.replication,
          membership: {
            stateOf: (other) => (replicas!.members.has(other) ? 'alive' : 'dead'),
            contactOf: () => undefined,
          },
          // Short, as the contract's timings are: a member that left leaves the map within a second.
          lease: { durationMs: 200, stopMs: 100, maxDrift: 0.05 },
          placeUnheardForMs: 300,
          clock: systemClock,
          startedAt: systemClock.now(),
          load: () => 0,
          coordinateEveryMs: 50,
          onError: () => undefined,
        });
        // Leaving is stopping: the member's Raft and copy go with it, and membership sees it dead.
        const leave = cluster.leave.bind(cluster);
        cluster.leave = async () => {
          await leave();
          await replicas!.stop(id);
        };
        cluster.start();
        return cluster;
      });
      joined.push(...nodes);
      await agreeOnMap(nodes);
      return nodes;
    },
    cleanup: async () => {
      for (const node of joined.splice(0)) await node.leave();
      await replicas?.stopAll();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
