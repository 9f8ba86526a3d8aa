import { describe, expect, it } from 'vitest';
import type { MemberUpdate, SwimMessage } from '../../../src/core/membership/swim-messages.js';
import type { SwimNode } from '../../../src/core/membership/swim-node.js';
import { swimNode } from './swim-test-kit.js';

const ping = (from: string, to: string, updates: MemberUpdate[]): SwimMessage => ({
  type: 'ping',
  from,
  to,
  seq: 1,
  updates,
});

/** What `node` says of itself in the ack it sends to a ping. */
function ownWord(node: SwimNode, from = 'a'): MemberUpdate | undefined {
  node.step(ping(from, node.id, []));
  return node.takeMessages()[0]!.updates.find((update) => update.id === node.id);
}

describe('SwimNode protocol versions', () => {
  it('given a version to advertise, says it with its own word, and the others learn it from there', () => {
    const b = swimNode('b', undefined, { version: 2 });
    const a = swimNode('a');

    const word = ownWord(b);
    a.step(ping('b', 'a', [word!]));

    expect(word).toEqual({ id: 'b', incarnation: 0, state: 'alive', version: 2 });
    expect(a.versionOf('b')).toBe(2);
  });

  it('given news of a member passed on without its version (by an older build), keeps the version known at that incarnation', () => {
    const a = swimNode('a');
    a.step(ping('b', 'a', [{ id: 'b', incarnation: 4, state: 'alive', version: 2 }]));

    a.step(ping('c', 'a', [{ id: 'b', incarnation: 4, state: 'suspect', suspectedBy: 'c' }]));

    expect([a.stateOf('b'), a.versionOf('b')]).toEqual(['suspect', 2]);
  });

  it('given the same news first without the version and then with it, learns the version', () => {
    const a = swimNode('a');
    a.step(ping('c', 'a', [{ id: 'b', incarnation: 4, state: 'alive' }]));
    expect(a.versionOf('b')).toBeUndefined();

    a.step(ping('b', 'a', [{ id: 'b', incarnation: 4, state: 'alive', version: 2 }]));

    expect(a.versionOf('b')).toBe(2);
  });

  it('given a member that came back at a higher incarnation from an older build, takes it as advertising none', () => {
    const a = swimNode('a');
    a.step(ping('b', 'a', [{ id: 'b', incarnation: 4, state: 'alive', version: 2 }]));

    a.step(ping('b', 'a', [{ id: 'b', incarnation: 5, state: 'alive' }]));

    expect(a.versionOf('b')).toBeUndefined();
  });

  it('given news that it is alive under another version (an earlier life on another build), refutes it with its own', () => {
    const b = swimNode('b', undefined, { version: 3 });

    b.step(ping('a', 'b', [{ id: 'b', incarnation: 0, state: 'alive', version: 2 }]));

    expect(b.takeMessages()[0]!.updates).toContainEqual({
      id: 'b',
      incarnation: 1,
      state: 'alive',
      version: 3,
    });
  });

  it('given news that it is alive at an incarnation it never reached, without a version (an earlier life on an older build), refutes it', () => {
    const b = swimNode('b', undefined, { version: 2 });

    b.step(ping('a', 'b', [{ id: 'b', incarnation: 6, state: 'alive' }]));

    expect(ownWord(b)).toEqual({ id: 'b', incarnation: 7, state: 'alive', version: 2 });
  });

  it('given its own word passed back without a version by an older build, does not refute it (no endless raising)', () => {
    const b = swimNode('b', undefined, { version: 2 });

    b.step(ping('a', 'b', [{ id: 'b', incarnation: 0, state: 'alive' }]));

    expect(ownWord(b)).toEqual({ id: 'b', incarnation: 0, state: 'alive', version: 2 });
  });
});
