import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { assignShards } from '../../../src/core/cluster/rendezvous.js';
import { PROTOCOL_VERSION, protocolFeatures } from '../../../src/core/peer/protocol-version.js';
import type { ShardMap } from '../../../src/core/cluster/shard-map.js';
import type { Fire, StoreChange } from '../../../src/store/store.js';
import { createJob, newRun, outcome, stamp, T0 } from '../../store/conformance/fixtures.js';
import { ReplicaCluster, type ReplicaMember } from '../../support/replica-cluster.js';
import { waitFor } from '../../support/sched-harness.js';

const MINUTE = 60_000;
const IDS = ['n1', 'n2', 'n3'];
const mapOf = (term: number, publishedAt: number): ShardMap => ({
  term,
  coordinator: 'n1',
  publishedAt,
  nodes: IDS.map((id) => ({ id, labels: {} })),
  owners: assignShards(IDS),
});

describe('The replicated store: every write through the log, applied to each member’s SQLite', () => {
  let dir: string;
  let cluster: ReplicaCluster;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-replicated-'));
  });
  afterEach(async () => {
    await cluster?.stopAll();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function started(
    tuning: ConstructorParameters<typeof ReplicaCluster>[2] = {},
  ): Promise<ReplicaCluster> {
    cluster = new ReplicaCluster(dir, IDS, tuning);
    cluster.startAll();
    await cluster.untilSettled();
    return cluster;
  }

  /** Every member's rows, once each has applied as far as the leader. */
  async function convergedRows(): Promise<unknown[]> {
    await cluster.untilAllApplied();
    return [...cluster.members.values()].map((member) => member.local.replica.copy().tables);
  }

  it('Given a job created through a follower, when it is answered, then it is read back there at once and every member holds the same rows', async () => {
    await started();
    const follower = cluster.follower();

    const job = await createJob(follower.store, 'nightly');
    expect(await follower.store.findJob('nightly')).toEqual(job);
    await follower.store.updateJob(job.id, job.version, { state: 'paused' }, stamp('job.pause', T0 + 1));
    await follower.store.appendAudit({ ...stamp('note'), jobId: job.id, before: null, after: null });

    const rows = await convergedRows();
    expect(rows[1]).toEqual(rows[0]);
    expect(rows[2]).toEqual(rows[0]);
    for (const member of cluster.members.values())
      expect((await member.store.findJob(job.id))?.state).toBe('paused');
  });

  it('Given two members firing the same instant at once, when both are applied, then one fire wins on every member and one run exists', async () => {
    await started();
    const [a, b] = [...cluster.members.values()] as [ReplicaMember, ReplicaMember];
    const job = await createJob(a.store, 'every-minute', { nextRunAt: T0 + MINUTE });
    const fireFrom = (member: ReplicaMember) =>
      member.store.recordFire({
        jobId: job.id,
        runs: [newRun(job.id, { scheduledFor: T0 + MINUTE, node: member.id, state: 'running' })],
        occurrences: [],
        expectedNextRunAt: T0 + MINUTE,
        nextRunAt: T0 + 2 * MINUTE,
        writtenAt: () => T0 + MINUTE + 5,
      });

    const fired = await Promise.all([fireFrom(a), fireFrom(b)]);

    expect(fired.filter((one) => one !== null)).toHaveLength(1);
    const winner = fired.find((one) => one !== null)!;
    expect(winner.runs[0]?.startedAt).toBe(T0 + MINUTE + 5);
    await convergedRows();
    for (const member of cluster.members.values()) {
      const runs = (await member.store.listRuns({ limit: 10, jobId: job.id })).items;
      expect(runs.map((run) => run.id)).toEqual([winner.runs[0]!.id]);
    }
  });

  it('Given a name already taken, when a follower creates it again, then the store’s refusal is its answer and nothing is stored anywhere', async () => {
    await started();
    const follower = cluster.follower();
    await createJob(cluster.leader()!.store, 'backup');

    await expect(createJob(follower.store, 'backup')).rejects.toMatchObject({ code: 'NAME_TAKEN' });

    await convergedRows();
    for (const member of cluster.members.values())
      expect((await member.store.listJobs({ limit: 10 })).items.map((job) => job.name)).toEqual(['backup']);
  });

  it('Given a run finished with a retry and optional arguments left out, when applied from the wire, then every member has the retry and the same events', async () => {
    await started();
    const follower = cluster.follower();
    const job = await createJob(follower.store, 'flaky');
    const run = await follower.store.insertRun(newRun(job.id, { state: 'running' }));
    const retry = newRun(job.id, { attempt: 2, trigger: 'retry', dueAt: T0 + 70_000 });

    const finished = await follower.store.finishRun(run.id, outcome({ state: 'failed', exitCode: 1 }), retry);
    await follower.store.finishRun(retry.id, outcome()).catch(() => undefined);

    expect(finished.retry?.id).toBe(retry.id);
    const rows = await convergedRows();
    expect(rows[1]).toEqual(rows[0]);
    expect(rows[2]).toEqual(rows[0]);
    const events = await cluster.leader()!.store.readEvents({ after: 0, limit: 100 });
    expect(events.map((event) => event.type)).toContain('run:finished');
    expect(await follower.store.latestEventId()).toBe(await cluster.leader()!.store.latestEventId());
  });

  it('Given writes made through other members, when this member watches changes, then it hears the jobs, the waiting runs and the kills, and not its own writes', async () => {
    await started();
    const [watcher, writer] = [...cluster.members.values()] as [ReplicaMember, ReplicaMember];
    const heard: StoreChange[] = [];
    const stop = await watcher.store.watchChanges(
      (change) => heard.push(change),
      () => undefined,
    );
    await createJob(watcher.store, 'mine');

    const job = await createJob(writer.store, 'theirs');
    const waiting = await writer.store.insertRun(newRun(job.id, { state: 'scheduled', trigger: 'manual' }));
    await writer.store.relayKill(waiting.id, 'asked by alice');

    await waitFor(async () => heard.length >= 3, 10_000, 10);
    expect(heard).toEqual([
      { kind: 'job', id: job.id },
      { kind: 'waiting-run', id: waiting.id },
      { kind: 'kill', runId: waiting.id, reason: 'asked by alice' },
    ]);
    await stop?.();
  });

  it('Given a member restarted on its files, when the log is applied again, then nothing is applied twice and it catches up with what it missed', async () => {
    await started();
    const first = await createJob(cluster.leader()!.store, 'before');
    await convergedRows();
    const restarted = cluster.follower().id;
    const eventsBefore = await cluster.member(restarted).store.latestEventId();
    await cluster.stop(restarted);

    await createJob(cluster.leader()!.store, 'while-down');
    cluster.start(restarted);

    const rows = await convergedRows();
    expect(new Set(rows.map((table) => JSON.stringify(table))).size).toBe(1);
    const member = cluster.member(restarted);
    expect((await member.store.listJobs({ limit: 10 })).items.map((job) => job.name).sort()).toEqual([
      'before',
      'while-down',
    ]);
    expect(await member.store.latestEventId()).toBe(eventsBefore + 1);
    expect((await member.store.findJob(first.id))?.version).toBe(1);
    expect(cluster.failures).toEqual([]);
  });

  it('Given a member down while the others compacted their logs, when it comes back, then it is sent a snapshot and ends with the same rows', async () => {
    await started({ compactEvery: 5 });
    const behind = cluster.follower().id;
    await cluster.stop(behind);
    const leader = cluster.leader()!;
    await leader.replication.publishMap(mapOf(7, 7_000));
    for (let index = 0; index < 12; index += 1) await createJob(leader.store, `job-${index}`);

    const restarted = cluster.start(behind);
    const heard: StoreChange[] = [];
    await restarted.store.watchChanges(
      (change) => heard.push(change),
      () => undefined,
    );

    const rows = await convergedRows();
    expect(heard).toContainEqual({ kind: 'missed' });
    expect(restarted.replication.currentMap()).toMatchObject({ term: 7, publishedAt: 7_000 });
    for (const table of Object.keys(rows[0] as object))
      for (const other of rows.slice(1))
        expect([table, (other as Record<string, unknown>)[table]]).toEqual([
          table,
          (rows[0] as Record<string, unknown>)[table],
        ]);
    expect(await cluster.member(behind).store.countJobs('active')).toBe(12);
  });

  it('Given a member taking a snapshot file in, when its store is pinged (the daemon’s /ready), then it says so at once, and is well again after', async () => {
    await started();
    const leader = cluster.leader()!;
    await createJob(leader.store, 'copied');
    const file = path.join(dir, 'copy.db');
    await leader.local.replica.copyTo(file);
    const member = cluster.follower();

    const takingIn = member.local.replica.replaceWithFile(file);
    await expect(member.store.ping()).rejects.toThrow(/taking in a snapshot of the store from the leader/);
    await takingIn;
    await member.store.ping();
  });

  it('Given a member cut off from the other two, when it is asked to write, then it answers NO_QUORUM naming what it sees, and nothing is stored anywhere', async () => {
    await started({ commitTimeoutMs: 1_500 });
    const alone = cluster.follower();
    cluster.cutOff.add(alone.id);

    const refused = await createJob(alone.store, 'lonely').catch((error: unknown) => error);

    expect(refused).toMatchObject({ code: 'NO_QUORUM', details: { reachable: [alone.id] } });
    expect((refused as { hint: string }).hint).toContain('1 of 3 voters');
    cluster.cutOff.delete(alone.id);
    await convergedRows();
    for (const member of cluster.members.values()) expect(await member.store.findJob('lonely')).toBeNull();
  });

  it('Given a member that has heard no leader for a commit timeout, when it is asked to write, then it answers NO_QUORUM at once, saying so', async () => {
    await started({ commitTimeoutMs: 1_500 });
    const alone = cluster.follower();
    cluster.cutOff.add(alone.id);
    await waitFor(async () => alone.host.leaderSilentForMs() >= 1_500, 20_000, 50);

    const refused = await createJob(alone.store, 'lonely').catch((error: unknown) => error);

    expect(refused).toMatchObject({
      code: 'NO_QUORUM',
      details: { reason: expect.stringMatching(/^no leader heard for \d+ s$/) },
    });
    cluster.cutOff.delete(alone.id);
    await waitFor(async () => alone.host.leaderSilentForMs() === 0, 20_000, 50);
    expect((await createJob(alone.store, 'back')).name).toBe('back');
  });

  it('Given a write waiting on the log, when its member loses the majority, then it is answered NO_QUORUM then, not at its timeout', async () => {
    await started({ commitTimeoutMs: 60_000 });
    const alone = cluster.follower();
    cluster.cutOff.add(alone.id);
    const asked = Date.now();
    const waiting = createJob(alone.store, 'lonely').catch((error: unknown) => error);
    await new Promise((resolve) => setTimeout(resolve, 200));

    alone.replication.quorumLost('no leader heard for 3 s');

    expect(await waiting).toMatchObject({
      code: 'NO_QUORUM',
      details: { reason: 'no leader heard for 3 s' },
    });
    expect(Date.now() - asked).toBeLessThan(30_000);
    cluster.cutOff.delete(alone.id);
  });

  it('Given a write its leader took and was cut off with before any member had it, when another leader is elected over its place, then the write is offered again and applied once, long before its timeout', async () => {
    await started({ commitTimeoutMs: 60_000 });
    const leader = cluster.leader()!;
    const follower = cluster.follower();
    const asked = Date.now();

    // The leader appends it at once and sends its appends on a later turn, which the cut drops.
    const waiting = createJob(follower.store, 'taken-then-lost');
    cluster.cutOff.add(leader.id);

    expect((await waiting).name).toBe('taken-then-lost');
    expect(Date.now() - asked).toBeLessThan(30_000);
    cluster.cutOff.delete(leader.id);
    await convergedRows();
    for (const member of cluster.members.values()) {
      const jobs = await member.store.listJobs({ limit: 100 });
      expect(jobs.items.filter((job) => job.name === 'taken-then-lost')).toHaveLength(1);
    }
  });

  it('Given a follower’s write taken behind one of the leader’s own, both cut off with the leader, when another leader is elected and nothing else is written, then the follower’s write is offered again and applied', async () => {
    await started({ commitTimeoutMs: 60_000 });
    const leader = cluster.leader()!;
    const follower = cluster.follower();
    const asked = Date.now();

    // The new leader's first entry lands at the leader's own write's place, before the follower's.
    const stranded = createJob(leader.store, 'stranded').catch((error: unknown) => error);
    const waiting = createJob(follower.store, 'behind-it');
    cluster.cutOff.add(leader.id);

    expect((await waiting).name).toBe('behind-it');
    expect(Date.now() - asked).toBeLessThan(30_000);
    cluster.cutOff.delete(leader.id);
    expect(await stranded).toMatchObject({ name: 'stranded' });
    await convergedRows();
    for (const member of cluster.members.values())
      expect((await member.store.listJobs({ limit: 100 })).items.map((job) => job.name).sort()).toEqual([
        'behind-it',
        'stranded',
      ]);
  });

  it('Given a follower’s write whose leader took it and never answered, when it is offered again until applied, then it is applied once on every member', async () => {
    await started({ commitTimeoutMs: 60_000 });
    const leader = cluster.leader()!;
    const follower = cluster.follower();

    const job = await createJob(leader.store, 'talkative');
    const run = await leader.store.insertRun(newRun(job.id, { state: 'running' }));
    cluster.unanswering.set(leader.id, 'answer-lost');
    const batch = { runId: run.id, jobId: job.id, stream: 'stdout', data: 'once\n', seq: 1, at: T0 } as const;

    await follower.store.appendRunOutput(batch);

    cluster.unanswering.clear();
    await createJob(leader.store, 'after-the-copies');
    await convergedRows();
    for (const member of cluster.members.values())
      expect((await member.store.readRunOutput(run.id)).map((event) => event.data)).toEqual([
        { runId: run.id, stream: 'stdout', data: 'once\n', seq: 1 },
      ]);
  });

  it('Given a follower’s write whose leader took it and was cut off before answering, when another leader is elected, then the write is offered again and applied once, long before its timeout', async () => {
    await started({ commitTimeoutMs: 60_000 });
    const leader = cluster.leader()!;
    const follower = cluster.follower();
    cluster.unanswering.set(leader.id, 'cut-off');
    const asked = Date.now();

    const job = await createJob(follower.store, 'unanswered');

    expect(Date.now() - asked).toBeLessThan(30_000);
    cluster.unanswering.clear();
    cluster.cutOff.delete(leader.id);
    await convergedRows();
    for (const member of cluster.members.values())
      expect((await member.store.listJobs({ limit: 100 })).items.map(({ id }) => id)).toEqual([job.id]);
  });

  it('Given shard maps published through a follower, when fires carry fences, then a fire from a replaced map is FENCED on every member and one from the map in force fires', async () => {
    await started();
    const follower = cluster.follower();
    const heard: number[] = [];
    cluster.leader()!.replication.onMapChanged((map) => heard.push(map.term));
    const job = await createJob(follower.store, 'fenced', { nextRunAt: T0 + MINUTE });
    await follower.replication.publishMap(mapOf(3, 1_000));
    await follower.replication.publishMap(mapOf(4, 2_000));
    const fire = (fence: Fire['fence']): Fire => ({
      jobId: job.id,
      runs: [newRun(job.id, { scheduledFor: T0 + MINUTE, state: 'running' })],
      occurrences: [],
      expectedNextRunAt: T0 + MINUTE,
      nextRunAt: T0 + 2 * MINUTE,
      fence,
    });

    await expect(follower.store.recordFire(fire({ term: 3, publishedAt: 1_000 }))).rejects.toMatchObject({
      code: 'FENCED',
      details: { term: 3, current: 4 },
    });
    await expect(follower.store.recordFires([fire({ term: 4, publishedAt: 1 })])).rejects.toMatchObject({
      code: 'FENCED',
    });
    await expect(follower.replication.publishMap(mapOf(2, 3_000))).rejects.toMatchObject({ code: 'FENCED' });
    const fired = await follower.store.recordFire(fire({ term: 4, publishedAt: 2_000 }));

    expect(fired?.runs).toHaveLength(1);
    await convergedRows();
    expect(heard).toEqual([3, 4]);
    for (const member of cluster.members.values()) {
      expect(member.replication.currentMap()).toMatchObject({ term: 4, publishedAt: 2_000 });
      expect((await member.store.listRuns({ limit: 10, jobId: job.id })).items).toHaveLength(1);
    }
    const restarted = follower.id;
    await cluster.stop(restarted);
    expect(cluster.start(restarted).replication.currentMap()).toMatchObject({ term: 4, publishedAt: 2_000 });
  });

  describe('a fire that names the runs its node saw end', () => {
    /** A job whose first instant ran and is `running` on every member: its end has not reached the log. */
    async function firstRunRunning(through: ReplicaMember): Promise<{ jobId: string; first: string }> {
      const job = await createJob(through.store, 'every-minute', { nextRunAt: T0 + MINUTE });
      const fired = await through.store.recordFire(fireOf(job.id, 1));
      return { jobId: job.id, first: fired!.runs[0]!.id };
    }

    const fireOf = (jobId: string, minute: number, endedHere?: () => string[]): Fire => ({
      jobId,
      runs: [newRun(jobId, { scheduledFor: T0 + minute * MINUTE, state: 'running' })],
      occurrences: [],
      expectedNextRunAt: T0 + minute * MINUTE,
      nextRunAt: T0 + (minute + 1) * MINUTE,
      concurrency: 'forbid',
      endedHere,
    });

    async function runsAndLedgerOnEach(jobId: string): Promise<{ states: string[]; ledger: string[] }[]> {
      await convergedRows();
      return Promise.all(
        [...cluster.members.values()].map(async (member) => ({
          states: (await member.store.listRuns({ jobId, limit: 10 })).items.map((run) => run.state).sort(),
          ledger: (await member.store.listOccurrences({ jobId, order: 'asc', limit: 10 })).map(
            (entry) => entry.outcome,
          ),
        })),
      );
    }

    it('Given every member understands them, when the next instant fires before the run’s end is in the log, then it runs on every member, and a run not named still forbids the one after', async () => {
      await started({ understood: () => protocolFeatures(PROTOCOL_VERSION) });
      const follower = cluster.follower();
      const { jobId, first } = await firstRunRunning(follower);

      const second = await follower.store.recordFire(fireOf(jobId, 2, () => [first]));
      expect(second?.runs).toHaveLength(1);
      const third = await follower.store.recordFire(fireOf(jobId, 3, () => [first]));
      expect(third?.runs).toEqual([]);

      const seen = await runsAndLedgerOnEach(jobId);
      expect(seen[0]).toEqual({ states: ['running', 'running'], ledger: ['skipped-overlap'] });
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[2]).toEqual(seen[0]);
      const rows = await convergedRows();
      expect(rows[1]).toEqual(rows[0]);
      expect(rows[2]).toEqual(rows[0]);
    });

    it('Given a member that does not understand them (an older build), when the same instant fires, then its entry names none and every member skips it alike', async () => {
      await started({ understood: () => protocolFeatures(2) });
      const follower = cluster.follower();
      const { jobId, first } = await firstRunRunning(follower);

      const second = await follower.store.recordFire(fireOf(jobId, 2, () => [first]));
      expect(second?.runs).toEqual([]);

      const seen = await runsAndLedgerOnEach(jobId);
      expect(seen[0]).toEqual({ states: ['running'], ledger: ['skipped-overlap'] });
      expect(seen[1]).toEqual(seen[0]);
      expect(seen[2]).toEqual(seen[0]);
    });
  });
});
