import { describe, expect, it } from 'vitest';
import type { RaftMessage } from '../../../src/core/consensus/raft-messages.js';
import { RaftNode } from '../../../src/core/consensus/raft-node.js';
import { deliverAll } from './message-delivery.js';

type Member = RaftNode<string, string[]>;
type Message = RaftMessage<string | null, string[]>;

function node(id: string, voters: string[], random = () => 0): Member {
  return new RaftNode<string, string[]>({ id, voters, electionTicks: 10, heartbeatTicks: 2, random });
}

/** Delivers messages until none is left, in order, except those `lost` says are lost (see deliverAll). */
function settle(nodes: Member[], first: Message[] = [], lost = (_message: Message) => false): Message[] {
  return deliverAll(nodes, { first, lost });
}

function tickUntilCandidate(member: Member): void {
  for (let tick = 0; tick < 20 && member.currentRole === 'follower'; tick++) member.tick();
}

describe('RaftNode', () => {
  it('given a single voter, elects itself at its first timeout and commits what it is given', () => {
    const solo = node('a', ['a']);
    tickUntilCandidate(solo);
    expect(solo.currentRole).toBe('leader');

    const proposal = solo.propose('x');
    const ready = solo.takeReady();

    expect(proposal).toEqual({ accepted: true, index: 2, term: 1 });
    expect(ready.committed.map((entry) => entry.data)).toEqual([null, 'x']);
    expect(ready.hardState).toEqual({ term: 1, votedFor: 'a' });
  });

  it('given three voters, the first to time out leads, and an entry commits once a majority has it', () => {
    const [a, b, c] = ['a', 'b', 'c'].map((id) => node(id, ['a', 'b', 'c']));
    tickUntilCandidate(a!);
    settle([a!, b!, c!]);
    expect([a!.currentRole, b!.currentLeader, c!.currentLeader]).toEqual(['leader', 'a', 'a']);

    a!.propose('x');
    settle([a!, b!, c!]);
    // Followers learn the commit with the next append.
    for (let tick = 0; tick < 2; tick++) a!.tick();
    settle([a!, b!, c!]);

    expect([a!, b!, c!].map((member) => member.committedIndex)).toEqual([2, 2, 2]);
  });

  it('given three voters, a follower learns an entry is committed as soon as the leader does, without waiting for a heartbeat', () => {
    const [a, b, c] = ['a', 'b', 'c'].map((id) => node(id, ['a', 'b', 'c']));
    tickUntilCandidate(a!);
    settle([a!, b!, c!]);

    a!.propose('x');
    const sent = settle([a!, b!, c!]);

    expect([a!, b!, c!].map((member) => member.committedIndex)).toEqual([2, 2, 2]);
    // Told once each: the answer to a commit-only append does not call for another.
    const commitOnly = sent.filter(
      (message) => message.type === 'append' && message.entries.length === 0 && message.leaderCommit === 2,
    );
    expect(commitOnly.map((message) => message.to).sort()).toEqual(['b', 'c']);
  });

  it('given a proposal to a follower, refuses it and names the leader', () => {
    const [a, b] = ['a', 'b'].map((id) => node(id, ['a', 'b', 'c']));
    tickUntilCandidate(a!);
    settle([a!, b!]);

    expect(b!.propose('x')).toEqual({ accepted: false, leader: 'a' });
  });

  it('given a candidate whose log is behind, a voter refuses it its vote', () => {
    const voter = new RaftNode<string>(
      { id: 'b', voters: ['a', 'b', 'c'], electionTicks: 10, heartbeatTicks: 2, random: () => 0 },
      { hardState: { term: 2, votedFor: null }, entries: [{ index: 1, term: 2, data: 'x' }] },
    );
    voter.step({ type: 'vote', from: 'a', to: 'b', term: 3, lastLogIndex: 5, lastLogTerm: 1 });

    expect(voter.takeReady().messages).toEqual([
      { type: 'vote-response', from: 'b', to: 'a', term: 3, granted: false },
    ]);
  });

  it('given it voted in a term, it does not vote for another candidate in that term, even after a restart', () => {
    const first = node('b', ['a', 'b', 'c']);
    first.step({ type: 'vote', from: 'a', to: 'b', term: 1, lastLogIndex: 0, lastLogTerm: 0 });
    const { hardState } = first.takeReady();
    const restarted = new RaftNode<string>(
      { id: 'b', voters: ['a', 'b', 'c'], electionTicks: 10, heartbeatTicks: 2, random: () => 0 },
      { hardState: hardState!, entries: [] },
    );
    restarted.step({ type: 'vote', from: 'c', to: 'b', term: 1, lastLogIndex: 0, lastLogTerm: 0 });

    expect(restarted.takeReady().messages[0]).toMatchObject({ to: 'c', granted: false });
  });

  it('given an append whose previous entry does not match, rejects it and keeps its log', () => {
    const follower = new RaftNode<string>(
      { id: 'b', voters: ['a', 'b', 'c'], electionTicks: 10, heartbeatTicks: 2, random: () => 0 },
      { hardState: { term: 1, votedFor: 'a' }, entries: [{ index: 1, term: 1, data: 'x' }] },
    );
    follower.step({
      type: 'append',
      from: 'a',
      to: 'b',
      term: 2,
      prevLogIndex: 1,
      prevLogTerm: 2,
      entries: [{ index: 2, term: 2, data: 'y' }],
      leaderCommit: 2,
    });
    const ready = follower.takeReady();

    expect(ready.messages).toEqual([
      { type: 'append-response', from: 'b', to: 'a', term: 2, success: false, index: 0 },
    ]);
    expect(ready.logChanges).toBeNull();
    expect(follower.committedIndex).toBe(0);
  });

  it('given a stale append that repeats part of its log, keeps the entries after it', () => {
    const follower = node('b', ['a', 'b', 'c']);
    const entries = [1, 2, 3].map((index) => ({ index, term: 1, data: `e${index}` }));
    const append = (upTo: number): Message => ({
      type: 'append',
      from: 'a',
      to: 'b',
      term: 1,
      prevLogIndex: 0,
      prevLogTerm: 0,
      entries: entries.slice(0, upTo),
      leaderCommit: 0,
    });
    follower.step(append(3));
    follower.step(append(1));

    expect(follower.lastIndex).toBe(3);
  });

  it('given a message from a higher term, a leader steps down and adopts the term', () => {
    const [a, b, c] = ['a', 'b', 'c'].map((id) => node(id, ['a', 'b', 'c']));
    tickUntilCandidate(a!);
    settle([a!, b!, c!]);

    a!.step({ type: 'append-response', from: 'c', to: 'a', term: 7, success: false, index: 0 });

    expect([a!.currentRole, a!.currentTerm]).toEqual(['follower', 7]);
    expect(a!.takeReady().hardState).toEqual({ term: 7, votedFor: null });
  });
});

