import { describe, expect, it } from 'vitest';
import type { SwimMessage } from '../../../src/core/membership/swim-messages.js';
import type { SwimNode } from '../../../src/core/membership/swim-node.js';
import { swimNode, ticks } from './swim-test-kit.js';

/** Ticks `node` with every member it pings answering at once. */
function answeredTicks(node: SwimNode, count: number): void {
  for (let tick = 0; tick < count; tick++) {
    node.tick();
    for (const message of node.takeMessages())
      if (message.type === 'ping')
        node.step({ type: 'ack', from: message.to, to: node.id, seq: message.seq, updates: [] });
  }
}

const seqOf = (message: SwimMessage | undefined) => (message && 'seq' in message ? message.seq : -1);

/** Runs `a` through one failed probe, its helpers silent: returns the probe's target. */
function failedProbe(a: SwimNode, helpersNack: boolean): string {
  ticks(a, 10);
  const target = a.takeMessages()[0]!.to;
  ticks(a, 5);
  const asked = a.takeMessages();
  expect(asked.map((message) => message.type)).toEqual(['ping-req', 'ping-req']);
  if (helpersNack)
    for (const request of asked)
      a.step({ type: 'nack', from: request.to, to: 'a', seq: seqOf(request), updates: [] });
  ticks(a, 5);
  return target;
}

describe('SwimNode with Lifeguard: local health (LHA-Probe)', () => {
  it('given a failed probe whose helpers sent no nack, raises its local health by one a helper and stretches its next probe period as much', () => {
    const a = swimNode('a');
    const target = failedProbe(a, false);
    expect(a.stateOf(target)).toBe('suspect');
    expect(a.localHealth).toBe(2);

    a.takeMessages();
    ticks(a, 29);
    expect(a.takeMessages().filter((message) => message.type === 'ping')).toEqual([]);
    ticks(a, 1);
    expect(a.takeMessages().filter((message) => message.type === 'ping')).toHaveLength(1);
  });

  it('given a failed probe whose helpers nacked, suspects the target and holds itself healthy', () => {
    const a = swimNode('a');
    const target = failedProbe(a, true);
    expect(a.stateOf(target)).toBe('suspect');
    expect(a.localHealth).toBe(0);
  });

  it('given a probe acked, lowers its local health a step', () => {
    const a = swimNode('a');
    failedProbe(a, false);
    const [ping] = a.takeMessages();
    a.step({ type: 'ack', from: ping!.to, to: 'a', seq: seqOf(ping), updates: [] });
    expect(a.localHealth).toBe(1);
  });

  it('as a helper, nacks when the target gave no ack within 80% of the ack timeout, and still passes a later ack on', () => {
    const c = swimNode('c');
    c.step({ type: 'ping-req', from: 'a', to: 'c', seq: 7, target: 'b', updates: [] });
    const [ping] = c.takeMessages();

    ticks(c, 3);
    expect(c.takeMessages()).toEqual([]);
    ticks(c, 1);
    expect(c.takeMessages()).toMatchObject([{ type: 'nack', to: 'a', seq: 7 }]);

    c.step({ type: 'ack', from: 'b', to: 'c', seq: seqOf(ping), updates: [] });
    expect(c.takeMessages()).toMatchObject([{ type: 'ack', to: 'a', seq: 7 }]);
  });

  it('given news that it is suspected, refutes, counts it against its own health, and tells the bringer and three others at once', () => {
    const b = swimNode('b');
    b.step({
      type: 'ack',
      from: 'a',
      to: 'b',
      seq: 99,
      updates: [{ id: 'b', incarnation: 0, state: 'suspect', suspectedBy: 'c' }],
    });

    expect(b.localHealth).toBe(1);
    const sent = b.takeMessages();
    expect(sent.map((message) => message.type)).toEqual(['ping', 'ping', 'ping', 'ping']);
    expect(sent[0]!.to).toBe('a');
    expect(new Set(sent.map((message) => message.to)).size).toBe(4);
    for (const message of sent)
      expect(message.updates[0]).toEqual({ id: 'b', incarnation: 1, state: 'alive' });
  });
});

describe('SwimNode with Lifeguard: suspicion (LHA-Suspicion)', () => {
  it('given a suspicion no other member confirms, waits β times the minimum before declaring the member dead', () => {
    const a = swimNode('a', ['a', 'b', 'c']);
    a.merge([{ id: 'c', incarnation: 0, state: 'suspect', suspectedBy: 'b' }]);

    answeredTicks(a, 179);
    expect(a.stateOf('c')).toBe('suspect');
    answeredTicks(a, 1);
    expect(a.stateOf('c')).toBe('dead');
  });

  it('given the expected confirmation from another member, declares the member dead at the minimum, and passes the confirmation on', () => {
    const a = swimNode('a', ['a', 'b', 'c', 'd']);
    a.merge([{ id: 'c', incarnation: 0, state: 'suspect', suspectedBy: 'b' }]);
    a.step({
      type: 'ping',
      from: 'd',
      to: 'a',
      seq: 1,
      updates: [{ id: 'c', incarnation: 0, state: 'suspect', suspectedBy: 'd' }],
    });
    expect(a.takeMessages()[0]!.updates).toContainEqual({
      id: 'c',
      incarnation: 0,
      state: 'suspect',
      suspectedBy: 'd',
    });

    answeredTicks(a, 29);
    expect(a.stateOf('c')).toBe('suspect');
    answeredTicks(a, 1);
    expect(a.stateOf('c')).toBe('dead');
  });
});

describe('SwimNode with Lifeguard: the buddy system', () => {
  it('given a probe of a member it holds suspect, tells it so in the ping, and hears the refutation in the ack', () => {
    const a = swimNode('a', ['a', 'b']);
    const b = swimNode('b', ['a', 'b']);
    a.merge([{ id: 'b', incarnation: 0, state: 'suspect', suspectedBy: 'c' }]);

    ticks(a, 10);
    const [ping] = a.takeMessages();
    expect(ping).toMatchObject({ type: 'ping', to: 'b' });
    expect(ping!.updates).toContainEqual({ id: 'b', incarnation: 0, state: 'suspect', suspectedBy: 'c' });

    b.step(ping!);
    const [ack] = b.takeMessages();
    a.step(ack!);
    expect(a.view().find((member) => member.id === 'b')).toEqual({ id: 'b', incarnation: 1, state: 'alive' });
  });
});

describe('SwimNode.takeContacts', () => {
  it('names every sender, and the target of a probe acked through a helper', () => {
    const a = swimNode('a');
    ticks(a, 10);
    const [ping] = a.takeMessages();
    ticks(a, 5);
    const [request] = a.takeMessages();
    a.takeContacts();

    a.step({ type: 'ack', from: request!.to, to: 'a', seq: seqOf(ping), updates: [] });
    expect(a.takeContacts().sort()).toEqual([ping!.to, request!.to].sort());
    expect(a.takeContacts()).toEqual([]);
  });
});
