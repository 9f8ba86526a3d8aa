import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MessageSeal } from '../../../src/cluster/peer/message-seal.js';
import { PeerStreams } from '../../../src/cluster/peer/peer-streams.js';
import { RaftDisk } from '../../../src/cluster/peer/raft-disk.js';
import { RaftHost } from '../../../src/cluster/peer/raft-host.js';
import { raftStreamChannel } from '../../../src/cluster/peer/raft-stream-channel.js';
import { raftWire } from '../../../src/core/consensus/raft-wire.js';
import type { LogEntry } from '../../../src/core/consensus/raft-messages.js';
import { formatPeerAddress } from '../../../src/core/peer/peer-address.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { waitFor } from '../../support/sched-harness.js';
import { newKey, ring } from './peer-test-kit.js';

const wire = raftWire(z.string().max(100).nullable(), z.array(z.string().max(100)).max(10_000));

/** Elections within a few hundred ms: a test-sized Raft. */
const FAST_RAFT = {
  clock: systemClock,
  tickMs: 20,
  electionTicks: 10,
  heartbeatTicks: 2,
  compactEvery: 1_000,
};

class AppliedList {
  items: string[] = [];
  apply(entry: LogEntry<string | null>): void {
    if (entry.data !== null) this.items.push(entry.data);
  }
  restore(state: string[]): void {
    this.items = [...state];
  }
  snapshot(): string[] {
    return [...this.items];
  }
}

interface Member {
  id: string;
  streams: PeerStreams;
  host: RaftHost<string, string[]>;
  disk: RaftDisk<string, string[]>;
  machine: AppliedList;
  drops: string[];
}

describe('Raft members over sealed TCP streams', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-raft-streams-'));
  const members: Member[] = [];
  afterEach(async () => {
    for (const member of members.splice(0)) await stop(member);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function stop(member: Member): Promise<void> {
    member.host.stop();
    member.disk.close();
    await member.streams.close();
  }

  it('given three members on loopback, elects a leader, applies every write on all, and goes on when the leader stops', async () => {
    const seal = () => new MessageSeal(ring(key));
    const key = newKey();
    const all = await Promise.all(
      [1, 2, 3].map(() =>
        PeerStreams.open({
          bind: { host: '127.0.0.1', port: 0 },
          seal: seal(),
          clock: systemClock,
          random: Math.random,
        }),
      ),
    );
    const ids = all.map((streams) => formatPeerAddress(streams.address()));
    for (const [index, streams] of all.entries()) {
      const id = ids[index]!;
      const drops: string[] = [];
      const disk = RaftDisk.open<string, string[]>(path.join(dir, `${index}.db`));
      const machine = new AppliedList();
      const channel = raftStreamChannel(streams, wire, (reason, detail) =>
        drops.push(`${reason}: ${detail}`),
      );
      const host = new RaftHost<string, string[]>({ id, voters: ids, disk, channel, machine, ...FAST_RAFT });
      host.start();
      members.push({ id, streams, host, disk, machine, drops });
    }

    const leaderAmong = (among: Member[]) =>
      waitFor(
        async () => {
          const leaders = among.filter((member) => member.host.role === 'leader');
          return leaders.length === 1 && among.every((member) => member.host.leader === leaders[0]!.id)
            ? leaders[0]!
            : null;
        },
        20_000,
        20,
      );
    const writeAll = async (among: Member[], items: string[]) => {
      for (const item of items)
        for (let attempt = 0; ; attempt++) {
          const outcome = await (await leaderAmong(among)).host.propose(item);
          if (outcome.applied) break;
          expect(attempt).toBeLessThan(5);
        }
    };

    await writeAll(members, ['a1', 'a2', 'a3']);
    const first = await leaderAmong(members);
    await stop(first);
    const rest = members.filter((member) => member !== first);
    members.splice(members.indexOf(first), 1);
    await writeAll(rest, ['b1', 'b2']);
    await waitFor(async () => rest.every((member) => member.machine.items.length === 5), 20_000, 20);
    for (const member of rest) expect(member.machine.items).toEqual(['a1', 'a2', 'a3', 'b1', 'b2']);
    expect(rest.flatMap((member) => member.drops).filter((drop) => !drop.startsWith('queue-full'))).toEqual(
      [],
    );
    expect(rest.map((member) => member.streams.dropped.unsealed)).toEqual([0, 0]);
  });

  it('given a member that comes late, after the log was compacted, gets a snapshot many frames long, in parts', async () => {
    fs.mkdirSync(dir, { recursive: true });
    const bigWire = raftWire(
      z.string().max(2_000_000).nullable(),
      z.array(z.string().max(2_000_000)).max(100),
    );
    const key = newKey();
    const all = await Promise.all(
      [1, 2, 3].map(() =>
        PeerStreams.open({
          bind: { host: '127.0.0.1', port: 0 },
          seal: new MessageSeal(ring(key)),
          clock: systemClock,
          random: Math.random,
        }),
      ),
    );
    const ids = all.map((streams) => formatPeerAddress(streams.address()));
    const begin = (index: number): Member => {
      const drops: string[] = [];
      const disk = RaftDisk.open<string, string[]>(path.join(dir, `big-${index}.db`));
      const machine = new AppliedList();
      const channel = raftStreamChannel(all[index]!, bigWire, (reason, detail) =>
        drops.push(`${reason}: ${detail}`),
      );
      const host = new RaftHost<string, string[]>({
        ...FAST_RAFT,
        id: ids[index]!,
        voters: ids,
        disk,
        channel,
        machine,
        compactEvery: 4,
      });
      host.start();
      const member = { id: ids[index]!, streams: all[index]!, host, disk, machine, drops };
      members.push(member);
      return member;
    };
    const early = [begin(0), begin(1)];
    // 12 entries of 1 MB: a snapshot of 12 MB, three times what one frame holds.
    const items = Array.from({ length: 12 }, (_, index) => String(index).padEnd(1_000_000, 'x'));
    for (const item of items)
      await waitFor(
        async () => {
          const leader = early.find((member) => member.host.role === 'leader');
          return leader ? (await leader.host.propose(item)).applied : false;
        },
        20_000,
        20,
      );

    const late = begin(2);
    await waitFor(async () => late.machine.items.length === items.length, 30_000, 50);
    expect(late.machine.items.map((item) => item.slice(0, 2))).toEqual(items.map((item) => item.slice(0, 2)));
    expect(late.drops.filter((drop) => !drop.startsWith('queue-full'))).toEqual([]);
  }, 60_000);
});