describe('RaftNode pre-vote and check-quorum', () => {
  function electA(): Member[] {
    const members = ['a', 'b', 'c'].map((id) => node(id, ['a', 'b', 'c']));
    tickUntilCandidate(members[0]!);
    settle(members);
    return members;
  }

  it('given a follower that hears its leader, refuses a pre-vote for a higher term and keeps its own term', () => {
    const [, b] = electA();

    b!.step({ type: 'pre-vote', from: 'c', to: 'b', term: 2, lastLogIndex: 9, lastLogTerm: 1 });

    expect(b!.takeReady().messages).toEqual([
      { type: 'pre-vote-response', from: 'b', to: 'c', term: 1, granted: false },
    ]);
    expect(b!.currentTerm).toBe(1);
  });

  it('given a node cut off from the others for many timeouts, it comes back at the term it left, and the leader leads on', () => {
    const [a, b, c] = electA();
    for (let tick = 0; tick < 200; tick++) {
      c!.tick();
      c!.takeReady(); // its pre-votes are lost
    }
    expect([c!.currentRole, c!.currentTerm]).toEqual(['pre-candidate', 1]);

    a!.tick();
    a!.tick();
    settle([a!, b!, c!]);

    expect([a!.currentRole, a!.currentTerm, c!.currentLeader]).toEqual(['leader', 1, 'a']);
  });

  it('given a follower that hears its leader, ignores a vote request of a higher term', () => {
    const [, b] = electA();

    b!.step({ type: 'vote', from: 'c', to: 'b', term: 5, lastLogIndex: 9, lastLogTerm: 1 });

    expect(b!.takeReady().messages).toEqual([]);
    expect([b!.currentTerm, b!.currentLeader]).toEqual([1, 'a']);
  });

  it('given a leader that hears from no other voter for an election timeout, steps down', () => {
    const [a] = electA();
    for (let tick = 0; tick < 25 && a!.currentRole === 'leader'; tick++) {
      a!.tick();
      a!.takeReady(); // nobody answers
    }

    expect([a!.currentRole, a!.currentLeader]).toEqual(['follower', null]);
  });

  it('given a leader whose follower’s answers arrive two check-quorum rounds late, steps down at the next check: a late answer shows nothing of now', () => {
    const [a, b, c] = electA();
    /** Ticks the leader; `live` members get its messages at once and it gets their answers. */
    const tick = (times: number, live: Member[]): Message[] => {
      const held: Message[] = [];
      for (let count = 0; count < times; count++) {
        a!.tick();
        for (const message of a!.takeReady().messages) {
          const to = live.find((member) => member.id === message.to);
          if (to === undefined) {
            held.push(message);
            continue;
          }
          to.step(message);
          for (const answer of to.takeReady().messages) a!.step(answer);
          a!.takeReady();
        }
      }
      return held;
    };
    // Round 1: b answers, but its answers are held up in the network; c answers at once.
    const toB = tick(9, [c!]).filter((message) => message.to === 'b');
    for (const message of toB) b!.step(message);
    const late = b!.takeReady().messages;
    tick(1, [c!]);
    // Round 2: c still answers, and the check passes (the check's own tick opens round 3, which nobody answers).
    tick(9, [c!]);
    tick(1, []);
    expect(a!.currentRole).toBe('leader');

    // Round 3: b's answers to round 1 arrive; nobody else answers.
    for (const message of late) a!.step(message);
    a!.takeReady();
    tick(10, []);

    expect(late.filter((message) => message.type === 'append-response').length).toBeGreaterThan(0);
    expect(a!.currentRole).toBe('follower');
  });

  it('given a leader whose follower’s answers each take a whole round to arrive, stays leader: a round trip may straddle a round’s edge', () => {
    const [a, b] = electA();
    const inFlight: Message[][] = [];
    for (let count = 0; count < 50; count++) {
      a!.tick();
      for (const message of a!.takeReady().messages.filter((each) => each.to === 'b')) b!.step(message);
      inFlight.push(b!.takeReady().messages);
      if (inFlight.length > 10) for (const answer of inFlight.shift()!) a!.step(answer);
      a!.takeReady();
    }

    expect(a!.currentRole).toBe('leader');
  });
});

