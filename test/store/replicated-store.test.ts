import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ReplicaCluster } from '../support/replica-cluster.js';
import { waitFor } from '../support/sched-harness.js';
import { describeStoreConformance } from './store-conformance.js';

// Peer mode's store must keep every rule SQLite's and PostgreSQL's keep: each case writes through a member
// that does not lead, so every write crosses the wire, is committed by the majority and applied here.
describeStoreConformance('Replicated (three members, through a follower)', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-replicated-conformance-'));
  const cluster = new ReplicaCluster(dir, ['n1', 'n2', 'n3']);
  cluster.startAll();
  await waitFor(async () => cluster.leader() !== undefined, 10_000, 10);
  return {
    store: cluster.follower().store,
    cleanup: async () => {
      await cluster.stopAll();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});
