import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RaftDisk } from '../../../src/cluster/peer/raft-disk.js';
import { RaftHost, type RaftChannel } from '../../../src/cluster/peer/raft-host.js';
import type { LogEntry, RaftMessage } from '../../../src/core/consensus/raft-messages.js';
import { protocolFeatures } from '../../../src/core/peer/protocol-version.js';
import { systemClock } from '../../../src/daemon/clock.js';
import { waitFor } from '../../support/sched-harness.js';

type Message = RaftMessage<string | null, string[]>;
const IDS = ['n1', 'n2', 'n3'];

/** Members in one process: each message is delivered on a later turn of the event loop, unless a member is cut off. */
class LoopbackNetwork {
  private readonly handlers = new Map<string, (message: Message) => void>();
  readonly cutOff = new Set<string>();
  /** Appends to these members arrive this many ms late, as on a busy host. */
  readonly appendsLateTo = new Map<string, number>();
  delivered = 0;
  readonly sentTypes: string[] = [];
  readonly sentBy = new Map<string, number>();

  channel(id: string): RaftChannel<string, string[]> {
    return {
      send: (message) => {
        this.sentTypes.push(message.type);
        this.sentBy.set(message.from, (this.sentBy.get(message.from) ?? 0) + 1);
        const deliver = () => {
          if (this.cutOff.has(message.from) || this.cutOff.has(message.to)) return;
          this.delivered += 1;
          this.handlers.get(message.to)?.(message);
        };
        const lateMs = message.type === 'append' ? this.appendsLateTo.get(message.to) : undefined;
        if (lateMs === undefined) setImmediate(deliver);
        else setTimeout(deliver, lateMs);
      },
      onMessage: (handler) => this.handlers.set(id, handler),
    };
  }
}

/** The replicated state: the data of every entry applied, in order. */
class AppliedList {
  items: string[] = [];
  restored = 0;
  apply(entry: LogEntry<string | null>): void {
    if (entry.data !== null) this.items.push(entry.data);
  }
  restore(state: string[]): void {
    this.restored += 1;
    this.items = [...state];
  }
  snapshot(): string[] {
    return [...this.items];
  }
}

/** A machine whose restores take as long as the test says (as a large snapshot file taken in aside does). */
class SlowRestoreList extends AppliedList {
  private readonly releases: Array<() => void> = [];
  override restore(state: string[]): Promise<void> {
    return new Promise<void>((resolve) =>
      this.releases.push(() => {
        super.restore(state);
        resolve();
      }),
    );
  }
  get waiting(): number {
    return this.releases.length;
  }
  release(): void {
    for (const release of this.releases.splice(0)) release();
  }
}

