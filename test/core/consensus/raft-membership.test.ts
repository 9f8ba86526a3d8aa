import { describe, expect, it } from 'vitest';
import { forceVoters } from '../../../src/core/consensus/forced-voters.js';
import type { RaftMessage } from '../../../src/core/consensus/raft-messages.js';
import { RaftNode, type RaftDurableState } from '../../../src/core/consensus/raft-node.js';

type Member = RaftNode<string, string[]>;
type Message = RaftMessage<string | null, string[]>;
type Durable = RaftDurableState<string, string[]>;

/** `random` sets where in [10, 20) ticks its election timeout falls. */
function node(id: string, voters: string[], durable?: Durable, random = 0): Member {
  return new RaftNode<string, string[]>(
    { id, voters, electionTicks: 10, heartbeatTicks: 2, random: () => random },
    durable,
  );
}

/** What a member keeps on disk, as a host would persist its steps. */
class Disk {
  state: Durable = { hardState: { term: 0, votedFor: null }, entries: [], forced: null };
  persist(member: Member, messages: Message[]): void {
    const ready = member.takeReady();
    if (ready.hardState) this.state.hardState = ready.hardState;
    if (ready.logChanges) {
      const { from, entries } = ready.logChanges;
      this.state.entries = [...this.state.entries.filter((entry) => entry.index < from), ...entries];
    }
    if (ready.forcedSettled) this.state.forced = null;
    messages.push(...ready.messages);
  }
}

/** Members with their disks; messages are delivered in order until none is left (or `cut` ones are dropped). */
class Group {
  readonly disks = new Map<string, Disk>();
  readonly members = new Map<string, Member>();
  readonly cut = new Set<string>();
  private queue: Message[] = [];

  add(member: Member, disk = new Disk()): Member {
    this.members.set(member.id, member);
    this.disks.set(member.id, disk);
    return member;
  }

  get(id: string): Member {
    return this.members.get(id)!;
  }

  settle(): void {
    for (const [id, member] of this.members) this.disks.get(id)!.persist(member, this.queue);
    for (let step = 0; this.queue.length > 0 && step < 5_000; step++) {
      const message = this.queue.shift()!;
      const target = this.members.get(message.to);
      if (!target || this.cut.has(message.to) || this.cut.has(message.from)) continue;
      target.step(message);
      this.disks.get(target.id)!.persist(target, this.queue);
    }
  }

  tick(times: number, ids = [...this.members.keys()]): void {
    for (let count = 0; count < times; count++) {
      for (const id of ids) if (!this.cut.has(id)) this.get(id).tick();
      this.settle();
    }
  }

  leader(): Member | undefined {
    return [...this.members.values()].find(
      (member) => !this.cut.has(member.id) && member.currentRole === 'leader',
    );
  }
}

function threeVoters(): Group {
  const group = new Group();
  for (const id of ['a', 'b', 'c']) group.add(node(id, ['a', 'b', 'c']));
  group.tick(25, ['a']);
  return group;
}

/** Three voters led by a, and d, started to join, sent the log as a learner. */
function threeAndALearner(): { group: Group; a: Member } {
  const group = threeVoters();
  const a = group.get('a');
  group.add(node('d', []));
  a.addLearner('d');
  group.settle();
  return { group, a };
}

