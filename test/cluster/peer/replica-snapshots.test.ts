import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RaftDisk } from '../../../src/cluster/peer/raft-disk.js';
import type { StoreCommand } from '../../../src/cluster/peer/store-commands.js';
import type { ReplicaState } from '../../../src/store/sqlite/sqlite-replica.js';
import { createJob } from '../../store/conformance/fixtures.js';
import { ReplicaCluster } from '../../support/replica-cluster.js';

const IDS = ['n1', 'n2', 'n3'];

describe('Snapshots of the replicated store: the copy itself, on disk, read whole only to be sent', () => {
  let dir: string;
  let cluster: ReplicaCluster;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-replica-snapshots-'));
  });
  afterEach(async () => {
    await cluster?.stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function started(): Promise<ReplicaCluster> {
    cluster = new ReplicaCluster(dir, IDS, { compactEvery: 5 });
    cluster.startAll();
    await cluster.untilSettled();
    return cluster;
  }

  const allApplied = (): Promise<void> => cluster.untilAllApplied();

  /** The snapshot a stopped member's log file holds. */
  function keptSnapshot(id: string) {
    const disk = RaftDisk.open<StoreCommand, ReplicaState>(path.join(dir, `${id}.raft`));
    try {
      return disk.load().snapshot;
    } finally {
      disk.close();
    }
  }

  it('Given members that compacted their logs, when a log is read, then its snapshot holds no rows, and the member restarted from it has every job', async () => {
    await started();
    const leader = cluster.leader()!;
    for (let index = 0; index < 12; index += 1) await createJob(leader.store, `job-${index}`);
    await allApplied();
    const follower = cluster.follower().id;
    await cluster.stop(follower);

    const snapshot = keptSnapshot(follower)!;
    expect(snapshot.index).toBeGreaterThanOrEqual(5);
    expect(snapshot.state).toEqual({ inPlace: true, appliedIndex: expect.any(Number) });
    expect(snapshot.state.appliedIndex).toBeGreaterThanOrEqual(snapshot.index);

    const restarted = cluster.start(follower);
    expect(await restarted.store.countJobs('active')).toBe(12);
    await createJob(cluster.leader()!.store, 'after-restart');
    await allApplied();
    expect(await cluster.member(follower).store.findJob('after-restart')).not.toBeNull();
    expect(cluster.failures).toEqual([]);
  });

  it('Given a member sent a snapshot as rows, when it has taken them in, then its log keeps the copy in place, and it restarts from it with the same jobs', async () => {
    await started();
    const behind = cluster.follower().id;
    await cluster.stop(behind);
    const leader = cluster.leader()!;
    for (let index = 0; index < 12; index += 1) await createJob(leader.store, `job-${index}`);

    cluster.start(behind);
    await allApplied();
    expect(await cluster.member(behind).store.countJobs('active')).toBe(12);
    await cluster.stop(behind);
    expect(keptSnapshot(behind)!.state).toMatchObject({ inPlace: true });

    const again = cluster.start(behind);
    expect(await again.store.countJobs('active')).toBe(12);
    expect(cluster.failures).toEqual([]);
  });

  it('Given logs that keep entries behind their snapshots, when a member that missed some comes back, then it catches up by appends, not a snapshot, and a member restarts from its own copy', async () => {
    cluster = new ReplicaCluster(dir, IDS, { compactEvery: 5, retainEntries: 30 });
    cluster.startAll();
    await cluster.untilSettled();
    for (let index = 0; index < 40; index += 1) await createJob(cluster.leader()!.store, `job-${index}`);
    await allApplied();
    const behind = cluster.follower().id;
    await cluster.stop(behind);
    for (let index = 40; index < 60; index += 1) await createJob(cluster.leader()!.store, `job-${index}`);
    const leader = cluster.leader()!;
    // The leader compacted meanwhile (every 5 entries), and still holds the 20 or so the member lacks.
    expect(leader.host.snapshotIndex).toBeGreaterThan(0);

    cluster.start(behind);
    await allApplied();
    expect(await cluster.member(behind).store.countJobs('active')).toBe(60);
    expect(cluster.snapshotsTo.get(behind) ?? 0).toBe(0);

    await cluster.stop(leader.id);
    const kept = keptSnapshot(leader.id)!;
    expect(kept.state).toMatchObject({ inPlace: true });
    // Labelled behind what the copy holds: the entries after the label are applied to it again, and skipped.
    expect(kept.state.appliedIndex - kept.index).toBeGreaterThanOrEqual(30);
    const again = cluster.start(leader.id);
    expect(await again.store.countJobs('active')).toBe(60);
    await allApplied();
    expect(cluster.failures).toEqual([]);
  });

  it('Given a member whose database was rolled back behind its log’s snapshot, when it starts, then it refuses, saying how to recover', async () => {
    await started();
    const leader = cluster.leader()!;
    await createJob(leader.store, 'early');
    await allApplied();
    const rolledBack = cluster.follower().id;
    await cluster.stop(rolledBack);
    const database = path.join(dir, `${rolledBack}.db`);
    fs.copyFileSync(database, `${database}.old`);
    cluster.start(rolledBack);
    for (let index = 0; index < 12; index += 1) await createJob(cluster.leader()!.store, `job-${index}`);
    await allApplied();
    await cluster.stop(rolledBack);
    expect(keptSnapshot(rolledBack)!.index).toBeGreaterThan(2);
    fs.copyFileSync(`${database}.old`, database);

    expect(() => cluster.start(rolledBack)).toThrow(/behind its consensus log/);
  });
});
