import { describe, expect, it } from 'vitest';
import { transferTarget } from '../../../src/core/consensus/leadership-transfer.js';
import type { RaftMessage } from '../../../src/core/consensus/raft-messages.js';
import { HANDING_OVER, RaftNode, type RaftConfig } from '../../../src/core/consensus/raft-node.js';
import { deliverAll } from './message-delivery.js';

type Member = RaftNode<string, string[]>;
type Message = RaftMessage<string | null, string[]>;

function node(id: string, voters: string[], options: Partial<RaftConfig> = {}): Member {
  return new RaftNode<string, string[]>({
    id,
    voters,
    electionTicks: 10,
    heartbeatTicks: 2,
    random: () => 0,
    ...options,
  });
}

/** Delivers messages in order until none is left, except those `lost` says are lost (see deliverAll). */
function settle(members: Member[], lost = (_message: Message) => false): Message[] {
  return deliverAll(members, { lost, maxSteps: 2_000 });
}

/** `voters` started, the first elected, and the entries proposed committed everywhere. */
function led(voters: string[], options: Partial<RaftConfig> = {}): Member[] {
  const members = voters.map((id) => node(id, voters, options));
  for (let tick = 0; tick < 20 && members[0]!.currentRole !== 'leader'; tick++) {
    members[0]!.tick();
    settle(members);
  }
  return members;
}

const leaderOf = (members: Member[]) => members.find((member) => member.currentRole === 'leader');
const timeoutNows = (sent: Message[]) => sent.filter((message) => message.type === 'timeout-now');

describe('the voter a leader hands its leadership to', () => {
  it('is the one known to hold the most of the log, the first in order on a tie', () => {
    const matched: Record<string, number> = { b: 7, c: 9, d: 9 };

    expect(
      transferTarget(
        ['b', 'c', 'd'],
        (voter) => matched[voter]!,
        () => true,
      ),
    ).toBe('c');
  });

  it('is never one that cannot take it (an older build), and none when no voter can', () => {
    const matched: Record<string, number> = { b: 7, c: 9 };

    expect(
      transferTarget(
        ['b', 'c'],
        (voter) => matched[voter]!,
        (voter) => voter !== 'c',
      ),
    ).toBe('b');
    expect(
      transferTarget(
        ['b', 'c'],
        (voter) => matched[voter]!,
        () => false,
      ),
    ).toBeNull();
  });

  it('given a leader that removes itself, is a remaining voter that holds the whole log, not the first in order, behind', () => {
    const members = led(['a', 'b', 'c', 'd', 'e']);
    const [a] = members;
    a!.propose('x');
    a!.changeVoters(['b', 'c', 'd', 'e']);

    const sent = settle(members, (message) => message.to === 'b');

    expect(new Set(timeoutNows(sent).map((message) => message.to))).toEqual(new Set(['c']));
  });
});

