import { describe, expect, it } from 'vitest';
import { PeerCluster, type PeerClusterOptions } from '../../src/cluster/peer-cluster.js';
import type { MemberRecord } from '../../src/cluster/peer/store-commands.js';
import type { ShardMap } from '../../src/core/cluster/shard-map.js';
import { systemClock } from '../../src/daemon/clock.js';

function member(id: string, zone: string): MemberRecord {
  return { id, hostname: id, version: '0.0.0', labels: { zone }, startedAt: 0 };
}

/** A leader `a` whose log has `voters`, with `records` registered, all alive in gossip and in touch. */
function leaderOf(voters: string[], records: MemberRecord[], unheardForMs = new Map<string, number>()) {
  const published: ShardMap[] = [];
  const options: PeerClusterOptions = {
    self: 'a',
    labels: { zone: 'a' },
    version: '0.0.0',
    raft: {
      role: 'leader',
      term: 3,
      leader: 'a',
      voters,
      memberSilentForMs: () => 0,
      memberUnheardForMs: (id) => unheardForMs.get(id) ?? 0,
    },
    replication: {
      currentMap: () => published.at(-1) ?? null,
      publishMap: async (map) => void published.push(map),
      onMapChanged: () => () => undefined,
      members: () => records,
      registerMember: async () => undefined,
    },
    membership: { stateOf: () => 'alive', contactOf: () => undefined },
    lease: { durationMs: 5_000, stopMs: 3_000, maxDrift: 0.05 },
    placeUnheardForMs: 2_000,
    clock: systemClock,
    startedAt: 0,
    load: () => 0,
    onError: (error) => {
      throw error;
    },
  };
  return { cluster: new PeerCluster(options), published };
}

describe('the peer shard map and the voters in force', () => {
  it('given a member that left the voters while it still runs, keeps it among the nodes (its runs are not recorded lost) with no shards and no labels to place jobs by', async () => {
    const { cluster, published } = leaderOf(
      ['a', 'b'],
      [member('a', 'x'), member('b', 'x'), member('c', 'x')],
    );

    await cluster.round();

    const map = published.at(-1)!;
    expect(map.nodes).toEqual([
      { id: 'a', labels: { zone: 'x' } },
      { id: 'b', labels: { zone: 'x' } },
      { id: 'c', labels: {} },
    ]);
    expect(new Set(map.owners)).toEqual(new Set(['a', 'b']));
  });

  it('given a member added to the voters, gives it shards at the next round', async () => {
    const voters = ['a', 'b'];
    const { cluster, published } = leaderOf(voters, [member('a', 'x'), member('b', 'x'), member('c', 'x')]);
    await cluster.round();

    voters.push('c');
    await cluster.round();

    expect(new Set(published.at(-1)!.owners)).toEqual(new Set(['a', 'b', 'c']));
  });

  it('given a voter the leader has not heard from for the placing bound, moves its shards and its labels off it at once, keeps it among the nodes (its runs are not recorded lost yet), and gives them back once it is heard', async () => {
    const unheard = new Map([['b', 2_500]]);
    const { cluster, published } = leaderOf(
      ['a', 'b', 'c'],
      [member('a', 'x'), member('b', 'y'), member('c', 'x')],
      unheard,
    );

    await cluster.round();

    const map = published.at(-1)!;
    expect(map.nodes).toEqual([
      { id: 'a', labels: { zone: 'x' } },
      { id: 'b', labels: {} },
      { id: 'c', labels: { zone: 'x' } },
    ]);
    expect(new Set(map.owners)).toEqual(new Set(['a', 'c']));

    unheard.set('b', 1_999);
    await cluster.round();

    expect(published.at(-1)!.nodes[1]).toEqual({ id: 'b', labels: { zone: 'y' } });
    expect(new Set(published.at(-1)!.owners)).toEqual(new Set(['a', 'b', 'c']));
  });
});
