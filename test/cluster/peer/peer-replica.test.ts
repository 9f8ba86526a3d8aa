import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { MessageSeal } from '../../../src/cluster/peer/message-seal.js';
import { PeerReplica } from '../../../src/cluster/peer/peer-replica.js';
import { PeerStreams } from '../../../src/cluster/peer/peer-streams.js';
import { formatPeerAddress, parsePeerAddress } from '../../../src/core/peer/peer-address.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { PROTOCOL_VERSION } from '../../../src/core/peer/protocol-version.js';
import { createJob, newRun, T0 } from '../../store/conformance/fixtures.js';
import { waitFor } from '../../support/sched-harness.js';
import { newKey, ring } from './peer-test-kit.js';

const MINUTE = 60_000;
const FAST = { tickMs: 20, electionTicks: 10, heartbeatTicks: 2, compactEvery: 1_000 };

interface Member {
  id: string;
  local: SqliteStore;
  streams: PeerStreams;
  replica: PeerReplica;
  drops: string[];
  failures: Error[];
  files: { db: string; raft: string };
  /** Starts it again on the same address and files, once stopped. */
  restart(): Promise<Member>;
}

interface Tuning {
  timing?: typeof FAST & { retainEntries?: number };
  snapshotPartBytes?: number;
  /** The protocol versions gossip tells of (none: version 1 for all), and the members it holds alive or suspect. */
  gossip?: { versions: Map<string, number>; reachable: string[] };
}

