import os from 'node:os';
import { SingleNodeCluster } from '../../../src/cluster/single-node-cluster.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { describeClusterContract } from './cluster-contract.js';

describeClusterContract('A daemon alone', { nodes: 1 }, async () => ({
  join: async (labels) => {
    if (labels.length !== 1) throw new Error('a daemon alone is a cluster of exactly one node');
    return [
      new SingleNodeCluster({
        nodeId: os.hostname(),
        version: '0.0.0-contract',
        labels: labels[0]!,
        epoch: 7,
        clock: systemClock,
        startedAt: systemClock.now(),
        load: () => 0,
      }),
    ];
  },
  cleanup: async () => undefined,
}));
