import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assignShards } from '../../src/core/cluster/rendezvous.js';
import type { ShardAssignment } from '../../src/core/cluster/shard-map.js';
import { openPostgresPool } from '../../src/store/postgres/connection.js';
import { mapTermIsCurrent, PostgresClusterStore } from '../../src/store/postgres/cluster-store.js';
import { usePostgres } from '../support/postgres.js';

const postgres = usePostgres();
const TTL = 10_000;

let url: string;
const pools: pg.Pool[] = [];

beforeEach(async () => {
  url = (await postgres.migratedDatabase()).url;
});

afterEach(async () => {
  for (const pool of pools.splice(0)) await pool.end();
});

async function openStore(): Promise<PostgresClusterStore> {
  const pool = await openPostgresPool(url, { poolSize: 3 });
  pools.push(pool);
  return new PostgresClusterStore(pool);
}

async function admin(): Promise<pg.Pool> {
  const pool = await openPostgresPool(url, { poolSize: 2 });
  pools.push(pool);
  return pool;
}

/** Ends the lease on the database's clock, as if its TTL had run out. */
async function expireLease(): Promise<void> {
  await (await admin()).query(`UPDATE cluster_lease SET expires_at = 0 WHERE name = 'coordinator'`);
}

function assignmentOf(...nodeIds: string[]): ShardAssignment {
  return { nodes: nodeIds.map((id) => ({ id, labels: {} })), owners: assignShards(nodeIds) };
}

const node = (id: string, load = 0) => ({
  id,
  hostname: `host-${id}`,
  address: `127.0.0.1:90${id.length}`,
  version: '0.1.0',
  labels: { region: 'eu' },
  load,
});

describe('PostgresClusterStore membership', () => {
  it('given a first heartbeat, lists the node stamped with the database clock', async () => {
    const store = await openStore();
    const { rows } = await (
      await admin()
    ).query<{ ms: string }>('SELECT floor(extract(epoch FROM clock_timestamp()) * 1000)::bigint AS ms');
    const dbBefore = Number(rows[0]!.ms);

    const heartbeatAt = await store.heartbeat(node('a', 2));
    const { nodes, dbNow } = await store.listNodes();

    expect(heartbeatAt).toBeGreaterThanOrEqual(dbBefore);
    expect(dbNow).toBeGreaterThanOrEqual(heartbeatAt);
    expect(nodes).toEqual([{ ...node('a', 2), startedAt: heartbeatAt, heartbeatAt }]);
  });

  it('given later heartbeats, updates load and labels and keeps the start time', async () => {
    const store = await openStore();
    const first = await store.heartbeat(node('a', 0));

    const second = await store.heartbeat({ ...node('a', 5), labels: { region: 'us' } });
    const { nodes } = await store.listNodes();

    expect(nodes).toHaveLength(1);
    expect(nodes[0]).toMatchObject({
      load: 5,
      labels: { region: 'us' },
      startedAt: first,
      heartbeatAt: second,
    });
    expect(second).toBeGreaterThanOrEqual(first);
  });

  it('given a start time from the node, records it', async () => {
    const store = await openStore();
    await store.heartbeat({ ...node('a'), startedAt: 1_700_000_000_000 });
    expect((await store.listNodes()).nodes[0]?.startedAt).toBe(1_700_000_000_000);
  });

  it('given a node that leaves, no longer lists it', async () => {
    const store = await openStore();
    await store.heartbeat(node('a'));
    await store.heartbeat(node('b'));

    await store.removeNode('a');

    expect((await store.listNodes()).nodes.map((listed) => listed.id)).toEqual(['b']);
  });

  it('given no nodes, still reports the database time', async () => {
    const store = await openStore();
    const { nodes, dbNow } = await store.listNodes();
    expect(nodes).toEqual([]);
    expect(dbNow).toBeGreaterThan(1_600_000_000_000);
  });
});