describe('RaftNode snapshots', () => {
  /** A leader of a, b and c that committed x, y and z with c alone, then compacted its log up to y. */
  function compactedLeader(): [Member, Member] {
    const [leader, c] = ['a', 'c'].map((id) => node(id, ['a', 'b', 'c'])) as [Member, Member];
    tickUntilCandidate(leader);
    settle([leader, c]);
    for (const data of ['x', 'y', 'z']) leader.propose(data);
    settle([leader, c]);
    leader.compact(3, ['x', 'y']);
    return [leader, c];
  }

  it('given a leader that compacted its log, a follower with nothing gets the snapshot and then the entries after it', () => {
    const [leader] = compactedLeader();
    leader!.propose('w');

    const b = node('b', ['a', 'b', 'c']);
    leader!.tick();
    leader!.tick();
    const sent = settle([leader!, b]);

    expect(leader!.committedIndex).toBe(5);
    expect(sent.some((message) => message.type === 'snapshot' && message.to === 'b')).toBe(true);
    expect([b.snapshotIndex, b.lastIndex, b.entryAt(5)?.data]).toEqual([3, 5, 'w']);
  });

  it('given a follower that needs a snapshot, sends it once, only heartbeats while it is out, and again when unanswered for five election timeouts', () => {
    const [leader, c] = compactedLeader();
    leader!.takeReady();

    // b answers nothing: its snapshot is lost on the way, and so is everything after; c answers.
    let sent = 0;
    const heartbeat = () => {
      leader!.tick();
      leader!.tick();
      const ready = leader!.takeReady().messages;
      sent += ready.filter((message) => message.to === 'b' && message.type === 'snapshot').length;
      settle([leader!, c!], ready);
    };
    for (let count = 0; count < 25; count++) heartbeat();
    // Sent at the first heartbeat, then again only once 5 election timeouts (25 heartbeats) went by.
    expect(sent).toBe(1);
    heartbeat();
    expect(leader!.currentRole).toBe('leader');
    expect(sent).toBe(2);
  });

  it('given a compaction past what is applied, refuses it', () => {
    const solo = node('a', ['a']);
    tickUntilCandidate(solo);
    solo.propose('x');

    expect(() => solo.compact(2, ['x'])).toThrow(/only 0 is applied/);
  });
});

