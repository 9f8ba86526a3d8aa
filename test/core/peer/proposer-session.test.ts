import { describe, expect, it } from 'vitest';
import {
  afterApplying,
  proposerSeat,
  REMEMBERED_FOR_MS,
  seenBefore,
  type ProposerSession,
} from '../../../src/core/peer/proposer-session.js';

const P = 'n1:7000/boot/';

/** The session after applying `counters` in that order, each made at `at(counter)`, one entry each. */
function applying(counters: number[], at = (counter: number) => counter * 10): ProposerSession | undefined {
  let session: ProposerSession | undefined;
  counters.forEach((counter, index) => {
    session = afterApplying(session, P, counter, at(counter), index + 1);
  });
  return session;
}

describe('A proposer’s session: which of its commands the log applied', () => {
  it('Given an id of the proposer’s form, then its proposer and counter are read from it; any other id has none', () => {
    expect(proposerSeat('127.0.0.1:7001/1a2b3c4d/42')).toEqual({
      proposer: '127.0.0.1:7001/1a2b3c4d/',
      counter: 42,
    });
    for (const id of ['plain', '/5', 'n1/boot/', 'n1/boot/0', 'n1/boot/07', 'n1/boot/1e3', 'n1/boot/-1'])
      expect(proposerSeat(id)).toBeNull();
  });

  it('Given counters applied in order, then the session is one number and every one of them was seen', () => {
    const session = applying([1, 2, 3, 4]);

    expect(session).toMatchObject({ through: 4, beyond: [], latestAt: 40, lastIndex: 4 });
    for (const counter of [1, 2, 3, 4]) expect(seenBefore(session, counter)).toBe(true);
    expect(seenBefore(session, 5)).toBe(false);
  });

  it('Given counters applied out of order around ones not applied yet, then exactly the applied are seen, and the runs close as the gaps fill', () => {
    const session = applying([1, 4, 6, 5, 9]);

    expect(session).toMatchObject({
      through: 1,
      beyond: [
        [4, 6, 40],
        [9, 9, 90],
      ],
    });
    expect([2, 3, 7, 8, 10].filter((counter) => seenBefore(session, counter))).toEqual([]);
    expect([1, 4, 5, 6, 9].every((counter) => seenBefore(session, counter))).toBe(true);
    expect(applying([1, 4, 6, 5, 9, 3, 2, 8, 7])).toMatchObject({ through: 9, beyond: [] });
  });

  it('Given a counter never applied, when a later one of the proposer is older than the window, then the gap is forgotten and a late copy of it counts as seen', () => {
    const at = (counter: number) => (counter < 5 ? counter : REMEMBERED_FOR_MS + 1_000 + counter);
    const before = applying([1, 3], at);
    const after = applying([1, 3, 5], at);

    expect(before).toMatchObject({ through: 1, beyond: [[3, 3, 3]] });
    expect(after).toMatchObject({ through: 3, beyond: [[5, 5, at(5)]] });
    expect(seenBefore(after, 2)).toBe(true);
  });
});
