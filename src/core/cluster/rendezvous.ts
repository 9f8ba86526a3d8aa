import { hash32 } from './hash.js';
import { SHARD_COUNT } from './shard.js';

/**
 * Rendezvous (highest-random-weight) hashing with bounded loads. Every node draws a weight for every
 * shard; the (shard, node) pairs are taken heaviest first, and each shard goes to the first node drawn for
 * it that still has room, at most ceil(shards / nodes) shards a node. The order of `nodeIds` never matters.
 *
 * Why the bound: plain rendezvous hashing (the heaviest node owns the shard) moves the fewest shards when
 * membership changes, but it left one node of five with 70 of the 256 shards and another with 35, and the
 * busiest node limits the fires a cluster sustains. Bounded, the busiest holds 52. A join or a leave still
 * moves mostly the shards it must (the newcomer's share, the leaver's own): over random ids of 2 to 8 nodes,
 * 3 to 27 % more than those on average, 50 % more at worst.
 */
export function assignShards(nodeIds: readonly string[]): (string | null)[] {
  const nodes = [...new Set(nodeIds)].sort();
  const owners: (string | null)[] = new Array<string | null>(SHARD_COUNT).fill(null);
  if (nodes.length === 0) return owners;
  const room = Math.ceil(SHARD_COUNT / nodes.length);
  const pairs: Array<{ weight: number; node: number; shard: number }> = [];
  for (let shard = 0; shard < SHARD_COUNT; shard += 1)
    nodes.forEach((nodeId, node) => pairs.push({ weight: rendezvousWeight(nodeId, shard), node, shard }));
  // Equal weights are broken by id (nodes are sorted), so the owners never depend on the input's order.
  pairs.sort((a, b) => b.weight - a.weight || a.node - b.node);
  const held = new Array<number>(nodes.length).fill(0);
  for (const { node, shard } of pairs) {
    if (owners[shard] !== null || held[node]! >= room) continue;
    owners[shard] = nodes[node]!;
    held[node]! += 1;
  }
  return owners;
}

/**
 * Plain rendezvous hashing: the node of the heaviest weight for the shard, equal weights broken by id (null:
 * no node). What a constrained job's owner is (see ownerOf), as every version has computed it.
 */
export function rendezvousOwner(shard: number, nodeIds: readonly string[]): string | null {
  let owner: string | null = null;
  let ownerWeight = -1;
  for (const nodeId of nodeIds) {
    const weight = rendezvousWeight(nodeId, shard);
    if (weight > ownerWeight || (weight === ownerWeight && owner !== null && nodeId < owner)) {
      owner = nodeId;
      ownerWeight = weight;
    }
  }
  return owner;
}

function rendezvousWeight(nodeId: string, shard: number): number {
  return hash32(`${shard}/${nodeId}`);
}