describe('RaftNode learners', () => {
  it('given no voters (a node started to join), never stands for election and sends nothing', () => {
    const joiner = node('d', []);

    for (let tick = 0; tick < 200; tick++) joiner.tick();

    expect([joiner.currentRole, joiner.currentTerm, joiner.takeReady().messages]).toEqual([
      'follower',
      0,
      [],
    ]);
  });

  it('given a learner, the leader sends it the whole log but commits without it, and it takes the voters from the log', () => {
    const group = threeVoters();
    const a = group.get('a');
    a.propose('x');
    const d = group.add(node('d', []));
    group.cut.add('d');
    a.propose('y');
    group.settle();
    expect(a.committedIndex).toBe(3);

    group.cut.delete('d');
    expect(a.addLearner('d')).toBe(true);
    group.tick(2, ['a']);

    expect([d.entryAt(2)?.data, d.entryAt(3)?.data]).toEqual(['x', 'y']);
    expect(d.currentVoters).toEqual(['a', 'b', 'c']);
    expect(a.matchedIndexOf('d')).toBe(3);
    expect([a.currentVoters, a.currentLearners]).toEqual([['a', 'b', 'c'], ['d']]);
  });

  it('given a learner made a voter, its vote counts and the others see four voters', () => {
    const { group, a } = threeAndALearner();

    expect(a.changeVoters(['a', 'b', 'c', 'd']).accepted).toBe(true);
    group.tick(2, ['a']);
    group.cut.add('b');
    group.cut.add('c');
    a.propose('only a and d');
    group.settle();

    // Two of four is no majority: the entry waits for a third voter.
    expect(a.committedIndex).toBe(2);
    expect(group.get('d').currentVoters).toEqual(['a', 'b', 'c', 'd']);
    expect(a.currentLearners).toEqual([]);
    group.cut.delete('b');
    group.tick(2, ['a']);
    expect(a.committedIndex).toBe(3);
  });

  it('given a voter removed, it gets the entry that removes it, stops standing for election, and follows as a learner', () => {
    const group = threeVoters();
    const a = group.get('a');
    const c = group.get('c');

    expect(a.changeVoters(['a', 'b']).accepted).toBe(true);
    group.settle();
    a.propose('after');
    group.tick(2, ['a']);

    expect(c.currentVoters).toEqual(['a', 'b']);
    expect(a.currentLearners).toEqual(['c']);
    expect(c.entryAt(3)?.data).toBe('after');
    group.cut.add('a');
    group.tick(60, ['c']);
    expect([c.currentRole, c.currentLeader]).toEqual(['follower', null]);
  });

  it('given a change that is not committed, refuses the next one and says so', () => {
    const group = threeVoters();
    const a = group.get('a');
    group.cut.add('b');
    group.cut.add('c');
    expect(a.changeVoters(['a', 'b', 'c', 'd']).accepted).toBe(true);
    expect(a.changePending).toBe(true);

    expect(a.changeVoters(['a', 'b', 'c', 'd', 'e'])).toMatchObject({
      accepted: false,
      reason: 'an earlier change is not committed yet',
    });
  });

  it('given a leader that has not committed an entry of its own term, refuses a change until it has', () => {
    const leader = node('a', ['a', 'b', 'c'], {
      hardState: { term: 1, votedFor: 'a' },
      snapshot: { index: 1, term: 1, voters: ['a', 'b', 'c'], state: [] },
      entries: [],
    });
    leader.tick();
    for (let tick = 0; tick < 25 && leader.currentRole !== 'candidate'; tick++) {
      leader.tick();
      for (const message of leader.takeReady().messages)
        if (message.type === 'pre-vote')
          leader.step({ type: 'pre-vote-response', from: message.to, to: 'a', term: 2, granted: true });
    }
    leader.step({ type: 'vote-response', from: 'b', to: 'a', term: 2, granted: true });
    expect(leader.currentRole).toBe('leader');

    expect(leader.changeVoters(['a', 'b', 'c', 'd'])).toMatchObject({
      accepted: false,
      reason: 'no entry of this leader’s term is committed yet',
    });
    leader.step({ type: 'append-response', from: 'b', to: 'a', term: 2, success: true, index: 2 });
    expect(leader.changeVoters(['a', 'b', 'c', 'd']).accepted).toBe(true);
  });
});

describe('RaftNode configuration in the log', () => {
  it('given a new group, its first leader writes the voters into the log, so a restart with other voters keeps them', () => {
    const group = threeVoters();
    const a = group.get('a');

    expect(a.entryAt(1)).toMatchObject({ data: null, voters: ['a', 'b', 'c'] });
    const restarted = node('b', ['b', 'x', 'y', 'z'], group.disks.get('b')!.state);
    expect(restarted.currentVoters).toEqual(['a', 'b', 'c']);
  });

  it('given a voter restarted after a change, takes the voters from its log, not from what it is started with', () => {
    const { group, a } = threeAndALearner();
    a.changeVoters(['a', 'b', 'c', 'd']);
    group.tick(2, ['a']);

    const restartedJoiner = node('d', [], group.disks.get('d')!.state);
    const restartedVoter = node('c', ['a', 'b', 'c'], group.disks.get('c')!.state);

    expect(restartedJoiner.currentVoters).toEqual(['a', 'b', 'c', 'd']);
    expect(restartedVoter.currentVoters).toEqual(['a', 'b', 'c', 'd']);
  });
});

