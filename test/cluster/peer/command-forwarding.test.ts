import { describe, expect, it } from 'vitest';
import { CommandForwarding } from '../../../src/cluster/peer/command-forwarding.js';
import type { PeerStreams } from '../../../src/cluster/peer/peer-streams.js';
import { commandOf, type CommandOp } from '../../../src/cluster/peer/store-commands.js';
import { FakeClock } from '../../support/fake-clock.js';

type Handler = (body: Buffer) => void;

/** A follower's forwarding whose streams keep what it sends, with a way to answer as the leader would. */
function followerForwarding() {
  const handlers = new Map<string, Handler>();
  const sent: { topic: string; body: { request: number } }[] = [];
  const streams = {
    maxBody: 1 << 20,
    handle: (topic: string, handler: Handler) => void handlers.set(topic, handler),
    send: (_to: unknown, topic: string, body: Uint8Array) => {
      sent.push({ topic, body: JSON.parse(Buffer.from(body).toString()) as { request: number } });
      return true;
    },
  } as unknown as PeerStreams;
  const clock = new FakeClock();
  const forwarding = new CommandForwarding(streams, {
    self: '127.0.0.1:7001',
    clock,
    raft: {
      role: 'follower',
      leader: '127.0.0.1:7000',
      offer: () => ({ accepted: false, leader: null, reason: 'not the leader' }),
      heardFrom: () => undefined,
    },
  });
  const answer = (reply: object) => handlers.get('forward-reply')!(Buffer.from(JSON.stringify(reply)));
  return { forwarding, clock, sent, answer };
}

const command = (op: CommandOp) =>
  commandOf('n1/boot/1', '127.0.0.1:7001', op, [op === 'recordFires' ? [] : {}]);

describe('Forwarding a write to the leader', () => {
  it('Given the leader’s answer, then the write counts as taken at the place the leader appended it', async () => {
    const { forwarding, sent, answer } = followerForwarding();

    const submitted = forwarding.submit(command('createJob'));
    answer({ request: sent[0]!.body.request, accepted: true, index: 41, term: 3 });

    expect(await submitted).toEqual({ accepted: true, at: { index: 41, term: 3 } });
  });

  it('Given no answer from the leader, then any write is offered again (a copy applied after the first is skipped by its id)', async () => {
    const { forwarding, clock } = followerForwarding();

    const fire = forwarding.submit(command('recordFires'));
    const create = forwarding.submit(command('createJob'));
    await clock.advance(2_000);

    const unanswered = { accepted: false, leader: '127.0.0.1:7000', reason: 'the leader did not answer' };
    expect(await fire).toEqual(unanswered);
    expect(await create).toEqual(unanswered);
  });
});
