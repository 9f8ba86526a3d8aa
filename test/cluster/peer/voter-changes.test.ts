import { describe, expect, it } from 'vitest';
import type { PeerStreams } from '../../../src/cluster/peer/peer-streams.js';
import type { ProposalOutcome } from '../../../src/cluster/peer/raft-host.js';
import { VoterChanges, type VoterHost } from '../../../src/cluster/peer/voter-changes.js';
import { PROTOCOL_VERSION } from '../../../src/core/peer/protocol-version.js';
import { systemClock } from '../../../src/daemon/clock.js';

/** A leader's Raft as voter changes see it: `held` is how much of the log the learner has. */
class LeaderHost implements VoterHost {
  role: string | null = 'leader';
  leader: string | null = 'a';
  voters: string[] = ['a', 'b', 'c'];
  changePending = false;
  committed = 5;
  applied = 5;
  learners: string[] = [];
  held = 0;
  proposed: string[][] = [];

  matchedIndexOf(member: string): number | undefined {
    return this.learners.includes(member) ? this.held : undefined;
  }
  addLearner(member: string): boolean {
    this.learners.push(member);
    return this.role === 'leader';
  }
  removeLearner(member: string): void {
    this.learners = this.learners.filter((learner) => learner !== member);
  }
  changeVoters(voters: readonly string[]): Promise<ProposalOutcome> {
    this.proposed.push([...voters]);
    this.voters = [...voters].sort();
    this.committed = this.applied = 6;
    return Promise.resolve({ applied: true, index: 6, term: 1 });
  }
}

/** The leader's part needs no network: a change asked on the leader is made there. */
const noStreams = { handle: () => undefined, send: () => true } as unknown as PeerStreams;

function changesOn(host: LeaderHost, alive: string[] = ['b', 'c', 'd']) {
  return new VoterChanges(noStreams, {
    self: 'a',
    raft: host,
    isAlive: (member) => alive.includes(member),
    clock: systemClock,
    catchUpWithinMs: 300,
  });
}

describe('voter changes on the leader', () => {
  it('given a new member alive in gossip, sends it the log as a learner, and proposes it as a voter once it holds what was committed', async () => {
    const host = new LeaderHost();
    const changes = changesOn(host);
    setTimeout(() => (host.held = 5), 150);

    const result = await changes.change({ action: 'add', member: 'd' });

    expect(host.learners).toEqual(['d']);
    expect(host.proposed).toEqual([['a', 'b', 'c', 'd']]);
    expect(result).toEqual({ voters: ['a', 'b', 'c', 'd'], leader: 'a', index: 6 });
  });

  it('given a new member of an older build, or one whose version gossip has not told yet, refuses it before sending it the log; one of this build is added', async () => {
    const host = new LeaderHost();
    const versions = new Map<string, number>([['d', 2]]);
    const changes = new VoterChanges(noStreams, {
      self: 'a',
      raft: host,
      isAlive: () => true,
      protocolOf: (member) => versions.get(member),
      clock: systemClock,
      catchUpWithinMs: 300,
    });

    for (const [member, version] of [
      ['d', 2],
      ['e', 1],
    ] as const)
      await expect(changes.change({ action: 'add', member })).rejects.toMatchObject({
        code: 'INVALID_STATE',
        message: `${member} speaks peer protocol ${version} as gossip reports it, older than the 3 a member of this cluster needs; nothing was changed.`,
        hint: expect.stringMatching(/Upgrade sched on that host/),
      });
    expect([host.learners, host.proposed]).toEqual([[], []]);

    versions.set('d', PROTOCOL_VERSION);
    host.held = 5;
    expect((await changes.change({ action: 'add', member: 'd' })).voters).toEqual(['a', 'b', 'c', 'd']);
  });

  it('given a change under way, refuses a second one, and a new member that does not catch up is not made a voter', async () => {
    const host = new LeaderHost();
    const changes = changesOn(host);

    const first = changes.change({ action: 'add', member: 'd' });
    await expect(changes.change({ action: 'remove', member: 'b' })).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringMatching(/Another change is under way \(adding d\)/),
    });
    await expect(first).rejects.toMatchObject({
      code: 'INVALID_STATE',
      message: expect.stringMatching(/d has not caught up with the log \(it holds 0 of 5 entries\)/),
    });
    expect([host.proposed, host.voters]).toEqual([[], ['a', 'b', 'c']]);
  });

  it('given a change that would leave too few live voters for a majority, or one not committed yet, refuses it and proposes nothing', async () => {
    const host = new LeaderHost();
    const changes = changesOn(host, ['b']);

    await expect(changes.change({ action: 'remove', member: 'b' })).rejects.toMatchObject({
      message: expect.stringMatching(/Removing b would leave 2 voters of which 1 are alive, short of the 2/),
    });
    host.changePending = true;
    await expect(changes.change({ action: 'remove', member: 'c' })).rejects.toMatchObject({
      message: expect.stringMatching(/An earlier change of voters is not committed yet/),
    });
    expect(host.proposed).toEqual([]);
  });

  it('given a leader that loses its place while the new member catches up, says the change was not made', async () => {
    const host = new LeaderHost();
    const changes = changesOn(host);
    setTimeout(() => (host.role = 'follower'), 100);

    await expect(changes.change({ action: 'add', member: 'd' })).rejects.toMatchObject({ code: 'NO_QUORUM' });
    expect(host.proposed).toEqual([]);
  });
});
