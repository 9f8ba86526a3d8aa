import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Cluster, PlacedJob } from '../../../src/cluster/cluster.js';
import { SHARD_COUNT } from '../../../src/core/cluster/shard.js';
import type { ShardMap } from '../../../src/core/cluster/shard-map.js';

export interface ClusterUnderTest {
  /**
   * Joins one node per entry of `labels` and resolves once they all act on the same map, one that
   * holds every one of them.
   */
  join(labels: Record<string, string>[]): Promise<Cluster[]>;
  cleanup(): Promise<void>;
}

/** How many nodes an implementation can hold: a daemon alone is a cluster of exactly one. */
export interface ClusterCapacity {
  nodes: number;
}

const job = (placement: PlacedJob['placement'] = { mode: 'once', on: {} }): PlacedJob => ({
  id: randomUUID(),
  placement,
});
const jobs = (count: number, placement?: PlacedJob['placement']) =>
  Array.from({ length: count }, () => job(placement));

/**
 * What every Cluster implementation must do, whatever keeps it together (one daemon alone, a shared
 * PostgreSQL, peers that gossip): the daemon relies on these and nothing else. Tests that need more nodes
 * than an implementation holds are not registered for it.
 */
export function describeClusterContract(
  name: string,
  capacity: ClusterCapacity,
  makeCluster: () => Promise<ClusterUnderTest>,
): void {
  describe(`${name} cluster contract`, () => {
    let current: ClusterUnderTest | undefined;
    const size = Math.min(capacity.nodes, 3);
    const labelsOf = (count: number) =>
      Array.from({ length: count }, (_, i) => ({ role: i === count - 1 ? 'db' : 'web', index: String(i) }));
    const join = (count = size) => current!.join(labelsOf(count));

    beforeEach(async () => {
      current = await makeCluster();
    });

    afterEach(async () => {
      await current?.cleanup();
      current = undefined;
    });

    it('gives each node an id of its own that stays the same', async () => {
      const nodes = await join();
      const ids = nodes.map((node) => node.nodeId);
      expect(new Set(ids).size).toBe(nodes.length);
      for (const node of nodes) expect(node.nodeId).toMatch(/\S/);
      expect(nodes.map((node) => node.nodeId)).toEqual(ids);
    });

    it('has exactly one node own each once job, and every node names that owner as where its runs go', async () => {
      const nodes = await join();
      for (const placed of jobs(64)) {
        const owners = nodes.filter((node) => node.owns(placed));
        expect(owners).toHaveLength(1);
        for (const node of nodes) expect(node.runnersOf(placed)).toEqual([owners[0]!.nodeId]);
      }
    });

    it('keeps a job with --on to the nodes whose labels match', async () => {
      const nodes = await join();
      const db = nodes[nodes.length - 1]!;
      for (const placed of jobs(16, { mode: 'once', on: { role: 'db' } })) {
        expect(nodes.filter((node) => node.owns(placed))).toEqual([db]);
        expect(db.runnersOf(placed)).toEqual([db.nodeId]);
        expect(nodes.map((node) => node.matches(placed))).toEqual(nodes.map((node) => node === db));
      }
    });

    it('runs an every-host job on every matching node, each firing it one way only', async () => {
      const nodes = await join();
      const everywhere = job({ mode: 'every-host', on: {} });
      for (const node of nodes) {
        expect([...node.runnersOf(everywhere)].sort()).toEqual(nodes.map((each) => each.nodeId).sort());
        // Alone, the node fires it as a shared instant; shared, each node fires its own instants.
        const perNode = node.shared && node.matches(everywhere);
        expect(node.owns(everywhere)).toBe(!perNode);
      }
    });

    it('starts the waiting runs a node made itself', async () => {
      const nodes = await join();
      for (const node of nodes) expect(node.startsWaitingRun({ node: node.nodeId }, job())).toBe(true);
    });

    it('fences runs with a positive token, the term of the map a fire is checked against', async () => {
      const nodes = await join();
      for (const node of nodes) {
        expect(node.fenceToken()).toBeGreaterThan(0);
        const fence = node.fireFence();
        if (fence !== undefined) expect(fence.term).toBe(node.fenceToken());
      }
    });

    it('has one coordinator, and every node reports the same cluster with itself in it once', async () => {
      const nodes = await join();
      expect(nodes.filter((node) => node.isCoordinator())).toHaveLength(1);
      const coordinator = nodes.find((node) => node.isCoordinator())!.nodeId;
      for (const node of nodes) {
        const status = await node.status(12);
        expect(status.node).toBe(node.nodeId);
        expect(status.coordinator).toBe(coordinator);
        expect(status.term).toBe(node.fenceToken());
        expect(status.firingLagMs).toBe(12);
        expect(status.nodes.filter((row) => row.self).map((row) => row.id)).toEqual([node.nodeId]);
        expect(status.nodes.map((row) => row.id).sort()).toEqual(nodes.map((each) => each.nodeId).sort());
        const owned = status.nodes.reduce((sum, row) => sum + row.shards, 0);
        expect(owned + status.unassignedShards).toBe(SHARD_COUNT);
        expect(status.unassignedShards).toBe(0);
      }
    });

    if (capacity.nodes >= 2) {
      it('moves what a node that leaves owned to the others, and tells them with a new map', async () => {
        const nodes = await join(3);
        const leaver = nodes.find((node) => !node.isCoordinator())!;
        const stayers = nodes.filter((node) => node !== leaver);
        const maps: ShardMap[] = [];
        stayers[0]!.onMapChanged((map) => maps.push(map));
        const placed = jobs(64).filter((each) => leaver.owns(each));
        expect(placed.length).toBeGreaterThan(0);
        await leaver.leave();
        await until('the others to own what the leaver owned', () =>
          placed.every((each) => stayers.filter((node) => node.owns(each)).length === 1),
        );
        // Its shards may move in a map that still lists it (peers move them off a member gone silent at
        // once), and the map without it follow: a loaded machine put the check between the two.
        await until('a map without the leaver', () =>
          maps.some((map) => !map.nodes.some((node) => node.id === leaver.nodeId)),
        );
        expect(maps.at(-1)!.nodes.map((node) => node.id)).not.toContain(leaver.nodeId);
        // A run the leaver made and left waiting is started by the job's new owner.
        for (const each of placed)
          expect(stayers.filter((node) => node.startsWaitingRun({ node: leaver.nodeId }, each))).toHaveLength(
            1,
          );
      });

      it('hands coordination over with a higher fencing token when the coordinator leaves', async () => {
        const nodes = await join(3);
        const coordinator = nodes.find((node) => node.isCoordinator())!;
        const before = coordinator.fenceToken();
        const stayers = nodes.filter((node) => node !== coordinator);
        await coordinator.leave();
        const next = await until('another coordinator', () => stayers.find((node) => node.isCoordinator()));
        await until('the new term on every node', () =>
          stayers.every((node) => node.fenceToken() > before && node.fenceToken() === next.fenceToken()),
        );
      });
    }
  });
}

/** Polls `check` (a few seconds at most) until it returns something other than undefined or false. */
async function until<T>(what: string, check: () => T | undefined | false, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Resolves once every node acts on one map (same term, same publication) that gives each of them shards. */
export async function agreeOnMap(nodes: Cluster[]): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const statuses = await Promise.all(nodes.map((node) => node.status(null)));
    const first = statuses[0]!;
    const same = statuses.every(
      (status) => status.term === first.term && status.mapPublishedAt === first.mapPublishedAt,
    );
    const everyNodeOwns = first.nodes.filter((row) => row.shards > 0).length === nodes.length;
    if (same && first.mapPublishedAt !== null && everyNodeOwns && first.unassignedShards === 0) return;
    if (Date.now() > deadline)
      throw new Error(`the nodes did not agree on a map: ${JSON.stringify(statuses)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
