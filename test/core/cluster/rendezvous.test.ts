import { describe, expect, it } from 'vitest';
import { assignShards, rendezvousOwner } from '../../../src/core/cluster/rendezvous.js';
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

  it('given three nodes, gives every shard to one of them and each roughly a third', () => {
    const owners = assignShards([A, B, C]);

    expect(owners).toHaveLength(SHARD_COUNT);
    expect(new Set(owners)).toEqual(new Set([A, B, C]));
    for (const node of [A, B, C]) {
      expect(shardsOf(owners, node).length).toBeGreaterThanOrEqual(60);
      expect(shardsOf(owners, node).length).toBeLessThanOrEqual(110);
    }
  });

  it('given a node leaves, moves only the shards it owned and keeps every other owner', () => {
    const before = assignShards([A, B, C, D]);
    const after = assignShards([A, B, D]);

    const moved = before.flatMap((owner, shard) => (owner !== after[shard] ? [shard] : []));
    expect(moved).toEqual(shardsOf(before, C));
    expect(moved.length).toBeGreaterThan(0);
    expect(after).not.toContain(C);
  });

  it('given a node joins, moves shards only to the newcomer', () => {
    const before = assignShards([A, B, C]);
    const after = assignShards([A, B, C, D]);

    const moved = before.flatMap((owner, shard) => (owner !== after[shard] ? [shard] : []));
    expect(moved).toEqual(shardsOf(after, D));
    // About a quarter of the shards, not a reshuffle.
    expect(moved.length).toBeGreaterThan(40);
    expect(moved.length).toBeLessThan(90);
  });
});

describe('rendezvousOwner', () => {
  it('given a shard, picks the same owner that assignShards does', () => {
    const owners = assignShards([A, B, C]);
    for (let shard = 0; shard < SHARD_COUNT; shard += 1) {
      expect(rendezvousOwner(shard, [A, B, C])).toBe(owners[shard]);
    }
  });

  it('given no candidates, returns null', () => {
    expect(rendezvousOwner(7, [])).toBeNull();
  });
});