describe('RaftNode membership changes', () => {
  function electA(voters = ['a', 'b', 'c']): Member[] {
    const members = voters.map((id) => node(id, voters));
    tickUntilCandidate(members[0]!);
    settle(members);
    return members;
  }

  it('given a change of two voters at once, refuses it', () => {
    const [a] = electA();

    expect(a!.changeVoters(['a', 'b', 'c', 'd', 'e'])).toMatchObject({
      accepted: false,
      reason: 'add or remove exactly one voter at a time',
    });
  });

  it('given a change not yet committed, refuses the next one', () => {
    const [a] = electA();
    expect(a!.changeVoters(['a', 'b', 'c', 'd']).accepted).toBe(true);

    expect(a!.changeVoters(['a', 'b', 'c', 'd', 'e'])).toMatchObject({
      accepted: false,
      reason: 'an earlier change is not committed yet',
    });
  });

  it('given a node added as a voter, it receives the log and its vote counts from then on', () => {
    const [a, b, c] = electA();
    const d = node('d', ['a', 'b', 'c']);
    a!.propose('x');
    a!.changeVoters(['a', 'b', 'c', 'd']);
    settle([a!, b!, c!, d]);
    a!.tick();
    a!.tick();
    settle([a!, b!, c!, d]);

    expect(d.currentVoters).toEqual(['a', 'b', 'c', 'd']);
    expect(d.entryAt(2)?.data).toBe('x');
    expect(a!.committedIndex).toBe(3);
  });

  it('given a leader that removes itself, it leads until the change is committed, hands over, then steps down', () => {
    const [a, b, c] = electA();
    a!.changeVoters(['b', 'c']);
    expect(a!.currentRole).toBe('leader');

    settle([a!, b!, c!], [], (message) => message.type === 'timeout-now');

    expect(b!.currentVoters).toEqual(['b', 'c']);
    // It told them the change is committed before it left: they need no new leader to know it.
    expect([b!.committedIndex, c!.committedIndex]).toEqual([a!.committedIndex, a!.committedIndex]);
    // It hands its leadership to one of them (see leadership-transfer.test.ts), and steps down once elected.
    expect(a!.transferringTo).not.toBeNull();
    for (let tick = 0; tick < 4; tick++) {
      a!.tick();
      settle([a!, b!, c!]);
    }
    expect([a!.currentRole, b!.currentRole === 'leader' || c!.currentRole === 'leader']).toEqual([
      'follower',
      true,
    ]);
    // The removed node never stands for election.
    a!.takeReady();
    for (let tick = 0; tick < 60; tick++) a!.tick();
    expect([a!.currentRole, a!.takeReady().messages]).toEqual(['follower', []]);
  });

  it('given a byte bound per message, a leader sends batches within it (one entry at least) and the follower still gets every entry', () => {
    const bytes = (entry: { data: unknown }) => JSON.stringify(entry.data).length;
    const bounded = (id: string) =>
      new RaftNode<string, string[]>({
        id,
        voters: ['a', 'b'],
        electionTicks: 10,
        heartbeatTicks: 2,
        random: () => 0,
        maxBytesPerMessage: 100,
        entryBytes: bytes,
      });
    const [a, b] = [bounded('a'), bounded('b')];
    tickUntilCandidate(a);
    settle([a, b]);
    const items = Array.from({ length: 12 }, (_, i) => `${i}`.padEnd(40, '-'));
    items.push('x'.repeat(150));

    for (const item of items) a.propose(item);
    const sent = settle([a, b]);
    for (let tick = 0; tick < 2; tick++) a.tick();
    settle([a, b]);

    const appends = sent.filter((message) => message.type === 'append' && message.entries.length > 0);
    for (const message of appends) {
      if (message.type !== 'append') continue;
      const total = message.entries.reduce((sum, entry) => sum + bytes(entry), 0);
      expect(message.entries.length === 1 || total <= 100).toBe(true);
    }
    expect(appends.some((message) => message.type === 'append' && message.entries.length === 2)).toBe(true);
    expect(b.committedIndex).toBe(a.lastIndex);
    const got = Array.from({ length: b.lastIndex }, (_, i) => b.entryAt(i + 1)?.data).filter((data) => data);
    expect(got).toEqual(items);
  });
});

