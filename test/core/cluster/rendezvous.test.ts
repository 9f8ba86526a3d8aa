import { describe, expect, it } from 'vitest';
import { assignShards } from '../../../src/core/cluster/rendezvous.js';
import { SHARD_COUNT } from '../../../src/core/cluster/shard.js';

const A = '3f2b8c1e-0d4a-4f6b-9c2e-7a1d5e8f9b0c';
const B = 'a91c4e7d-52f0-4b3a-8e6d-1c9f0b2a7d43';
const C = 'd0e5f6a7-b8c9-4d1e-a2f3-04152637485a';
const D = '6b7c8d9e-0f1a-4b2c-9d3e-4f5a6b7c8d9e';

function shardsOf(owners: readonly (string | null)[], node: string): number[] {
  return owners.flatMap((owner, shard) => (owner === node ? [shard] : []));
}

describe('assignShards', () => {
  it('given no nodes, leaves every shard without an owner', () => {
    expect(assignShards([])).toEqual(new Array(SHARD_COUNT).fill(null));
  });

  it('given one node, gives it every shard', () => {
    expect(assignShards([A])).toEqual(new Array(SHARD_COUNT).fill(A));
  });

  it('given the same nodes in any order (or listed twice), gives the same owners', () => {
    const owners = assignShards([A, B, C]);
    expect(assignShards([C, A, B])).toEqual(owners);
    expect(assignShards([B, C, A, B])).toEqual(owners);
  });

  it('given two to eight nodes, gives every shard to one of them, none more than its even share rounded up', () => {
    for (let count = 2; count <= 8; count += 1) {
      const nodes = Array.from({ length: count }, (_, index) => `127.0.0.1:${7946 + index}`);
      const owners = assignShards(nodes);
      const room = Math.ceil(SHARD_COUNT / count);

      expect(owners.every((owner) => owner !== null && nodes.includes(owner))).toBe(true);
      for (const node of nodes) {
        expect(shardsOf(owners, node).length).toBeLessThanOrEqual(room);
        // The others hold at most their room, so each holds at least what that leaves.
        expect(shardsOf(owners, node).length).toBeGreaterThanOrEqual(SHARD_COUNT - (count - 1) * room);
      }
    }
  });

  it('given a node leaves, moves every shard it owned and few others', () => {
    const before = assignShards([A, B, C, D]);
    const after = assignShards([A, B, D]);

    const moved = before.flatMap((owner, shard) => (owner !== after[shard] ? [shard] : []));
    expect(moved).toEqual(expect.arrayContaining(shardsOf(before, C)));
    expect(moved.length).toBeLessThanOrEqual(1.5 * shardsOf(before, C).length);
    expect(after).not.toContain(C);
  });

  it('given a node joins, moves its share to it and few others', () => {
    const before = assignShards([A, B, C]);
    const after = assignShards([A, B, C, D]);

    const moved = before.flatMap((owner, shard) => (owner !== after[shard] ? [shard] : []));
    expect(moved).toEqual(expect.arrayContaining(shardsOf(after, D)));
    expect(shardsOf(after, D).length).toBeGreaterThanOrEqual(SHARD_COUNT / 4 - 3);
    expect(moved.length).toBeLessThanOrEqual(1.5 * shardsOf(after, D).length);
  });
});
