import { describe, expect, it } from 'vitest';
import { assignShards } from '../../../src/core/cluster/rendezvous.js';
import { hash32 } from '../../../src/core/cluster/hash.js';
import { SHARD_COUNT, shardOf } from '../../../src/core/cluster/shard.js';
import { ownerOf, sameAssignment } from '../../../src/core/cluster/shard-map.js';
import type { ShardMap } from '../../../src/core/cluster/shard-map.js';

const nodes: ShardMap['nodes'] = [
  { id: 'node-a', labels: { region: 'eu', gpu: 'yes' } },
  { id: 'node-b', labels: { region: 'eu' } },
  { id: 'node-c', labels: { region: 'us', gpu: 'yes' } },
];

function mapOver(members: ShardMap['nodes']): ShardMap {
  return {
    term: 3,
    coordinator: 'node-a',
    publishedAt: 1_700_000_000_000,
    nodes: members,
    owners: assignShards(members.map((node) => node.id)),
  };
}

const jobIds = Array.from(
  { length: 300 },
  (_, index) => `0196f3a2-7b1c-7def-8abc-${String(index).padStart(12, '0')}`,
);

describe('ownerOf', () => {
  const map = mapOver(nodes);

  it('given no constraint, returns the owner of the job shard', () => {
    for (const jobId of jobIds) expect(ownerOf(jobId, {}, map)).toBe(map.owners[shardOf(jobId)]);
  });

  it('given a constraint, returns only nodes whose labels match every KEY=VALUE', () => {
    const owners = new Set(jobIds.map((jobId) => ownerOf(jobId, { region: 'eu', gpu: 'yes' }, map)));
    expect(owners).toEqual(new Set(['node-a']));
  });

  it('given a constraint several nodes match, spreads the jobs over all of them', () => {
    const owners = jobIds.map((jobId) => ownerOf(jobId, { region: 'eu' }, map));
    expect(new Set(owners)).toEqual(new Set(['node-a', 'node-b']));
    expect(owners.filter((owner) => owner === 'node-a').length).toBeGreaterThan(100);
    expect(owners.filter((owner) => owner === 'node-b').length).toBeGreaterThan(100);
  });

  it('given a constraint, picks the owner plain rendezvous hashing picks among the eligible nodes, as every version does', () => {
    // Plain rendezvous hashing as older versions compute it: the heaviest hash32 of `shard/node` wins.
    const plainOwner = (shard: number, eligible: string[]) =>
      [...eligible].sort((a, b) => hash32(`${shard}/${b}`) - hash32(`${shard}/${a}`))[0] ?? null;
    for (const jobId of jobIds) {
      expect(ownerOf(jobId, { gpu: 'yes' }, map)).toBe(plainOwner(shardOf(jobId), ['node-a', 'node-c']));
      expect(ownerOf(jobId, { region: 'eu' }, map)).toBe(plainOwner(shardOf(jobId), ['node-a', 'node-b']));
    }
  });

  it('given a constraint no node matches, returns null', () => {
    expect(ownerOf(jobIds[0]!, { region: 'ap' }, map)).toBeNull();
    expect(ownerOf(jobIds[0]!, { region: 'eu', gpu: 'no' }, map)).toBeNull();
  });

  it('given a map with no live nodes, returns null', () => {
    const empty: ShardMap = { ...map, nodes: [], owners: new Array(SHARD_COUNT).fill(null) };
    expect(ownerOf(jobIds[0]!, {}, empty)).toBeNull();
    expect(ownerOf(jobIds[0]!, { region: 'eu' }, empty)).toBeNull();
  });
});

describe('sameAssignment', () => {
  it('given the same nodes listed in another order with labels in another order, is true', () => {
    const shuffled = [{ id: 'node-c', labels: { gpu: 'yes', region: 'us' } }, nodes[1]!, nodes[0]!];
    expect(sameAssignment(mapOver(nodes), { nodes: shuffled, owners: mapOver(nodes).owners })).toBe(true);
  });

  it('given a node whose labels changed, is false', () => {
    const relabelled = [nodes[0]!, { id: 'node-b', labels: { region: 'us' } }, nodes[2]!];
    expect(sameAssignment(mapOver(nodes), mapOver(relabelled))).toBe(false);
  });

  it('given one shard with another owner, is false', () => {
    const owners = [...mapOver(nodes).owners];
    owners[0] = owners[0] === 'node-a' ? 'node-b' : 'node-a';
    expect(sameAssignment(mapOver(nodes), { nodes, owners })).toBe(false);
  });
});
