import os from 'node:os';
import { SHARD_COUNT } from '../../core/cluster/shard.js';
import type { ClusterStatus } from '../../ipc/protocol.js';

/** A daemon on its own store is a cluster of one: itself, coordinator of every shard. */
export function singleNodeStatus(seen: {
  node: string;
  version: string;
  startedAt: number;
  now: number;
  load: number;
  firingLagMs: number | null;
  /** The store's fence epoch: what `SCHED_FENCE` carries on a single daemon. */
  term: number;
  labels: Record<string, string>;
}): ClusterStatus {
  const { node, version, startedAt, now, load, firingLagMs, term, labels } = seen;
  return {
    mode: 'single',
    node,
    coordinator: node,
    term,
    mapPublishedAt: null,
    now,
    nodes: [
      {
        id: node,
        hostname: os.hostname(),
        address: '',
        version,
        labels,
        load,
        startedAt,
        heartbeatAt: now,
        alive: true,
        shards: SHARD_COUNT,
        coordinator: true,
        self: true,
      },
    ],
    unassignedShards: 0,
    firingLagMs,
  };
}
