import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  memberLeaseExpired,
  memberSurelyStopped,
  type MemberLeaseBounds,
} from '../../../src/core/cluster/member-lease.js';
import { ReplicaCluster, type ReplicaMember } from '../../support/replica-cluster.js';
import { sleep, waitFor } from '../../support/sched-harness.js';

const IDS = ['n1', 'n2', 'n3'];
const LEASE: MemberLeaseBounds = { durationMs: 1_500, stopMs: 500, maxDrift: 0.05 };

/**
 * A member's lease on its runs over real Raft hosts (in one process): cut off, the member's own clock
 * says its lease ran out before the leader's says it may drop it, however the cut is made.
 */
describe('Member leases over Raft: a member cut off stops first, then the leader may drop it', () => {
  let dir: string;
  let cluster: ReplicaCluster;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-member-lease-'));
    cluster = new ReplicaCluster(dir, IDS);
    cluster.startAll();
    await waitFor(async () => cluster.leader() !== undefined, 10_000, 10);
  });
  afterEach(async () => {
    await cluster.stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Watches both clocks until the leader may drop the member; returns when each side's mark was passed. */
  async function race(member: ReplicaMember, leader: ReplicaMember) {
    let expiredAt: number | null = null;
    let droppableAt: number | null = null;
    const began = Date.now();
    while (droppableAt === null && Date.now() - began < 30_000) {
      // The member's side first: a turn of the loop between the two reads only favours the leader.
      if (expiredAt === null && memberLeaseExpired(member.host.leaseAgeMs(), LEASE)) expiredAt = Date.now();
      if (memberSurelyStopped(leader.host.memberSilentForMs(member.id), LEASE)) droppableAt = Date.now();
      await sleep(10);
    }
    return { expiredAt, droppableAt };
  }

  it('Given a healthy cluster, then no member’s lease runs out and the leader may drop none', async () => {
    await sleep(3_000);
    const leader = cluster.leader()!;
    for (const member of cluster.members.values()) {
      expect(memberLeaseExpired(member.host.leaseAgeMs(), LEASE)).toBe(false);
      if (member !== leader)
        expect(memberSurelyStopped(leader.host.memberSilentForMs(member.id), LEASE)).toBe(false);
    }
  });

  it('Given a follower cut off both ways, then its lease runs out at least the stop time before the leader may drop it', async () => {
    const leader = cluster.leader()!;
    const follower = cluster.follower();
    cluster.cutOff.add(follower.id);
    const { expiredAt, droppableAt } = await race(follower, leader);
    expect(expiredAt).not.toBeNull();
    expect(droppableAt).not.toBeNull();
    expect(droppableAt! - expiredAt!).toBeGreaterThanOrEqual(LEASE.stopMs * 0.9);
  });

  it('Given a follower whose messages are lost while it still hears the leader (a one-way cut), then its lease runs out all the same, before the leader may drop it', async () => {
    const leader = cluster.leader()!;
    const follower = cluster.follower();
    cluster.mute.add(follower.id);
    const { expiredAt, droppableAt } = await race(follower, leader);
    expect(expiredAt, 'the follower heard the leader and thought itself in touch').not.toBeNull();
    expect(droppableAt! - expiredAt!).toBeGreaterThanOrEqual(LEASE.stopMs * 0.9);
  });

  it('Given the leader cut off, then a new leader may drop it only after the old one’s lease ran out', async () => {
    const old = cluster.leader()!;
    cluster.cutOff.add(old.id);
    const successor = await waitFor(
      async () => [...cluster.members.values()].find((m) => m !== old && m.host.role === 'leader'),
      20_000,
      10,
    );
    const { expiredAt, droppableAt } = await race(old, successor);
    expect(expiredAt).not.toBeNull();
    expect(droppableAt! - expiredAt!).toBeGreaterThanOrEqual(LEASE.stopMs * 0.9);
  });
});