describe('PostgresClusterStore coordinator lease', () => {
  it('given no lease row yet, the first node to ask gets term 1 for the TTL', async () => {
    const store = await openStore();

    const lease = await store.acquireOrRenewLease('a', TTL);

    expect(lease).toMatchObject({ holder: 'a', term: 1, acquired: true });
    expect(lease.expiresAt).toBe(lease.dbNow + TTL);
  });

  it('given a running lease, another node is refused and told who holds it', async () => {
    const store = await openStore();
    const held = await store.acquireOrRenewLease('a', TTL);

    const refused = await store.acquireOrRenewLease('b', TTL);

    expect(refused).toMatchObject({ holder: 'a', term: 1, acquired: false, expiresAt: held.expiresAt });
  });

  it('given the holder renews in time, keeps the term and extends the lease', async () => {
    const store = await openStore();
    const first = await store.acquireOrRenewLease('a', TTL);
    await new Promise((resolve) => setTimeout(resolve, 20));

    const renewed = await store.acquireOrRenewLease('a', TTL);

    expect(renewed).toMatchObject({ holder: 'a', term: 1, acquired: true });
    expect(renewed.expiresAt).toBeGreaterThan(first.expiresAt);
  });

  it('given an expired lease, another node takes it with the next term and the old holder is refused', async () => {
    const store = await openStore();
    await store.acquireOrRenewLease('a', TTL);
    await expireLease();

    const taken = await store.acquireOrRenewLease('b', TTL);
    const late = await store.acquireOrRenewLease('a', TTL);

    expect(taken).toMatchObject({ holder: 'b', term: 2, acquired: true });
    expect(late).toMatchObject({ holder: 'b', term: 2, acquired: false });
  });

  it('given its own lease expired, the holder gets it back only under a new term', async () => {
    const store = await openStore();
    await store.acquireOrRenewLease('a', TTL);
    await expireLease();

    expect(await store.acquireOrRenewLease('a', TTL)).toMatchObject({ holder: 'a', term: 2, acquired: true });
  });

  it('given five nodes asking at once on their own connections, grants the lease to exactly one', async () => {
    const stores = await Promise.all([1, 2, 3, 4, 5].map(() => openStore()));

    const answers = await Promise.all(
      stores.map((store, index) => store.acquireOrRenewLease(`n${index}`, TTL)),
    );

    const winners = answers.filter((answer) => answer.acquired);
    expect(winners).toHaveLength(1);
    // The refused see the lease as the winner left it, not as it was when they asked.
    expect(answers.every((answer) => answer.term === 1 && answer.holder === winners[0]!.holder)).toBe(true);
  });

  it('given takeovers after expiries, raises the term by one each time and never lowers it', async () => {
    const store = await openStore();
    const terms: number[] = [];
    for (let round = 0; round < 10; round += 1) {
      terms.push((await store.acquireOrRenewLease(`n${round % 3}`, TTL)).term);
      if (round % 2 === 1) await expireLease();
    }
    // Every other ask finds the lease running (refused, same term); the next finds it expired (term + 1).
    expect(terms).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
  });

  it('given the holder releases, the next node takes over at once with the next term', async () => {
    const store = await openStore();
    await store.acquireOrRenewLease('a', TTL);

    expect(await store.releaseLease('a', 1)).toBe(true);

    expect(await store.acquireOrRenewLease('b', TTL)).toMatchObject({ holder: 'b', term: 2, acquired: true });
  });

  it('given a release by a former holder or for an old term, leaves the lease alone', async () => {
    const store = await openStore();
    await store.acquireOrRenewLease('a', TTL);
    await expireLease();
    await store.acquireOrRenewLease('b', TTL);

    expect(await store.releaseLease('a', 1)).toBe(false);
    expect(await store.releaseLease('b', 1)).toBe(false);
    expect(await store.acquireOrRenewLease('c', TTL)).toMatchObject({ holder: 'b', acquired: false });
  });
});

describe('PostgresClusterStore shard map', () => {
  it('given no map was published, loads null', async () => {
    expect(await (await openStore()).loadMap()).toBeNull();
  });

  it('given the holder publishes under its term, loads that map', async () => {
    const store = await openStore();
    const lease = await store.acquireOrRenewLease('a', TTL);

    expect(await store.publishMap('a', lease.term, assignmentOf('a', 'b'))).toBe(true);

    const map = await store.loadMap();
    expect(map).toMatchObject({ term: 1, coordinator: 'a', ...assignmentOf('a', 'b') });
    expect(map!.publishedAt).toBeGreaterThanOrEqual(lease.dbNow);
  });

  it('given a former coordinator publishes under its stale term, refuses and keeps the newer map', async () => {
    const store = await openStore();
    await store.acquireOrRenewLease('a', TTL);
    await store.publishMap('a', 1, assignmentOf('a', 'b'));
    await expireLease();
    await store.acquireOrRenewLease('b', TTL);
    await store.publishMap('b', 2, assignmentOf('b'));

    expect(await store.publishMap('a', 1, assignmentOf('a'))).toBe(false);

    expect(await store.loadMap()).toMatchObject({ term: 2, coordinator: 'b', ...assignmentOf('b') });
  });

  it('given the lease has expired and no one took it, refuses even its last holder', async () => {
    const store = await openStore();
    await store.acquireOrRenewLease('a', TTL);
    await expireLease();

    expect(await store.publishMap('a', 1, assignmentOf('a'))).toBe(false);
    expect(await store.loadMap()).toBeNull();
  });

  it('given a node that never held the lease, refuses its map', async () => {
    const store = await openStore();
    await store.acquireOrRenewLease('a', TTL);

    expect(await store.publishMap('b', 1, assignmentOf('b'))).toBe(false);
  });
});

describe('mapTermIsCurrent', () => {
  it('given the published term, is true; given an older one or no map, is false', async () => {
    const store = await openStore();
    const client = await (await admin()).connect();
    try {
      expect(await mapTermIsCurrent(client, 1)).toBe(false);
      await store.acquireOrRenewLease('a', TTL);
      await store.publishMap('a', 1, assignmentOf('a'));
      await expireLease();
      await store.acquireOrRenewLease('b', TTL);
      await store.publishMap('b', 2, assignmentOf('b'));

      expect(await mapTermIsCurrent(client, 2)).toBe(true);
      expect(await mapTermIsCurrent(client, 1)).toBe(false);
    } finally {
      client.release();
    }
  });

  it('given a fire transaction checked the term, makes a new publish wait until that transaction ends', async () => {
    const store = await openStore();
    await store.acquireOrRenewLease('a', TTL);
    await store.publishMap('a', 1, assignmentOf('a'));
    await expireLease();
    await store.acquireOrRenewLease('b', TTL);
    const fire = await (await admin()).connect();
    try {
      await fire.query('BEGIN');
      expect(await mapTermIsCurrent(fire, 1)).toBe(true);

      let published: boolean | undefined;
      const publishing = store.publishMap('b', 2, assignmentOf('b')).then((result) => (published = result));
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(published).toBeUndefined();

      await fire.query('COMMIT');
      await publishing;
      expect(published).toBe(true);
      expect(await mapTermIsCurrent(fire, 1)).toBe(false);
    } finally {
      fire.release();
    }
  });
});
