import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ClusterMember } from '../../src/cluster/cluster-member.js';
import { assignShards } from '../../src/core/cluster/rendezvous.js';
import { SHARD_COUNT } from '../../src/core/cluster/shard.js';
import type { ShardMap } from '../../src/core/cluster/shard-map.js';
import { openPostgresPool } from '../../src/store/postgres/connection.js';
import type { PostgresClusterStore } from '../../src/store/postgres/cluster-store.js';
import { usePostgres } from '../support/postgres.js';
import { newMember, TIMING, waitFor, watch } from './support/members.js';
import type { MemberLog } from './support/members.js';
import { startTcpProxy } from './support/tcp-proxy.js';
import type { TcpProxy } from './support/tcp-proxy.js';

const postgres = usePostgres();
const IDS = [
  '3f2b8c1e-0d4a-4f6b-9c2e-7a1d5e8f9b0c',
  'a91c4e7d-52f0-4b3a-8e6d-1c9f0b2a7d43',
  'd0e5f6a7-b8c9-4d1e-a2f3-04152637485a',
];

interface Running {
  id: string;
  member: ClusterMember;
  store: PostgresClusterStore;
  log: MemberLog;
}

let url: string;
let admin: pg.Pool;
const pools: pg.Pool[] = [];
const members: ClusterMember[] = [];
const proxies: TcpProxy[] = [];

beforeEach(async () => {
  url = (await postgres.migratedDatabase()).url;
  // Its own application name: the restart test drops every connection of the members' one.
  admin = await openPostgresPool(url, { poolSize: 2, applicationName: 'sched-cluster-test-admin' });
  // Connected ahead, so reading the lease the instant a member stops coordinating costs no handshake.
  await admin.query('SELECT 1');
});

afterEach(async () => {
  // Crash-stopped and cut-off members are stopped without touching the database.
  for (const member of members.splice(0)) await member.stop({ leave: false });
  for (const proxy of proxies.splice(0)) await proxy.close();
  for (const pool of pools.splice(0)) await pool.end();
  await admin.end();
});

async function openPool(databaseUrl = url): Promise<pg.Pool> {
  const pool = await openPostgresPool(databaseUrl, { poolSize: 3, applicationName: 'sched-cluster-test' });
  pools.push(pool);
  return pool;
}

async function startMembers(ids: readonly string[], databaseUrl = url): Promise<Running[]> {
  const running = await Promise.all(
    ids.map(async (id) => {
      const { member, store } = newMember(await openPool(databaseUrl), id);
      members.push(member);
      return { id, member, store, log: watch(member) };
    }),
  );
  await Promise.all(running.map(({ member }) => member.start()));
  return running;
}

/** Waits until every member has read the same map, over exactly `ids` and newer than `afterTerm`. */
function settledMap(running: readonly Running[], ids: readonly string[], afterTerm = 0): Promise<ShardMap> {
  const expected = [...ids].sort().join();
  return waitFor(`one map over ${ids.length} nodes after term ${afterTerm}`, () => {
    const maps = running.map(({ member }) => member.currentMap());
    const first = maps[0];
    if (!first || maps.some((map) => map?.term !== first.term || map.publishedAt !== first.publishedAt))
      return;
    const nodes = first.nodes.map((node) => node.id).join();
    return first.term > afterTerm && nodes === expected ? first : undefined;
  });
}

function coordinators(running: readonly Running[]): Running[] {
  return running.filter(({ member }) => member.isCoordinator());
}

async function leaseRow(): Promise<{ holder: string; term: number; expiresAt: number; dbNow: number }> {
  const { rows } = await admin.query<{ holder: string; term: string; expires_at: string; now_ms: string }>(
    `SELECT holder, term, expires_at, floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS now_ms
     FROM cluster_lease WHERE name = 'coordinator'`,
  );
  const row = rows[0]!;
  return {
    holder: row.holder,
    term: Number(row.term),
    expiresAt: Number(row.expires_at),
    dbNow: Number(row.now_ms),
  };
}

