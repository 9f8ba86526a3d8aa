import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ClusterMember } from '../../src/cluster/cluster-member.js';
import { systemClock } from '../../src/daemon/clock.js';
import { FakeClock } from '../support/fake-clock.js';
import type { MembershipStore } from '../../src/cluster/membership-store.js';
import type { ClusterNode, ClusterNodeInfo, CoordinatorLease } from '../../src/core/cluster/membership.js';
import type { ShardAssignment, ShardMap } from '../../src/core/cluster/shard-map.js';

const NODE: ClusterNodeInfo = {
  id: 'node-a',
  hostname: 'a',
  address: '',
  version: '0.1.0',
  labels: {},
  load: 0,
};
const TTL = 1_000;
/** leaseSafetyMarginMs(1 000) is 500: a node may act for half the TTL after sending a renewal. */
const ACTING_WINDOW = 500;

type LeaseAnswer = 'grant' | 'refuse' | 'fail' | 'hang';

/** A store in memory whose lease answers the test decides; it records every call in order. */
class ScriptedStore implements MembershipStore {
  leaseAnswer: LeaseAnswer = 'grant';
  hangHeartbeats = false;
  term = 1;
  calls: string[] = [];
  /** When each renewal that was granted had been sent. */
  grantSentAt: number[] = [];
  private map: ShardMap | null = null;

  heartbeat(_node: ClusterNodeInfo): Promise<number> {
    this.calls.push('heartbeat');
    return this.hangHeartbeats ? new Promise<never>(() => undefined) : Promise.resolve(clock.now());
  }
  listNodes(): Promise<{ nodes: ClusterNode[]; dbNow: number }> {
    return Promise.resolve({
      nodes: [{ ...NODE, startedAt: 0, heartbeatAt: clock.now() }],
      dbNow: clock.now(),
    });
  }
  removeNode(id: string): Promise<void> {
    this.calls.push(`removeNode ${id}`);
    return Promise.resolve();
  }
  acquireOrRenewLease(nodeId: string, ttlMs: number): Promise<CoordinatorLease> {
    this.calls.push('acquire');
    const lease = { term: this.term, expiresAt: clock.now() + ttlMs, dbNow: clock.now() };
    switch (this.leaseAnswer) {
      case 'grant':
        this.grantSentAt.push(clock.now());
        return Promise.resolve({ ...lease, holder: nodeId, acquired: true });
      case 'refuse':
        return Promise.resolve({ ...lease, holder: 'node-b', acquired: false });
      case 'fail':
        return Promise.reject(new Error('connection refused'));
      case 'hang':
        return new Promise<never>(() => undefined);
    }
  }
  releaseLease(nodeId: string, term: number): Promise<boolean> {
    this.calls.push(`releaseLease ${nodeId} ${term}`);
    return Promise.resolve(true);
  }
  publishMap(nodeId: string, term: number, assignment: ShardAssignment): Promise<boolean> {
    this.map = { term, coordinator: nodeId, publishedAt: clock.now(), ...assignment };
    return Promise.resolve(true);
  }
  loadMap(): Promise<ShardMap | null> {
    return Promise.resolve(this.map);
  }
}

let clock: FakeClock;
let store: ScriptedStore;
let member: ClusterMember;
let events: { name: string; term?: number; step?: string; at: number }[];

beforeEach(async () => {
  clock = new FakeClock();
  store = new ScriptedStore();
  member = new ClusterMember({
    store,
    node: NODE,
    heartbeatIntervalMs: 100,
    leaseTtlMs: TTL,
    deadAfterMs: 300,
    clock,
  });
  events = [];
  member.on('coordinator:acquired', ({ term }) => events.push({ name: 'acquired', term, at: clock.now() }));
  member.on('coordinator:lost', ({ term }) => {
    store.calls.push('lost');
    events.push({ name: 'lost', term, at: clock.now() });
  });
  member.on('member:error', ({ step }) => events.push({ name: 'error', step, at: clock.now() }));
  await member.start();
});

afterEach(async () => {
  await member.stop({ leave: false });
});

function lastGrantSentAt(): number {
  return store.grantSentAt.at(-1)!;
}

