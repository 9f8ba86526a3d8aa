import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RaftDisk } from '../../../src/cluster/peer/raft-disk.js';
import { decodeSnapshotPart } from '../../../src/cluster/peer/snapshot-parts.js';
import type { StoreCommand } from '../../../src/cluster/peer/store-commands.js';
import type { ReplicaState } from '../../../src/store/sqlite/sqlite-replica.js';
import { createJob, stamp, T0 } from '../../store/conformance/fixtures.js';
import { ReplicaCluster } from '../../support/replica-cluster.js';
import { waitFor } from '../../support/sched-harness.js';
import { countedRows, countsOf } from '../../support/job-state-counts.js';

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

  it('Given a member sent a snapshot as a file, when it has taken it in, then its log keeps the copy in place, and it restarts from it with the same jobs', async () => {
    await started();
    const behind = cluster.follower().id;
    await cluster.stop(behind);
    const leader = cluster.leader()!;
    for (let index = 0; index < 12; index += 1) await createJob(leader.store, `job-${index}`);

    cluster.start(behind);
    await allApplied();
    expect(await cluster.member(behind).store.countJobs('active')).toBe(12);
    expect(cluster.partsTo.get(behind)).toBeGreaterThan(0);
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

  describe('sent as a file in many parts to a member far behind', () => {
    const JOBS = 120;
    const PART_BYTES = 8 * 1024;

    /** A cluster whose logs keep few entries and whose snapshots travel in many small parts, settled. */
    async function startWithSmallLogs(): Promise<void> {
      cluster = new ReplicaCluster(dir, IDS, {
        compactEvery: 10,
        retainEntries: 10,
        snapshotPartBytes: PART_BYTES,
      });
      cluster.startAll();
      await cluster.untilSettled();
    }

    /** A cluster whose logs keep few entries, and a member stopped that missed more than they keep. */
    async function farBehind(): Promise<{ behind: string; fence: number }> {
      await startWithSmallLogs();
      const behind = cluster.follower().id;
      const fence = await cluster.member(behind).local.nextFenceEpoch();
      await cluster.stop(behind);
      for (let index = 0; index < JOBS; index += 1) await createJob(cluster.leader()!.store, `job-${index}`);
      return { behind, fence };
    }

    /** Files of snapshots sent or received, left in the data directory. */
    const transferFiles = () => fs.readdirSync(dir).filter((name) => /-(snapshot|incoming)-/.test(name));

    it('Given a member more entries behind than the logs keep, when it comes back, then it catches up through a file sent in many parts, has every job, and keeps its own rows', async () => {
      const { behind, fence } = await farBehind();

      cluster.start(behind);
      await allApplied();

      expect(await cluster.member(behind).store.countJobs('active')).toBe(JOBS);
      expect(cluster.partsTo.get(behind)).toBeGreaterThan(10);
      expect(cluster.snapshotsTo.get(behind)).toBeGreaterThan(0);
      expect(await cluster.member(behind).local.nextFenceEpoch()).toBe(fence + 1);
      // Only the rest of a transfer begun while it was stopped, if it came back part-way through one.
      const midway = /no such transfer under way|not received here/;
      expect(cluster.snapshotDrops.filter((drop) => !midway.test(drop))).toEqual([]);
      await createJob(cluster.leader()!.store, 'after');
      await allApplied();
      expect(await cluster.member(behind).store.findJob('after')).not.toBeNull();
      await cluster.stopAll();
      expect(transferFiles()).toEqual([]);
      expect(cluster.failures).toEqual([]);
    });

    it('Given a member holding jobs the others then paused, cancelled and purged, when a file sent in parts replaces its rows, then it counts each state as its rows hold it, as the leader does', async () => {
      await startWithSmallLogs();
      const early = [];
      for (let index = 0; index < 6; index += 1)
        early.push(await createJob(cluster.leader()!.store, `early-${index}`));
      await allApplied();
      const behind = cluster.follower().id;
      expect(await countsOf(cluster.member(behind).local)).toEqual({ active: 6, paused: 0, cancelled: 0 });
      await cluster.stop(behind);
      const store = cluster.leader()!.store;
      for (const job of early.slice(0, 2))
        await store.updateJob(job.id, job.version, { state: 'paused', nextRunAt: null }, stamp('job.pause'));
      for (const job of early.slice(2, 5))
        await store.cancelJob(job.id, job.version, T0 + 1, stamp('job.cancel'));
      expect(await store.purgeCancelledJobs(T0 + 2, 2)).toBe(2);
      for (let index = 0; index < JOBS; index += 1) await createJob(store, `job-${index}`);

      cluster.start(behind);
      await allApplied();

      expect(cluster.snapshotsTo.get(behind)).toBeGreaterThan(0);
      const rows = countedRows(path.join(dir, `${behind}.db`));
      expect(rows).toEqual({ active: 1 + JOBS, paused: 2, cancelled: 1 });
      expect(await countsOf(cluster.member(behind).local)).toEqual(rows);
      expect(await countsOf(cluster.leader()!.local)).toEqual(rows);
      expect(cluster.failures).toEqual([]);
    });

    it('Given a transfer cut off by the member stopping part-way, when it starts again, then the file is sent anew and completes, and what the stop left behind is removed', async () => {
      const { behind } = await farBehind();
      let stopping: Promise<void> | null = null;
      // Parts went to it while it was stopped (the leader does not know): those it gets count from its start.
      let gotten = 0;
      cluster.alterPart = (to, part) => {
        if (to === behind && cluster.members.has(behind) && (gotten += 1) === 5)
          stopping = cluster.stop(behind);
        return part;
      };
      cluster.start(behind);
      await waitFor(async () => stopping !== null, 10_000, 10);
      await stopping;
      cluster.alterPart = null;
      const leftover = path.join(dir, `${behind}.raft-incoming-0123456789abcdef`);
      fs.writeFileSync(leftover, 'cut short');

      cluster.start(behind);
      expect(fs.existsSync(leftover)).toBe(false);
      await allApplied();

      expect(await cluster.member(behind).store.countJobs('active')).toBe(JOBS);
      expect(cluster.failures).toEqual([]);
    });

    it('Given files that arrive short or altered, when their snapshot message comes, then each is refused and counted and the member is unchanged, until one arrives whole', async () => {
      const { behind } = await farBehind();
      let transfers = 0;
      cluster.alterPart = (to, part) => {
        if (to !== behind || !cluster.members.has(behind)) return part;
        const { index } = decodeSnapshotPart(part)!;
        if (index === 0) transfers += 1;
        if (index !== 2) return part;
        // The first file arrives short of a part; the second with a byte altered, so its hash differs.
        if (transfers === 1) return null;
        if (transfers === 2) part[part.length - 1]! ^= 0xff;
        return part;
      };
      const appliedBefore = cluster.start(behind).replication.machine.appliedIndex;
      await waitFor(async () => cluster.snapshotDrops.some((drop) => /sha256/.test(drop)), 20_000, 20);

      expect(
        cluster.snapshotDrops.some((drop) => /out of order|no such transfer|parts received/.test(drop)),
      ).toBe(true);
      expect(await cluster.member(behind).store.countJobs('active')).toBe(0);
      expect(cluster.member(behind).replication.machine.appliedIndex).toBe(appliedBefore);

      cluster.alterPart = null;
      await allApplied();
      expect(await cluster.member(behind).store.countJobs('active')).toBe(JOBS);
      expect(cluster.failures).toEqual([]);
    });
  });
});