describe('forced recovery', () => {
  /** Five voters elect a, commit an entry, and then c, d and e are lost for good. */
  function lostMajority(): Group {
    const group = new Group();
    for (const id of ['a', 'b', 'c', 'd', 'e']) group.add(node(id, ['a', 'b', 'c', 'd', 'e']));
    group.tick(25, ['a']);
    group.get('a').propose('before');
    group.tick(2, ['a']);
    for (const id of ['c', 'd', 'e']) group.cut.add(id);
    return group;
  }

  it('given survivors without a majority, they elect no one and commit nothing', () => {
    const group = lostMajority();
    group.get('a').propose('lost');
    group.tick(100);

    expect(group.leader()).toBeUndefined();
    expect(group.get('b').committedIndex).toBe(2);
  });

  it('moves a survivor past every term it saw, with no vote given, and forces the voters sorted', () => {
    const forced = forceVoters(
      {
        hardState: { term: 4, votedFor: 'x' },
        snapshot: null,
        entries: [{ index: 1, term: 6, data: null }],
      },
      ['b', 'a', 'b'],
    );

    expect(forced).toEqual({
      hardState: { term: 7, votedFor: null },
      forced: { voters: ['a', 'b'], term: 7 },
    });
    expect(() => forceVoters({ hardState: { term: 1, votedFor: null }, entries: [] }, [])).toThrow(
      /at least one voter/,
    );
  });

  it('given the survivors restarted with forced voters, they elect a leader, which writes them into the log, and commit again', () => {
    const old = lostMajority();
    const recovered = new Group();
    for (const id of ['a', 'b']) {
      const disk = old.disks.get(id)!;
      const { hardState, forced } = forceVoters(disk.state, ['a', 'b']);
      disk.state = { ...disk.state, hardState, forced };
      recovered.add(node(id, ['a', 'b', 'c', 'd', 'e'], disk.state), disk);
    }
    expect(recovered.get('a').currentVoters).toEqual(['a', 'b']);

    recovered.tick(40, ['b']);
    const leader = recovered.leader()!;
    leader.propose('after');
    recovered.tick(2);

    expect(leader.entryAt(leader.lastIndex - 1)).toMatchObject({ voters: ['a', 'b'] });
    expect(leader.committedIndex).toBe(leader.lastIndex);
    expect(leader.forcedVoters).toBeNull();
    for (const id of ['a', 'b']) expect(recovered.disks.get(id)!.state.forced).toBeNull();
    // Restarted from disk, each takes the voters from its log.
    const restarted = node('b', ['a', 'b', 'c', 'd', 'e'], recovered.disks.get('b')!.state);
    expect(restarted.currentVoters).toEqual(['a', 'b']);
  });

  it('given three survivors with forced voters, two of them cannot elect the first leader: it needs all three', () => {
    const group = new Group();
    const ids = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    for (const id of ids) group.add(node(id, ids));
    group.tick(25, ['a']);
    for (const id of ['d', 'e', 'f', 'g']) group.cut.add(id);
    const recovered = new Group();
    for (const id of ['a', 'b', 'c']) {
      const disk = group.disks.get(id)!;
      const { hardState, forced } = forceVoters(disk.state, ['a', 'b', 'c']);
      disk.state = { ...disk.state, hardState, forced };
      recovered.add(node(id, ids, disk.state, id === 'c' ? 0.9 : 0), disk);
    }
    recovered.cut.add('c');

    recovered.tick(100, ['a']);
    expect(recovered.leader()).toBeUndefined();

    recovered.cut.delete('c');
    recovered.tick(60, ['a']);
    expect(recovered.leader()?.id).toBe('a');
    recovered.tick(4, ['a']);
    // Once the leader's configuration is committed, two of the three make a majority as usual.
    recovered.cut.add('a');
    recovered.tick(100, ['b', 'c']);
    expect(recovered.leader()?.id).toBe('b');
  });
});
