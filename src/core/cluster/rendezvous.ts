import { hash32 } from './hash.js';
import { SHARD_COUNT } from './shard.js';

/**
 * Rendezvous (highest-random-weight) hashing: every node draws a weight for the shard and the heaviest
 * owns it. A node that leaves gives up only its own shards, and a node that joins takes only the
 * shards it wins, so few jobs change hands when membership changes.
 */
export function rendezvousOwner(shard: number, nodeIds: readonly string[]): string | null {
  let owner: string | null = null;
  let ownerWeight = -1;
  for (const nodeId of nodeIds) {
    const weight = rendezvousWeight(nodeId, shard);
    // Equal weights are broken by id, so the owner never depends on the order of `nodeIds`.
    if (weight > ownerWeight || (weight === ownerWeight && owner !== null && nodeId < owner)) {
      owner = nodeId;
      ownerWeight = weight;
    }
  }
  return owner;
}

/** The owner of every shard, by shard index; all null when there are no nodes. */
export function assignShards(nodeIds: readonly string[]): (string | null)[] {
  const candidates = [...new Set(nodeIds)];
  return Array.from({ length: SHARD_COUNT }, (_, shard) => rendezvousOwner(shard, candidates));
}

function rendezvousWeight(nodeId: string, shard: number): number {
  return hash32(`${shard}/${nodeId}`);
}