describe('RaftNode flow control', () => {
  function leaderOfThree(): { a: Member; b: Member; c: Member } {
    const [a, b, c] = ['a', 'b', 'c'].map((id) => node(id, ['a', 'b', 'c']));
    tickUntilCandidate(a!);
    settle([a!, b!, c!]);
    return { a: a!, b: b!, c: c! };
  }

  const appendsTo = (messages: Message[], to: string) =>
    messages.filter(
      (message): message is Extract<Message, { type: 'append' }> =>
        message.type === 'append' && message.to === to,
    );

  it('given a follower that has not answered yet, sends each new entry to it once, not everything unacknowledged again', () => {
    const { a } = leaderOfThree();
    const sent: Message[] = [];
    for (let count = 0; count < 5; count++) {
      a.propose(`x${count}`);
      sent.push(...a.takeReady().messages);
    }
    const toB = appendsTo(sent, 'b');
    expect(toB.map((message) => message.entries.map((entry) => entry.data))).toEqual([
      ['x0'],
      ['x1'],
      ['x2'],
      ['x3'],
      ['x4'],
    ]);
  });

  it('given a follower that answers nothing, keeps at most a window of appends in flight, then only heartbeats', () => {
    const { a } = leaderOfThree();
    const sent: Message[] = [];
    for (let count = 0; count < 20; count++) {
      a.propose(`x${count}`);
      sent.push(...a.takeReady().messages);
    }
    expect(appendsTo(sent, 'b').filter((message) => message.entries.length > 0)).toHaveLength(8);
  });

  it('given appends lost on the way, a follower that rejects the next one gets what it lacks, from where it says', () => {
    const { a, b, c } = leaderOfThree();
    a.propose('lost-1');
    a.propose('lost-2');
    a.takeReady();
    a.propose('x');
    const all = settle([a, b, c]);
    // The rejection leads to one resend from b's end, not one per rejected append.
    const resends = appendsTo(all, 'b').filter((message) =>
      message.entries.some((entry) => entry.data === 'lost-1'),
    );
    expect(resends).toHaveLength(1);
    expect(b.committedIndex).toBe(a.committedIndex);
    expect(a.committedIndex).toBe(4);
  });

  it('given entries proposed in one step, sends them to each follower in one append', () => {
    const { a } = leaderOfThree();
    for (let count = 0; count < 5; count++) a.propose(`x${count}`);

    const toB = appendsTo(a.takeReady().messages, 'b');
    expect(toB.map((message) => message.entries.map((entry) => entry.data))).toEqual([
      ['x0', 'x1', 'x2', 'x3', 'x4'],
    ]);
  });

  it('given a follower whose answer is still on its way when another makes an entry committed, tells it the commit at once, without waiting for a heartbeat', () => {
    const { a, b, c } = leaderOfThree();
    a.propose('x');
    for (const message of a.takeReady().messages) (message.to === 'b' ? b : c).step(message);
    b.takeReady(); // b's answer is late
    for (const answer of c.takeReady().messages) a.step(answer);
    expect(a.committedIndex).toBe(2);

    const toB = appendsTo(a.takeReady().messages, 'b');
    for (const message of toB) b.step(message);

    expect(toB.map((message) => message.leaderCommit)).toEqual([2]);
    expect(b.committedIndex).toBe(2);
  });

  it('given a follower whose answers are all lost, it still commits as far as the appends it gets show, past its own commit index', () => {
    const [a, b, c] = ['a', 'b', 'c'].map((id) => node(id, ['a', 'b', 'c']));
    const answersOfB = (message: Message) => message.from === 'b' && message.type === 'append-response';
    tickUntilCandidate(a!);
    settle([a!, b!, c!], [], answersOfB);
    // The leader never hears b, so it goes on probing b from where the term started, a heartbeat at a time.
    for (let round = 0; round < 3; round++) {
      a!.propose(`x${round}`);
      settle([a!, b!, c!], [], answersOfB);
      for (let tick = 0; tick < 2; tick++) a!.tick();
      settle([a!, b!, c!], [], answersOfB);
    }

    expect(a!.committedIndex).toBe(4);
    expect(b!.committedIndex).toBe(a!.committedIndex);
  });

  it('given a probe that is never answered, sends it again at the next heartbeat', () => {
    const { a, b, c } = leaderOfThree();
    a.propose('lost');
    a.takeReady();
    a.propose('x');
    const rejected = settle(
      [a, b],
      a.takeReady().messages.filter((message) => message.to === 'b'),
    );
    expect(rejected.some((message) => message.type === 'append-response' && !message.success)).toBe(true);
    // The probe that answered the rejection is lost too; nothing more goes out until a heartbeat.
    a.takeReady();
    for (let tick = 0; tick < 2; tick++) a.tick();
    settle([a, b, c]);
    expect(b.committedIndex).toBe(a.committedIndex);
  });
});
