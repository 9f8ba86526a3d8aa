import { describe, expect, it } from 'vitest';
import { EndedRuns } from '../../src/daemon/ended-runs.js';
import { FakeClock } from '../support/fake-clock.js';

describe('the runs that ended on this node lately', () => {
  it('Given runs that ended, then each is known from its end until 10 s after its end was written', async () => {
    const clock = new FakeClock();
    const ended = new EndedRuns(clock);
    ended.ended('a');
    ended.ended('b');
    expect([ended.has('a'), ended.has('b'), ended.has('c')]).toEqual([true, true, false]);

    ended.written('a');
    await clock.advance(9_999);
    ended.written('b');
    expect([ended.has('a'), ended.has('b')]).toEqual([true, true]);

    await clock.advance(1);
    ended.ended('c');
    ended.written('c');
    expect([ended.has('a'), ended.has('b'), ended.has('c')]).toEqual([false, true, true]);
  });
});