describe('ClusterMember', () => {
  it('given three members, elects exactly one coordinator and all read one map giving every shard to one of them', async () => {
    const running = await startMembers(IDS);

    const map = await settledMap(running, IDS);

    const [coordinator, ...others] = coordinators(running);
    expect(others).toEqual([]);
    expect(map.coordinator).toBe(coordinator!.id);
    expect(map.term).toBe(coordinator!.member.term);
    expect(map.owners).toHaveLength(SHARD_COUNT);
    expect(map.owners).toEqual(assignShards(IDS));
    for (const id of IDS) {
      const owned = map.owners.filter((owner) => owner === id).length;
      expect(owned).toBeGreaterThanOrEqual(60);
      expect(owned).toBeLessThanOrEqual(110);
    }
  });

  it('given the coordinator crashes, another takes over with a higher term and its shards move to the live nodes', async () => {
    const running = await startMembers(IDS);
    const before = await settledMap(running, IDS);
    const crashed = coordinators(running)[0]!;
    const survivors = running.filter((entry) => entry !== crashed);

    const crashedAt = performance.now();
    await crashed.member.stop({ leave: false });
    const successor = await waitFor('a new coordinator', () =>
      survivors.find(({ member }) => member.isCoordinator() && member.term > before.term),
    );
    const failoverMs = performance.now() - crashedAt;
    const after = await settledMap(
      survivors,
      survivors.map(({ id }) => id),
    );

    // The lease runs out at most a TTL after the last renewal and a survivor's next round takes it; the
    // exact timing is checked in virtual time (cluster-member-lease.test.ts). Here, on a machine that may
    // be loaded, the bound is in seconds: it catches a takeover that never comes, not a slow one.
    expect(failoverMs).toBeLessThan(10 * (TIMING.leaseTtlMs + TIMING.heartbeatIntervalMs));
    expect(after.term).toBeGreaterThan(before.term);
    expect(after.coordinator).toBe(successor.id);
    expect(after.owners).not.toContain(crashed.id);
    expect(after.owners).not.toContain(null);
    // Rendezvous hashing with bounded loads: the survivors take over the crashed node's shards and keep
    // nearly all of their own (see assignShards).
    const keptByOthers = before.owners.filter((owner) => owner !== crashed.id);
    const movedBetweenSurvivors = before.owners.filter(
      (owner, shard) => owner !== crashed.id && after.owners[shard] !== owner,
    );
    expect(movedBetweenSurvivors.length).toBeLessThanOrEqual(keptByOthers.length / 20);
    // deadAfterMs < TTL: the first map of the new term already leaves the crashed node out.
    const firstOfNewTerm = successor.log.maps.find((map) => map.term === after.term)!;
    expect(firstOfNewTerm.nodes.map((node) => node.id)).not.toContain(crashed.id);
  });

  it('given a crashed coordinator, its stale term can no longer publish a map', async () => {
    const running = await startMembers(IDS);
    const before = await settledMap(running, IDS);
    const crashed = coordinators(running)[0]!;
    await crashed.member.stop({ leave: false });
    const survivors = running.filter((entry) => entry !== crashed);
    const after = await settledMap(
      survivors,
      survivors.map(({ id }) => id),
    );

    const published = await crashed.store.publishMap(crashed.id, before.term, {
      nodes: [{ id: crashed.id, labels: {} }],
      owners: assignShards([crashed.id]),
    });

    expect(published).toBe(false);
    expect(await crashed.store.loadMap()).toEqual(after);
  });

  it('given the coordinator stops cleanly, another takes over before the old lease would have run out', async () => {
    const running = await startMembers(IDS);
    const before = await settledMap(running, IDS);
    const leaving = coordinators(running)[0]!;
    const survivors = running.filter((entry) => entry !== leaving);
    const oldLease = await leaseRow();

    await leaving.member.stop();

    expect(leaving.log.lost.map(({ term }) => term)).toEqual([before.term]);
    expect(leaving.member.isCoordinator()).toBe(false);
    await waitFor('a new coordinator', () => survivors.some(({ member }) => member.isCoordinator()));
    const newLease = await leaseRow();
    expect(newLease.term).toBe(before.term + 1);
    expect(newLease.expiresAt - TIMING.leaseTtlMs).toBeLessThan(oldLease.expiresAt);
    const after = await settledMap(
      survivors,
      survivors.map(({ id }) => id),
    );
    expect(after.owners).not.toContain(leaving.id);
    // Its row is gone, so even the new term's first map leaves it out: it was not waited for to die.
    const successor = survivors.find(({ id }) => id === after.coordinator)!;
    const firstOfNewTerm = successor.log.maps.find((map) => map.term === newLease.term)!;
    expect(firstOfNewTerm.nodes.map((node) => node.id)).not.toContain(leaving.id);
  });

  it('given a coordinator cut off from the database, it stops coordinating before its lease runs out and rejoins as a follower', async () => {
    const proxy = await startTcpProxy(url);
    proxies.push(proxy);
    const [cutOff] = await startMembers([IDS[0]!], proxy.url);
    await waitFor('the first member to coordinate', () => cutOff!.member.isCoordinator());
    const others = await startMembers(IDS.slice(1));
    const running = [cutOff!, ...others];
    const before = await settledMap(running, IDS);
    let leaseWhenItStopped: Promise<Awaited<ReturnType<typeof leaseRow>>> | undefined;
    cutOff!.member.once('coordinator:lost', () => (leaseWhenItStopped = leaseRow()));

    proxy.cut();
    await waitFor('the cut-off coordinator to stop', () => leaseWhenItStopped);
    const lease = await leaseWhenItStopped!;

    // The database still gives it the lease: it stopped on its own clock, with time to spare.
    expect(lease).toMatchObject({ holder: cutOff!.id, term: before.term });
    expect(lease.expiresAt).toBeGreaterThan(lease.dbNow);
    const successor = await waitFor('a new coordinator', () =>
      others.find(({ member }) => member.isCoordinator()),
    );
    expect(successor.log.acquired[0]!.at).toBeGreaterThan(cutOff!.log.lost[0]!.at);
    expect(successor.member.term).toBeGreaterThan(before.term);

    proxy.restore();
    const rejoined = await settledMap(running, IDS, before.term);
    expect(rejoined.coordinator).toBe(successor.id);
    expect(rejoined.term).toBeGreaterThan(before.term);
    expect(cutOff!.member.isCoordinator()).toBe(false);
    expect(cutOff!.log.errors.length).toBeGreaterThan(0);
  });

  it('given every database connection is dropped (a server restart), the members carry on', async () => {
    const running = await startMembers(IDS);
    const before = await settledMap(running, IDS);
    const { rowCount } = await admin.query(
      `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'sched-cluster-test'`,
    );
    expect(rowCount).toBeGreaterThan(0);
    const droppedAt = Math.max(...(await readNodes()).map((node) => node.heartbeatAt));

    const fresh = await waitForAsync(async () => {
      const nodes = await readNodes();
      return (
        nodes.length === 3 && nodes.every((node) => node.heartbeatAt > droppedAt + TIMING.heartbeatIntervalMs)
      );
    });

    expect(fresh).toBe(true);
    expect(coordinators(running)).toHaveLength(1);
    expect(running.every(({ member }) => member.currentMap()?.term === before.term)).toBe(true);
  });

  it('never lowers a term, through crashes, clean stops and rejoins', async () => {
    const running = await startMembers(IDS);
    const sampledTerms = new Map(running.map((entry) => [entry, [] as number[]]));
    const sampler = setInterval(() => {
      for (const [entry, terms] of sampledTerms) terms.push(entry.member.term);
    }, 5);
    try {
      await settledMap(running, IDS);
      for (const crash of [true, false, true]) {
        const coordinator = await waitFor('a coordinator', () => coordinators(running)[0]);
        const term = coordinator.member.term;
        await coordinator.member.stop({ leave: !crash });
        await waitFor('the next coordinator', () =>
          running.find(
            ({ member }) => member !== coordinator.member && member.isCoordinator() && member.term > term,
          ),
        );
        await coordinator.member.start();
      }
    } finally {
      clearInterval(sampler);
    }

    const acquiredInOrder = running
      .flatMap(({ log }) => log.acquired)
      .sort((a, b) => a.at - b.at)
      .map(({ term }) => term);
    expect(acquiredInOrder.length).toBeGreaterThanOrEqual(4);
    expect(acquiredInOrder).toEqual(ascending(acquiredInOrder));
    for (const [entry, terms] of sampledTerms) {
      expect(terms).toEqual(ascending(terms));
      const mapTerms = entry.log.maps.map((map) => map.term);
      expect(mapTerms).toEqual(ascending(mapTerms));
    }
  });
});

function ascending(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** The nodes' heartbeats, read on the test's own connection (which no test cuts or drops). */
async function readNodes(): Promise<{ id: string; heartbeatAt: number }[]> {
  const { rows } = await admin.query<{ id: string; heartbeat_at: string }>(
    'SELECT id, heartbeat_at FROM cluster_nodes',
  );
  return rows.map((row) => ({ id: row.id, heartbeatAt: Number(row.heartbeat_at) }));
}

async function waitForAsync(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return false;
}
