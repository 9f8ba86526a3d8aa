import { describe, expect, it } from 'vitest';
import { EndedRuns } from '../../src/daemon/ended-runs.js';
import { FakeClock } from '../support/fake-clock.js';

describe('the runs that ended on this node lately', () => {
  it('Given runs that ended, then each is known by its job from its end until 10 s after its end was written', async () => {
    const clock = new FakeClock();
    const ended = new EndedRuns(clock);
    ended.ended('a', 'job-1');
    ended.ended('b', 'job-2');
    ended.ended('b2', 'job-2');
    expect([ended.ofJob('job-1'), ended.ofJob('job-2'), ended.ofJob('job-3')]).toEqual([
      ['a'],
      ['b', 'b2'],
      [],
    ]);

    ended.written('a');
    await clock.advance(9_999);
    ended.written('b');
    expect([ended.ofJob('job-1'), ended.ofJob('job-2')]).toEqual([['a'], ['b', 'b2']]);

    await clock.advance(1);
    ended.ended('c', 'job-1');
    ended.written('c');
    // `b2` is still being written: it is kept, and so is `b`, which ended before it.
    expect([ended.ofJob('job-1'), ended.ofJob('job-2')]).toEqual([['c'], ['b', 'b2']]);
    ended.written('b2');
    await clock.advance(10_000);
    ended.ended('d', 'job-3');
    ended.written('d');
    expect([ended.ofJob('job-1'), ended.ofJob('job-2'), ended.ofJob('job-3')]).toEqual([[], [], ['d']]);
  });

  it('Given a run whose job is no longer known, then it is kept and forgotten with the others, named by no job', async () => {
    const clock = new FakeClock();
    const ended = new EndedRuns(clock);
    ended.ended('orphan', null);
    ended.ended('a', 'job-1');
    ended.written('orphan');
    ended.written('a');
    expect(ended.ofJob('job-1')).toEqual(['a']);
    await clock.advance(10_000);
    ended.ended('b', 'job-1');
    ended.written('b');
    expect(ended.ofJob('job-1')).toEqual(['b']);
  });

  it('Given runs of a job that ended, then those whose ends are still being written are told apart', () => {
    const ended = new EndedRuns(new FakeClock());
    ended.ended('a', 'job-1');
    ended.ended('b', 'job-1');
    ended.ended('c', 'job-2');
    ended.written('a');
    expect(ended.unwrittenOfJob('job-1')).toEqual(['b']);
    expect(ended.unwrittenOfJob('job-2')).toEqual(['c']);
    ended.written('b');
    expect(ended.unwrittenOfJob('job-1')).toEqual([]);
    expect(ended.ofJob('job-1')).toEqual(['a', 'b']);
  });

  it('Given a run whose end was kept offline, then it counts as unwritten until replayed and holds back forgetting no other run', async () => {
    const clock = new FakeClock();
    const ended = new EndedRuns(clock);
    ended.ended('kept', 'job-1');
    ended.keptOffline('kept');
    ended.written('kept');
    ended.ended('a', 'job-2');
    ended.written('a');
    expect(ended.unwrittenOfJob('job-1')).toEqual(['kept']);

    await clock.advance(10_000);
    ended.ended('b', 'job-2');
    ended.written('b');
    expect([ended.ofJob('job-1'), ended.ofJob('job-2')]).toEqual([['kept'], ['b']]);

    ended.offlineEndSettled('kept');
    expect(ended.unwrittenOfJob('job-1')).toEqual([]);
    expect(ended.ofJob('job-1')).toEqual(['kept']);
    await clock.advance(10_000);
    ended.ended('c', 'job-3');
    ended.written('c');
    expect([ended.ofJob('job-1'), ended.ofJob('job-2')]).toEqual([[], []]);
  });
});
