import { describe, expect, it } from 'vitest';
import { overrides } from '../../../src/core/membership/member-updates.js';
import { swimNode, ticks } from './swim-test-kit.js';

// 30 ticks of suspicion, confirmed or not: plain SWIM's fixed time (see swim-lifeguard.test.ts for the rest).
const swim = (id: string, seeds?: string[]) =>
  swimNode(id, seeds, { ackTimeoutTicks: 4, suspicionMaxMultiplier: 1 });

describe('SwimNode', () => {
  it('given a protocol period, pings one member, and acks a ping it gets with its own incarnation', () => {
    const a = swim('a');
    ticks(a, 10);
    const [ping] = a.takeMessages();
    expect(ping).toMatchObject({ type: 'ping', from: 'a' });

    const target = swim(ping!.to);
    target.step(ping!);
    expect(target.takeMessages()[0]).toMatchObject({
      type: 'ack',
      to: 'a',
      seq: ping!.type === 'ping' ? ping!.seq : -1,
      updates: expect.arrayContaining([{ id: ping!.to, incarnation: 0, state: 'alive' }]),
    });
  });

  it('given no ack within the timeout, asks others to probe; none by the next period, suspects; none within the suspicion time, declares dead', () => {
    const a = swim('a');
    ticks(a, 10);
    const target = a.takeMessages()[0]!.to;

    ticks(a, 4);
    const asked = a.takeMessages();
    expect(asked.map((message) => message.type)).toEqual(['ping-req', 'ping-req']);
    expect(asked.every((message) => message.type === 'ping-req' && message.target === target)).toBe(true);

    ticks(a, 6);
    expect(a.stateOf(target)).toBe('suspect');
    ticks(a, 30);
    expect(a.stateOf(target)).toBe('dead');
  });

  it('given news that it is suspected, a node refutes it with a higher incarnation', () => {
    const b = swim('b');
    b.step({
      type: 'ping',
      from: 'a',
      to: 'b',
      seq: 1,
      updates: [{ id: 'b', incarnation: 0, state: 'suspect' }],
    });

    const [ack] = b.takeMessages();
    expect(ack!.updates).toContainEqual({ id: 'b', incarnation: 1, state: 'alive' });
  });

  it('given an indirect probe, pings the target and passes its ack back under the asker’s seq', () => {
    const c = swim('c');
    c.step({ type: 'ping-req', from: 'a', to: 'c', seq: 7, target: 'b', updates: [] });
    const [ping] = c.takeMessages();
    expect(ping).toMatchObject({ type: 'ping', to: 'b' });

    c.step({ type: 'ack', from: 'b', to: 'c', seq: ping!.type === 'ping' ? ping!.seq : -1, updates: [] });
    expect(c.takeMessages()[0]).toMatchObject({ type: 'ack', to: 'a', seq: 7 });
  });
});

describe('SwimNode.merge (a push-pull state exchange)', () => {
  it('given another view, learns the members it did not know and takes a dead one as suspect first', () => {
    const a = swim('a', ['a', 'b']);
    a.merge([
      { id: 'c', incarnation: 3, state: 'alive' },
      { id: 'b', incarnation: 0, state: 'dead' },
    ]);
    expect(a.stateOf('c')).toBe('alive');
    expect(a.stateOf('b')).toBe('suspect');
    ticks(a, 30);
    expect(a.stateOf('b')).toBe('dead');
  });

  it('given a view that holds it dead, refutes with a higher incarnation', () => {
    const a = swim('a', ['a', 'b']);
    a.merge([{ id: 'a', incarnation: 0, state: 'dead' }]);
    expect(a.view().find((member) => member.id === 'a')).toEqual({ id: 'a', incarnation: 1, state: 'alive' });
  });
});

describe('overrides', () => {
  it('orders news by incarnation, then alive < suspect < dead', () => {
    const at = (incarnation: number, state: 'alive' | 'suspect' | 'dead') => ({
      id: 'x',
      incarnation,
      state,
    });
    expect(overrides(at(1, 'suspect'), at(1, 'alive'))).toBe(true);
    expect(overrides(at(1, 'alive'), at(1, 'suspect'))).toBe(false);
    expect(overrides(at(2, 'alive'), at(1, 'dead'))).toBe(true);
    expect(overrides(at(1, 'dead'), at(1, 'suspect'))).toBe(true);
    expect(overrides(at(0, 'dead'), at(1, 'alive'))).toBe(false);
  });
});