describe('ClusterMember coordinator window', () => {
  it('given the first round is granted the lease, coordinates under its term and publishes a map', async () => {
    expect(member.isCoordinator()).toBe(true);
    expect(member.term).toBe(1);
    expect(events).toEqual([{ name: 'acquired', term: 1, at: expect.any(Number) }]);
    expect(member.currentMap()).toMatchObject({ term: 1, coordinator: 'node-a' });
  });

  it('given renewals that hang, stops coordinating when the acting window closes, while the round still waits', async () => {
    await clock.advance(250);
    store.leaseAnswer = 'hang';
    await clock.advance(100);
    const sentAt = lastGrantSentAt();

    await clock.advance(ACTING_WINDOW);

    const lost = events.find((event) => event.name === 'lost')!;
    expect(lost.term).toBe(1);
    expect(lost.at).toBeGreaterThanOrEqual(sentAt + ACTING_WINDOW);
    expect(lost.at).toBeLessThanOrEqual(sentAt + ACTING_WINDOW + 2);
    expect(lost.at).toBeLessThan(sentAt + TTL);
    expect(member.isCoordinator()).toBe(false);
    // The stuck round has not reported anything yet: the window closed on its own timer.
    expect(events.filter((event) => event.name === 'error')).toEqual([]);
  });

  it('given renewals that hang and the wall clock stepped back an hour, still stops when the window closes', async () => {
    await clock.advance(250);
    store.leaseAnswer = 'hang';
    await clock.advance(100);
    const sentAtMonotonic = clock.monotonic() - (clock.now() - lastGrantSentAt());

    await clock.setWall(clock.now() - 3_600_000);
    await clock.advance(ACTING_WINDOW);

    expect(events.find((event) => event.name === 'lost')?.term).toBe(1);
    expect(member.isCoordinator()).toBe(false);
    expect(clock.monotonic() - sentAtMonotonic).toBeLessThan(TTL);
  });

  it('given renewals that fail, stops at the end of the window and reports each failure', async () => {
    store.leaseAnswer = 'fail';
    const sentAt = lastGrantSentAt();

    await clock.advance(ACTING_WINDOW + 10);

    expect(events.filter((event) => event.name === 'error').every((event) => event.step === 'lease')).toBe(
      true,
    );
    expect(events.filter((event) => event.name === 'error').length).toBeGreaterThanOrEqual(4);
    expect(events.find((event) => event.name === 'lost')?.at).toBe(sentAt + ACTING_WINDOW + 1);
    expect(member.isCoordinator()).toBe(false);
  });

  it('given the database answers again with a new term, coordinates again under that term', async () => {
    store.leaseAnswer = 'fail';
    await clock.advance(TTL);
    store.leaseAnswer = 'grant';
    store.term = 2;

    await clock.advance(150);

    expect(events.filter((event) => event.name !== 'error').map(({ name, term }) => [name, term])).toEqual([
      ['acquired', 1],
      ['lost', 1],
      ['acquired', 2],
    ]);
    expect(member.isCoordinator()).toBe(true);
    expect(member.currentMap()?.term).toBe(2);
  });

  it('given a renewal refused because another node holds the lease, stops at once', async () => {
    store.leaseAnswer = 'refuse';
    store.term = 2;
    const before = clock.now();

    await clock.advance(100);

    expect(events.find((event) => event.name === 'lost')?.at).toBeLessThanOrEqual(before + 100);
    expect(member.isCoordinator()).toBe(false);
    expect(member.term).toBe(2);
  });

  it('given a round stuck on the database for longer than the TTL, abandons it and starts the next', async () => {
    store.hangHeartbeats = true;
    await clock.advance(100);
    const heartbeatsBefore = store.calls.filter((call) => call === 'heartbeat').length;

    await clock.advance(TTL + 10);

    expect(events.filter((event) => event.name === 'error').map((event) => event.step)).toEqual(['round']);
    expect(store.calls.filter((call) => call === 'heartbeat').length).toBe(heartbeatsBefore + 1);
  });

  it('given a clean stop, announces the loss before releasing the lease, then leaves', async () => {
    await member.stop();

    expect(store.calls.slice(-3)).toEqual(['lost', 'releaseLease node-a 1', 'removeNode node-a']);
    expect(member.isCoordinator()).toBe(false);
  });

  it('given a stop without leaving, touches the database no more', async () => {
    const callsBefore = store.calls.length;

    await member.stop({ leave: false });
    await clock.advance(TTL);

    expect(store.calls.slice(callsBefore)).toEqual(['lost']);
  });
});

describe('ClusterMember options', () => {
  it.each([
    [{ deadAfterMs: TTL }, /deadAfterMs/],
    [{ deadAfterMs: 50 }, /deadAfterMs/],
    [{ heartbeatIntervalMs: ACTING_WINDOW }, /heartbeatIntervalMs/],
    [{ heartbeatIntervalMs: 0 }, /heartbeatIntervalMs/],
  ])('given %o with a 1 s TTL, refuses them', (options, message) => {
    expect(
      () =>
        new ClusterMember({
          store,
          clock: systemClock,
          node: NODE,
          heartbeatIntervalMs: 100,
          leaseTtlMs: TTL,
          deadAfterMs: 300,
          ...options,
        }),
    ).toThrow(message);
  });

  it('given only a heartbeat interval and TTL, defaults deadAfterMs to three intervals', () => {
    expect(
      () =>
        new ClusterMember({
          store,
          clock: systemClock,
          node: NODE,
          heartbeatIntervalMs: 2_000,
          leaseTtlMs: 10_000,
        }),
    ).not.toThrow();
    expect(
      () =>
        new ClusterMember({
          store,
          clock: systemClock,
          node: NODE,
          heartbeatIntervalMs: 400,
          leaseTtlMs: 1_000,
        }),
    ).toThrow(/deadAfterMs \(1200\)/);
  });
});
