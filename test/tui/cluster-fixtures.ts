import type { ClusterNodeStatus, ClusterStatus } from '../../src/ipc/protocol.js';
import { NOW } from './fixtures.js';

export const SELF_ID = '3f2a9c1e-0000-4000-8000-000000000001';
export const COORDINATOR_ID = '8b1d2e3f-0000-4000-8000-000000000002';
export const WORKER_ID = 'a0c4e7d9-0000-4000-8000-000000000003';
export const DEAD_ID = '77aa0011-0000-4000-8000-000000000004';

export function clusterNode(
  overrides: Partial<ClusterNodeStatus> & { id: string; hostname: string },
): ClusterNodeStatus {
  return {
    address: '',
    version: '0.1.0',
    labels: {},
    load: 0,
    startedAt: NOW - 3_600_000,
    heartbeatAt: NOW - 1_000,
    alive: true,
    shards: 0,
    coordinator: false,
    self: false,
    ...overrides,
  };
}

/** Four daemons on PostgreSQL, seen from build-01: build-02 coordinates, build-04 stopped answering. */
export const federated: ClusterStatus = {
  mode: 'federated',
  node: SELF_ID,
  coordinator: COORDINATOR_ID,
  term: 42,
  mapPublishedAt: NOW - 12_000,
  now: NOW,
  // Not in display order: the daemon's order is not the one people read.
  nodes: [
    clusterNode({ id: DEAD_ID, hostname: 'build-04', alive: false, heartbeatAt: NOW - 150_000 }),
    clusterNode({
      id: SELF_ID,
      hostname: 'build-01',
      self: true,
      shards: 86,
      load: 2,
      heartbeatAt: NOW - 400,
      labels: { zone: 'a' },
    }),
    clusterNode({ id: WORKER_ID, hostname: 'build-03', shards: 85, load: 5, heartbeatAt: NOW - 900 }),
    clusterNode({
      id: COORDINATOR_ID,
      hostname: 'build-02',
      coordinator: true,
      shards: 85,
      heartbeatAt: NOW - 1_200,
      labels: { zone: 'b' },
    }),
  ],
  unassignedShards: 0,
  firingLagMs: 12,
};

/** One daemon on its own SQLite store: its own coordinator, with every shard. */
export const single: ClusterStatus = {
  mode: 'single',
  node: SELF_ID,
  coordinator: SELF_ID,
  term: 1,
  mapPublishedAt: NOW - 3 * 3_600_000,
  now: NOW,
  nodes: [
    clusterNode({
      id: SELF_ID,
      hostname: 'build-01',
      self: true,
      coordinator: true,
      shards: 256,
      heartbeatAt: NOW - 300,
    }),
  ],
  unassignedShards: 0,
  firingLagMs: null,
};