describe('RaftNode handing its leadership over', () => {
  it('given a leader that removes itself, the voter it hands over to is elected at once, with no election timeout waited', () => {
    const [a, b, c] = led(['a', 'b', 'c']);
    a!.propose('x');
    a!.changeVoters(['b', 'c']);

    const sent = settle([a!, b!, c!]);

    // Told again at each answer until it stands (the first may be lost): all to the same voter.
    expect(new Set(timeoutNows(sent).map((message) => message.to)).size).toBe(1);
    expect(leaderOf([b!, c!])?.currentTerm).toBe(2);
    // The removed leader, which the new one does not send to, hears of its term at its next heartbeat.
    expect(a!.propose('y')).toMatchObject({ accepted: false, reason: HANDING_OVER });
    a!.tick();
    a!.tick();
    settle([a!, b!, c!]);
    expect([a!.currentRole, a!.currentTerm]).toEqual(['follower', 2]);
    // The new leader has everything the removed one committed.
    expect(leaderOf([b!, c!])!.entryAt(2)?.data).toBe('x');
  });

  it('given a target that is behind, sends it the rest of the log first, and only then tells it to stand', () => {
    const [a, b, c] = led(['a', 'b', 'c']);
    a!.propose('x');
    a!.propose('y');
    settle([a!, b!, c!], (message) => message.to === 'b');
    expect(a!.matchedIndexOf('b')).toBeLessThan(a!.lastIndex);

    const end = a!.lastIndex;
    expect(a!.transferLeadership('b')).toEqual({ started: true, target: 'b' });
    const sent = settle([a!, b!, c!]);

    const told = sent.findIndex((message) => message.type === 'timeout-now');
    const caughtUp = sent.findIndex(
      (message) => message.type === 'append-response' && message.from === 'b' && message.index === end,
    );
    expect(caughtUp).toBeGreaterThanOrEqual(0);
    expect(told).toBeGreaterThan(caughtUp);
    expect([b!.currentRole, b!.currentTerm, b!.entryAt(3)?.data]).toEqual(['leader', 2, 'y']);
    expect([a!.currentRole, a!.currentLeader]).toEqual(['follower', 'b']);
  });

  it('given a transfer under way, refuses proposals and changes of voters until it is over', () => {
    const [a, b, c] = led(['a', 'b', 'c']);
    a!.transferLeadership('b');

    expect(a!.propose('x')).toEqual({ accepted: false, leader: 'a', reason: HANDING_OVER });
    expect(a!.changeVoters(['a', 'b'])).toMatchObject({ accepted: false, reason: HANDING_OVER });
    expect(a!.transferLeadership('c')).toEqual({
      started: false,
      reason: 'already handing the leadership to b',
    });
    settle([a!, b!, c!]);
    expect(b!.propose('x').accepted).toBe(true);
  });

  it('given a target that never answers, gives up after an election timeout and takes proposals again', () => {
    const [a, b, c] = led(['a', 'b', 'c']);
    const cutB = (message: Message) => message.to === 'b' || message.from === 'b';
    a!.transferLeadership('b');

    for (let tick = 0; tick < 10; tick++) {
      a!.tick();
      settle([a!, b!, c!], cutB);
    }

    expect(a!.transferringTo).toBeNull();
    expect([a!.currentRole, a!.propose('x').accepted]).toEqual(['leader', true]);
  });

  it('given a leader that removes itself and a target that never answers, gives up after an election timeout and steps down', () => {
    const members = led(['a', 'b', 'c', 'd', 'e']);
    const [a] = members;
    a!.changeVoters(['b', 'c', 'd', 'e']);
    settle(members, (message) => message.type === 'timeout-now');
    const target = a!.transferringTo;
    expect([a!.currentRole, target]).toEqual(['leader', 'b']);

    for (let tick = 0; tick < 10; tick++) {
      a!.tick();
      settle(members, (message) => message.to === target || message.from === target);
    }

    expect([a!.currentRole, a!.currentTerm, a!.transferringTo]).toEqual(['follower', 1, null]);
  });

  it('given no remaining voter that can take it (older builds), steps down at once as before, telling no one to stand', () => {
    const [a, b, c] = led(['a', 'b', 'c'], { takesTransfer: () => false });
    a!.changeVoters(['b', 'c']);

    const sent = settle([a!, b!, c!]);

    expect(timeoutNows(sent)).toEqual([]);
    expect([a!.currentRole, b!.currentRole, c!.currentRole]).toEqual(['follower', 'follower', 'follower']);
    expect(a!.transferLeadership('b')).toEqual({ started: false, reason: 'not the leader' });
  });

  it('given remaining voters of which too few know the transfer flag (an older build, sticking to its leader), steps down at once rather than hand over to the one that does', () => {
    const [a, b, c] = led(['a', 'b', 'c'], { takesTransfer: (member) => member !== 'c' });
    a!.changeVoters(['b', 'c']);

    const sent = settle([a!, b!, c!]);

    expect(timeoutNows(sent)).toEqual([]);
    expect(a!.currentRole).toBe('follower');
  });

  it('given voters of which too few know the transfer flag, refuses to hand over', () => {
    const [a] = led(['a', 'b', 'c'], { takesTransfer: () => false });

    expect(a!.transferLeadership()).toEqual({
      started: false,
      reason: 'too few voters run a build that takes part in a hand-over',
    });
  });

  it('refuses to hand over to itself, to a node that is not a voter, or to one that cannot take it', () => {
    const [a] = led(['a', 'b', 'c'], { takesTransfer: (member) => member !== 'c' });

    expect(a!.transferLeadership('a')).toEqual({ started: false, reason: 'a is not another voter' });
    expect(a!.transferLeadership('z')).toEqual({ started: false, reason: 'z is not another voter' });
    expect(a!.transferLeadership('c')).toEqual({
      started: false,
      reason: 'c runs a build that cannot take the leadership',
    });
    expect(a!.transferringTo).toBeNull();
  });
});

describe('RaftNode told to stand (timeout-now)', () => {
  it('given a voter that still hears its leader, grants a vote asked with the transfer flag, which it ignores without it', () => {
    const [, b] = led(['a', 'b', 'c']);
    const vote = { type: 'vote', from: 'c', to: 'b', term: 2, lastLogIndex: 9, lastLogTerm: 1 } as const;

    b!.step(vote);
    expect(b!.takeReady().messages).toEqual([]);

    b!.step({ ...vote, transfer: true });
    expect(b!.takeReady().messages).toEqual([
      { type: 'vote-response', from: 'b', to: 'c', term: 2, granted: true },
    ]);
  });

  it('given a voter, stands at once at the next term, skipping pre-votes, and asks for votes with the flag', () => {
    const [, b] = led(['a', 'b', 'c']);

    b!.step({ type: 'timeout-now', from: 'a', to: 'b', term: 1 });

    expect([b!.currentRole, b!.currentTerm]).toEqual(['candidate', 2]);
    const asked = b!.takeReady().messages;
    expect(
      asked.map((message) => [message.type, message.to, 'transfer' in message && message.transfer]),
    ).toEqual([
      ['vote', 'a', true],
      ['vote', 'c', true],
    ]);
  });

  it('given a node that does not vote (a learner), ignores it', () => {
    const [a, b, c] = led(['a', 'b', 'c']);
    const d = node('d', []);
    a!.addLearner('d');
    settle([a!, b!, c!, d]);
    expect(d.currentLeader).toBe('a');

    d.step({ type: 'timeout-now', from: 'a', to: 'd', term: 1 });

    expect([d.currentRole, d.currentTerm, d.takeReady().messages]).toEqual(['follower', 1, []]);
  });

  it('given one of a stale term, ignores it', () => {
    const [a, b, c] = led(['a', 'b', 'c']);
    a!.transferLeadership('b');
    settle([a!, b!, c!]);
    expect([b!.currentRole, b!.currentTerm]).toEqual(['leader', 2]);

    c!.step({ type: 'timeout-now', from: 'a', to: 'c', term: 1 });

    expect([c!.currentRole, c!.currentTerm, c!.takeReady().messages]).toEqual(['follower', 2, []]);
  });
});
