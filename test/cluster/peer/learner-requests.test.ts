import { describe, expect, it } from 'vitest';
import { LearnerRequests, type LearnerView } from '../../../src/cluster/peer/learner-requests.js';
import type { PeerStreams } from '../../../src/cluster/peer/peer-streams.js';
import { PROTOCOL_VERSION } from '../../../src/core/peer/protocol-version.js';
import { systemClock } from '../../../src/daemon/clock.js';

/** The leader's Raft as learner requests see it. */
class Leader implements LearnerView {
  role: string | null = 'leader';
  leader: string | null = 'a:1';
  voters: string[] = ['a:1', 'b:1', 'c:1'];
  learners: string[] = [];
  addLearner(member: string): boolean {
    this.learners.push(member);
    return true;
  }
  removeLearner(member: string): void {
    this.learners = this.learners.filter((learner) => learner !== member);
  }
}

/** Streams that hand the test the handler of `learn` requests, and send nothing. */
function capturingStreams(): { streams: PeerStreams; deliver: (member: string) => void } {
  let handler: (body: Buffer) => void = () => undefined;
  const streams = {
    handle: (_kind: string, take: (body: Buffer) => void) => (handler = take),
    send: () => true,
  } as unknown as PeerStreams;
  const deliver = (member: string) => handler(Buffer.from(JSON.stringify({ member, forwarded: false })));
  return { streams, deliver };
}

describe('requests to be sent the log, on the leader', () => {
  it('Given a member of an older build, or one gossip has told no version of yet, then it is not sent the log; once it speaks this build’s version, it is', () => {
    const raft = new Leader();
    const versions = new Map<string, number>([['d:1', 2]]);
    const { streams, deliver } = capturingStreams();
    new LearnerRequests(streams, {
      self: 'a:1',
      raft,
      contacts: () => [],
      isAlive: () => true,
      protocolOf: (member) => versions.get(member),
      clock: systemClock,
    });

    deliver('d:1');
    deliver('e:1');
    expect(raft.learners).toEqual([]);

    versions.set('d:1', PROTOCOL_VERSION);
    deliver('d:1');
    expect(raft.learners).toEqual(['d:1']);
  });
});