describe('Peer replicas over sealed TCP streams on loopback', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-peer-replica-'));
  const members: Member[] = [];
  afterEach(async () => {
    for (const member of members.splice(0)) await stop(member);
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  async function stop(member: Member): Promise<void> {
    await member.replica.close();
    await member.local.close();
    await member.streams.close();
  }

  async function startThree(key: string, tuning: Tuning = {}): Promise<Member[]> {
    const streams = await Promise.all([0, 1, 2].map(() => openStreams(key, 0)));
    const ids = streams.map((one) => formatPeerAddress(one.address()));
    const stamp = Date.now();
    for (const [index, id] of ids.entries()) {
      const files = {
        db: path.join(dir, `${index}-${stamp}.db`),
        raft: path.join(dir, `${index}-${stamp}.raft`),
      };
      members.push(started(id, ids, streams[index]!, files, key, tuning));
    }
    return members;
  }

  function openStreams(key: string, port: number): Promise<PeerStreams> {
    return PeerStreams.open({
      bind: { host: '127.0.0.1', port },
      seal: new MessageSeal(ring(key)),
      clock: systemClock,
      random: Math.random,
    });
  }

  function started(
    id: string,
    ids: string[],
    streams: PeerStreams,
    files: Member['files'],
    key: string,
    tuning: Tuning,
  ): Member {
    const drops: string[] = [];
    const failures: Error[] = [];
    const local = openSqliteStore(files.db);
    const replica = new PeerReplica({
      self: id,
      voters: ids,
      streams,
      local,
      raftFile: files.raft,
      clock: systemClock,
      timing: tuning.timing ?? FAST,
      snapshotPartBytes: tuning.snapshotPartBytes,
      commitTimeoutMs: 3_000,
      isAlive: () => true,
      protocolOf: tuning.gossip && ((member) => tuning.gossip!.versions.get(member)),
      reachableMembers: tuning.gossip && (() => tuning.gossip!.reachable),
      contacts: () => ids,
      onFailed: (error) => failures.push(error),
      onDrop: (reason, detail) => drops.push(`${reason}: ${detail}`),
    });
    replica.store.markEventsWith(id);
    replica.start();
    return {
      id,
      local,
      streams,
      replica,
      drops,
      failures,
      files,
      restart: () => restarted(id, ids, files, key, tuning),
    };
  }

  async function restarted(id: string, ids: string[], files: Member['files'], key: string, tuning: Tuning) {
    const streams = await openStreams(key, parsePeerAddress(id).port);
    const member = started(id, ids, streams, files, key, tuning);
    members.push(member);
    return member;
  }

  const leaderOf = (among: Member[]) =>
    waitFor(
      async () => {
        const leaders = among.filter((member) => member.replica.raft.role === 'leader');
        return leaders.length === 1 && among.every((member) => member.replica.raft.leader === leaders[0]!.id)
          ? leaders[0]!
          : null;
      },
      20_000,
      20,
    );

  it('Given three members, when jobs are created through followers and the leader then stops, then each write is read back where it was made and the two left hold them all', async () => {
    await startThree(newKey());
    const leader = await leaderOf(members);
    const followers = members.filter((member) => member !== leader);

    const first = await createJob(followers[0]!.replica.store, 'first');
    expect(await followers[0]!.replica.store.findJob('first')).toEqual(first);
    await createJob(followers[1]!.replica.store, 'second');
    await stop(leader);
    members.splice(members.indexOf(leader), 1);
    await leaderOf(members);
    const third = await createJob(members[0]!.replica.store, 'third');
    const fromOther = await waitFor(async () => members[1]!.replica.store.findJob(third.id), 10_000, 20);

    expect(fromOther?.name).toBe('third');
    for (const member of members) {
      const names = (await member.replica.store.listJobs({ limit: 10 })).items.map((job) => job.name);
      expect(names.sort()).toEqual(['first', 'second', 'third']);
      const events = await member.replica.store.readEvents({ after: 0, limit: 10 });
      expect(events.map((event) => event.node)).toEqual([followers[0]!.id, followers[1]!.id, members[0]!.id]);
      expect(member.failures).toEqual([]);
    }
  });

  it('Given a key holder sending malformed forwarded writes, when the leader reads them, then it drops and counts them and goes on serving', async () => {
    const key = newKey();
    await startThree(key);
    const leader = await leaderOf(members);
    const intruder = await PeerStreams.open({
      bind: { host: '127.0.0.1', port: 0 },
      seal: new MessageSeal(ring(key)),
      clock: systemClock,
      random: Math.random,
    });
    try {
      const to = leader.streams.address();
      for (const body of [
        'not json',
        '{"request":1}',
        JSON.stringify({ request: 2, from: 'x y', command: {} }),
      ])
        intruder.send(to, 'forward', Buffer.from(body));
      await waitFor(
        async () => leader.drops.filter((drop) => drop.startsWith('malformed')).length >= 3,
        10_000,
        20,
      );

      const follower = members.find((member) => member !== leader)!;
      expect((await createJob(follower.replica.store, 'still-fine')).name).toBe('still-fine');
    } finally {
      await intruder.close();
    }
  });

  it('Given a member stopped while the others went further than their logs keep, when it starts again, then it catches up through a snapshot file sent over the streams in many parts, and has every job', async () => {
    const timing = { ...FAST, compactEvery: 10, retainEntries: 10 };
    await startThree(newKey(), { timing, snapshotPartBytes: 16 * 1024 });
    const leader = await leaderOf(members);
    const behind = members.find((member) => member !== leader)!;
    await stop(behind);
    members.splice(members.indexOf(behind), 1);
    for (let index = 0; index < 80; index += 1) await createJob(leader.replica.store, `job-${index}`);
    expect(leader.replica.raft.snapshotIndex).toBeGreaterThan(20);

    const back = await behind.restart();
    await waitFor(async () => (await back.replica.store.countJobs('active')) === 80, 20_000, 50);

    expect(back.replica.raft.snapshotIndex).toBeGreaterThan(0);
    expect(leader.streams.dropped['too-large']).toBe(0);
    expect(back.failures).toEqual([]);
    // The rows are seen once the worker commits them; the file goes once the member hears it did.
    const left = () => fs.readdirSync(dir).filter((name) => name.includes('-incoming-'));
    await waitFor(async () => left().length === 0, 10_000, 20).catch(() => undefined);
    expect(left()).toEqual([]);
  });

  it('Given the versions gossip tells of, then a fire names the runs that ended on its node only while every voter and every member gossip holds reachable understands them', async () => {
    const gossip = { versions: new Map<string, number>(), reachable: [] as string[] };
    await startThree(newKey(), { gossip });
    const leader = await leaderOf(members);
    const follower = members.find((member) => member !== leader)!;
    const store = follower.replica.store;
    const job = await createJob(store, 'every-minute', { nextRunAt: T0 + MINUTE });
    let minute = 0;
    const ran: string[] = [];
    /** Fires the job's next instant, naming its runs before as ended here; whether the instant ran. */
    const fireNamingTheLast = async (): Promise<boolean> => {
      minute += 1;
      const fired = await store.recordFire({
        jobId: job.id,
        runs: [newRun(job.id, { scheduledFor: T0 + minute * MINUTE, state: 'running' })],
        occurrences: [],
        expectedNextRunAt: T0 + minute * MINUTE,
        nextRunAt: T0 + (minute + 1) * MINUTE,
        concurrency: 'forbid',
        endedHere: () => [...ran],
      });
      const run = fired?.runs[0];
      if (run) ran.push(run.id);
      return run !== undefined;
    };
    expect(await fireNamingTheLast()).toBe(true);

    // One voter not heard from yet (taken as an older build), then all three at this build.
    for (const id of members.slice(0, 2).map((member) => member.id))
      gossip.versions.set(id, PROTOCOL_VERSION);
    expect(await fireNamingTheLast()).toBe(false);
    gossip.versions.set(members[2]!.id, PROTOCOL_VERSION);
    expect(await fireNamingTheLast()).toBe(true);
    // A member that is sent the log without a vote, of an older build, then no longer reachable.
    gossip.reachable = ['127.0.0.1:1'];
    gossip.versions.set('127.0.0.1:1', 2);
    expect(await fireNamingTheLast()).toBe(false);
    gossip.reachable = [];
    expect(await fireNamingTheLast()).toBe(true);

    const ledgers = await Promise.all(
      members.map(async (member) => {
        await waitFor(async () => member.replica.raft.applied >= leader.replica.raft.committed, 10_000, 20);
        const entries = await member.replica.store.listOccurrences({
          jobId: job.id,
          order: 'asc',
          limit: 10,
        });
        return entries.map((entry) => entry.scheduledFor - T0);
      }),
    );
    expect(ledgers).toEqual(Array(3).fill([2 * MINUTE, 4 * MINUTE]));
  });
});