describe('Raft members on real timers and real log files', () => {
  let dir: string;
  const network = new LoopbackNetwork();
  const members = new Map<
    string,
    { host: RaftHost<string, string[]>; disk: RaftDisk<string, string[]>; machine: AppliedList }
  >();

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-raft-host-'));
  });
  afterEach(() => {
    for (const id of [...members.keys()]) stopMember(id);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function startMember(
    id: string,
    maxAppendBytes?: number,
    protocolOf?: (member: string) => number,
    machine = new AppliedList(),
  ): void {
    const disk = RaftDisk.open<string, string[]>(path.join(dir, `${id}.db`));
    const host = new RaftHost<string, string[]>({
      id,
      voters: IDS,
      disk,
      channel: network.channel(id),
      machine,
      clock: systemClock,
      tickMs: 20,
      electionTicks: 10,
      heartbeatTicks: 2,
      compactEvery: 16,
      maxAppendBytes,
      takesTransfer: protocolOf && ((member) => protocolFeatures(protocolOf(member)).leadershipTransfer),
    });
    host.start();
    members.set(id, { host, disk, machine });
  }

  function stopMember(id: string): void {
    const member = members.get(id)!;
    member.host.stop();
    member.disk.close();
    members.delete(id);
  }

  const leaderOf = async (among: string[]) =>
    waitFor(
      async () => {
        const leaders = among.filter((id) => members.get(id)!.host.role === 'leader');
        const leader = leaders.length === 1 ? leaders[0]! : null;
        // Settled: every member follows that leader in its term.
        return leader !== null && among.every((id) => members.get(id)!.host.leader === leader)
          ? leader
          : null;
      },
      20_000,
      20,
    );

  /** Writes each item through the leader, as a client would: asking the new leader again when leadership moved. */
  async function proposeAll(among: string[], items: string[]): Promise<string> {
    let leader = await leaderOf(among);
    for (const item of items) {
      for (let attempt = 0; ; attempt++) {
        const outcome = await members.get(leader)!.host.propose(item);
        if (outcome.applied) break;
        expect(attempt).toBeLessThan(5);
        leader = await leaderOf(among);
      }
      // Read your own write: applied on the member that proposed it when the proposal settles.
      expect(members.get(leader)!.machine.items.at(-1)).toBe(item);
    }
    return leader;
  }

  it('Given three members, when the leader is stopped and restarted from its file, then the others elect another, every write is applied on all in one order, and the old leader catches up', async () => {
    for (const id of IDS) startMember(id);
    const first = await leaderOf(IDS);
    const follower = IDS.find((id) => id !== first)!;
    expect(await members.get(follower)!.host.propose('refused')).toMatchObject({
      applied: false,
      leader: first,
    });

    const before = Array.from({ length: 40 }, (_, i) => `a${i}`);
    const writer = await proposeAll(IDS, before);
    const firstTerm = members.get(writer)!.host.term;

    stopMember(writer);
    const rest = IDS.filter((id) => id !== writer);
    const second = await leaderOf(rest);
    expect(members.get(second)!.host.term).toBeGreaterThan(firstTerm);
    const after = Array.from({ length: 40 }, (_, i) => `b${i}`);
    await proposeAll(rest, after);

    startMember(writer);
    const everything = [...before, ...after];
    await waitFor(
      async () => IDS.every((id) => members.get(id)!.machine.items.length === everything.length),
      20_000,
      20,
    );
    for (const id of IDS) expect(members.get(id)!.machine.items).toEqual(everything);
  });

  it('Given a leader that hands its leadership over before it stops, then another member leads in the next term as soon as it resolves, and takes the writes', async () => {
    for (const id of IDS) startMember(id);
    const leader = await proposeAll(IDS, ['a', 'b']);
    const term = members.get(leader)!.host.term;

    await members.get(leader)!.host.handOver();

    // No election timeout was waited out, and no vote was split: the next term is the successor's.
    expect(members.get(leader)!.host.role).toBe('follower');
    const successor = members.get(leader)!.host.leader;
    expect(successor).not.toBeNull();
    expect(successor).not.toBe(leader);
    expect(members.get(successor!)!.host.term).toBe(term + 1);
    stopMember(leader);
    const rest = IDS.filter((id) => id !== leader);
    await proposeAll(rest, ['c']);
    const everywhere = async () =>
      rest.every((id) => members.get(id)!.machine.items.join() === ['a', 'b', 'c'].join());
    expect(await waitFor(everywhere, 20_000, 20)).toBe(true);
  });

  it('Given a leader that hears the appends of its successor late (a busy host), when it hands its leadership over, then the hand-over resolves only once it follows the successor', async () => {
    for (const id of IDS) startMember(id);
    const leader = await proposeAll(IDS, ['a']);
    const term = members.get(leader)!.host.term;
    network.appendsLateTo.set(leader, 4 * 20);
    try {
      await members.get(leader)!.host.handOver();
      const successor = members.get(leader)!.host.leader;
      expect(successor).not.toBeNull();
      expect(successor).not.toBe(leader);
      expect(members.get(successor!)!.host.term).toBe(term + 1);
    } finally {
      network.appendsLateTo.clear();
    }
  });

  it('Given a leader that removes itself, then once the change is applied another member leads in the next term, and the removed one leads no more', async () => {
    for (const id of IDS) startMember(id);
    const leader = await proposeAll(IDS, ['a']);
    const term = members.get(leader)!.host.term;
    const rest = IDS.filter((id) => id !== leader);

    expect(await members.get(leader)!.host.changeVoters(rest)).toMatchObject({ applied: true });

    const successor = await leaderOf(rest);
    expect(members.get(successor)!.host.term).toBe(term + 1);
    await waitFor(async () => members.get(leader)!.host.role === 'follower', 20_000, 20);
    await proposeAll(rest, ['b']);
    const everywhere = async () =>
      rest.every((id) => members.get(id)!.machine.items.join() === ['a', 'b'].join());
    expect(await waitFor(everywhere, 20_000, 20)).toBe(true);
  });

  it('Given members that advertise no protocol version (an older build), when the leader removes itself, then it hands over to none of them and steps down as before, and they elect one', async () => {
    network.sentTypes.length = 0;
    for (const id of IDS) startMember(id, undefined, () => 1);
    const leader = await proposeAll(IDS, ['a']);
    const rest = IDS.filter((id) => id !== leader);

    expect(await members.get(leader)!.host.changeVoters(rest)).toMatchObject({ applied: true });

    expect(members.get(leader)!.host.role).toBe('follower');
    await leaderOf(rest);
    expect(network.sentTypes).not.toContain('timeout-now');
  });

  it('Given a member cut off from the others, when it comes back, then the writes it missed reach it (by snapshot once the log was compacted)', async () => {
    for (const id of IDS) startMember(id);
    const leader = await leaderOf(IDS);
    const isolated = IDS.find((id) => id !== leader)!;
    network.cutOff.add(isolated);
    const written = Array.from({ length: 50 }, (_, i) => `c${i}`);
    try {
      await proposeAll(
        IDS.filter((id) => id !== isolated),
        written,
      );
      expect(members.get(isolated)!.machine.items).toEqual([]);
    } finally {
      network.cutOff.delete(isolated);
    }

    await waitFor(async () => members.get(isolated)!.machine.items.length === written.length, 20_000, 20);
    expect(members.get(isolated)!.machine.items).toEqual(written);
    expect(members.get(isolated)!.machine.restored).toBeGreaterThan(0);
  });

  it('Given a member whose machine takes long to restore a snapshot, then meanwhile it applies and sends nothing and starts no election, and once restored it catches up with every write, those made meanwhile too', async () => {
    const slow = new SlowRestoreList();
    for (const id of IDS) startMember(id, undefined, undefined, id === 'n3' ? slow : undefined);
    let leader = await leaderOf(IDS);
    if (leader === 'n3') {
      await members.get('n3')!.host.handOver();
      leader = await leaderOf(IDS);
    }
    const others = IDS.filter((id) => id !== 'n3');
    network.cutOff.add('n3');
    const before = Array.from({ length: 40 }, (_, i) => `b${i}`);
    try {
      await proposeAll(others, before);
    } finally {
      network.cutOff.delete('n3');
    }
    await waitFor(async () => slow.waiting > 0, 20_000, 20);
    const n3 = members.get('n3')!.host;
    const [term, applied, sent] = [n3.term, n3.applied, network.sentBy.get('n3') ?? 0];

    const during = Array.from({ length: 5 }, (_, i) => `d${i}`);
    await proposeAll(others, during);
    // Several election timeouts (10 to 20 ticks of 20 ms) with the restore held.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(network.sentBy.get('n3') ?? 0).toBe(sent);
    expect([n3.term, n3.applied, n3.role]).toEqual([term, applied, 'follower']);
    expect(slow.items).toEqual([]);

    slow.release();
    await waitFor(async () => slow.items.length === before.length + during.length, 20_000, 20);
    expect(slow.items).toEqual([...before, ...during]);
    expect(await leaderOf(IDS)).toBe(leader);
    expect(n3.term).toBe(term);
  });

  it("Given a bound on an append message's bytes, when larger and many entries are proposed, then one over the bound is refused and the others reach a member that was cut off, in batches within it", async () => {
    for (const id of IDS) startMember(id, 1_000);
    const leader = await leaderOf(IDS);
    expect(await members.get(leader)!.host.propose('x'.repeat(2_000))).toMatchObject({
      applied: false,
      reason: expect.stringMatching(/too large: 2002 bytes, at most 1000/),
    });

    const isolated = IDS.find((id) => id !== leader)!;
    network.cutOff.add(isolated);
    const written = Array.from({ length: 12 }, (_, i) => `${i}:`.padEnd(300, '.'));
    try {
      await proposeAll(
        IDS.filter((id) => id !== isolated),
        written,
      );
    } finally {
      network.cutOff.delete(isolated);
    }
    await waitFor(async () => members.get(isolated)!.machine.items.length === written.length, 20_000, 20);
    expect(members.get(isolated)!.machine.items).toEqual(written);
  });
});
