import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterMember } from '../../src/cluster/cluster-member.js';
import type { MembershipStore } from '../../src/cluster/membership-store.js';
import type { ClusterNode, ClusterNodeInfo, CoordinatorLease } from '../../src/core/cluster/membership.js';
import type { ShardAssignment, ShardMap } from '../../src/core/cluster/shard-map.js';
import { FakeClock } from '../support/fake-clock.js';

const INTERVAL = 100;
const DEAD_AFTER = 300;
const TTL = 1_000;
const IDS = ['node-a', 'node-b', 'node-c'];

/**
 * The cluster tables of one database, in memory and on the fake clock, with PostgreSQL's rules for the
 * lease (one holder, a new term when it ran out) and the map (only the lease's holder publishes). While
 * `down`, every call fails, as on a stopped server.
 */
class SharedDatabase {
  down = false;
  readonly published: ShardMap[] = [];
  private readonly nodes = new Map<string, ClusterNode>();
  private lease: { holder: string; term: number; expiresAt: number } | undefined;
  private map: ShardMap | null = null;

  constructor(private readonly clock: FakeClock) {}

  connect(): MembershipStore {
    const call = <T>(work: () => T): Promise<T> =>
      this.down ? Promise.reject(new Error('connect ECONNREFUSED 127.0.0.1:5432')) : Promise.resolve(work());
    return {
      heartbeat: (node: ClusterNodeInfo) =>
        call(() => {
          const now = this.clock.now();
          this.nodes.set(node.id, { ...node, startedAt: now, heartbeatAt: now });
          return now;
        }),
      listNodes: () => call(() => ({ nodes: [...this.nodes.values()], dbNow: this.clock.now() })),
      removeNode: (id: string) => call(() => void this.nodes.delete(id)),
      acquireOrRenewLease: (nodeId: string, ttlMs: number) => call(() => this.acquire(nodeId, ttlMs)),
      releaseLease: (nodeId: string, term: number) =>
        call(() => {
          if (this.lease?.holder !== nodeId || this.lease.term !== term) return false;
          this.lease = { ...this.lease, expiresAt: 0 };
          return true;
        }),
      publishMap: (nodeId: string, term: number, assignment: ShardAssignment) =>
        call(() => this.publish(nodeId, term, assignment)),
      loadMap: () => call(() => this.map),
    };
  }

  private acquire(nodeId: string, ttlMs: number): CoordinatorLease {
    const now = this.clock.now();
    const lease = this.lease;
    if (lease && lease.holder !== nodeId && lease.expiresAt > now)
      return { ...lease, dbNow: now, acquired: false };
    const term =
      lease && lease.holder === nodeId && lease.expiresAt > now ? lease.term : (lease?.term ?? 0) + 1;
    this.lease = { holder: nodeId, term, expiresAt: now + ttlMs };
    return { ...this.lease, dbNow: now, acquired: true };
  }

  private publish(nodeId: string, term: number, assignment: ShardAssignment): boolean {
    const lease = this.lease;
    if (!lease || lease.holder !== nodeId || lease.term !== term || lease.expiresAt <= this.clock.now())
      return false;
    this.map = { term, coordinator: nodeId, publishedAt: this.clock.now(), ...assignment };
    this.published.push(this.map);
    return true;
  }
}

let clock: FakeClock;
let database: SharedDatabase;
let members: Map<string, ClusterMember>;

beforeEach(async () => {
  clock = new FakeClock();
  database = new SharedDatabase(clock);
  members = new Map();
  for (const id of IDS) {
    const member = new ClusterMember({
      store: database.connect(),
      node: { id, hostname: id, address: '', version: '0.1.0', labels: {}, load: 0 },
      heartbeatIntervalMs: INTERVAL,
      leaseTtlMs: TTL,
      deadAfterMs: DEAD_AFTER,
      clock,
    });
    members.set(id, member);
    await member.start();
    // Rounds in different phases, as on real hosts.
    await clock.advance(INTERVAL / IDS.length);
  }
  await clock.advance(5 * INTERVAL);
});

afterEach(async () => {
  for (const member of members.values()) await member.stop({ leave: false });
});

function nodesOf(map: ShardMap | undefined): string[] {
  return (map?.nodes ?? []).map((node) => node.id);
}

describe('ClusterMember across an outage of the database', () => {
  it.each([DEAD_AFTER + 10, DEAD_AFTER + INTERVAL + 30, 2 * DEAD_AFTER + 70, 10 * DEAD_AFTER])(
    'given the database down for %i ms (deadAfter 300), keeps every live node in every map published after it returns',
    async (outageMs) => {
      expect(nodesOf(database.published.at(-1))).toEqual(IDS);
      const before = database.published.length;

      database.down = true;
      await clock.advance(outageMs);
      database.down = false;
      await clock.advance(10 * DEAD_AFTER);

      for (const map of database.published.slice(before)) expect(nodesOf(map)).toEqual(IDS);
      expect(nodesOf(database.published.at(-1))).toEqual(IDS);
    },
  );

  it('given a node that crashed during the outage, drops it once the others have been heard for deadAfter', async () => {
    database.down = true;
    await clock.advance(5 * DEAD_AFTER);
    await members.get('node-c')!.stop({ leave: false });
    database.down = false;
    const backAt = clock.monotonic();
    const before = database.published.length;

    await clock.advance(DEAD_AFTER + 3 * INTERVAL);

    const dropping = database.published.slice(before).find((map) => !nodesOf(map).includes('node-c'));
    expect(dropping).toBeDefined();
    expect(nodesOf(dropping)).toEqual(['node-a', 'node-b']);
    expect(dropping!.publishedAt - clock.now() + clock.monotonic() - backAt).toBeGreaterThanOrEqual(
      DEAD_AFTER,
    );
  });

  it('given a node that crashes while the database is up, still drops it within deadAfter and a round', async () => {
    const before = database.published.length;
    const crashedAt = clock.now();
    await members.get('node-b')!.stop({ leave: false });

    await clock.advance(DEAD_AFTER + 2 * INTERVAL);

    const dropping = database.published.slice(before).find((map) => !nodesOf(map).includes('node-b'));
    expect(nodesOf(dropping)).toEqual(['node-a', 'node-c']);
    expect(dropping!.publishedAt - crashedAt).toBeLessThanOrEqual(DEAD_AFTER + 2 * INTERVAL);
  });
});
