import { describe, expect, it } from 'vitest';
import type { Run, RunOutcome } from '../../src/core/run.js';
import type { FinishedRun, RunEnd } from '../../src/store/store.js';
import { GroupCommit } from '../../src/daemon/group-commit.js';
import { FakeClock } from '../support/fake-clock.js';

const OUTCOME: RunOutcome = {
  state: 'succeeded',
  finishedAt: 1,
  exitCode: 0,
  signal: null,
  error: null,
  stdoutTail: '',
  stderrTail: '',
};

const end = (runId: string): RunEnd => ({ runId, outcome: OUTCOME });
const finished = (runId: string): FinishedRun => ({ run: { id: runId } as Run, retry: null });

/** A store whose finishRuns records each call's run ids and answers as `answer` says. */
function storeAnswering(answer: (ends: readonly RunEnd[]) => Promise<(FinishedRun | null)[]>) {
  const calls: string[][] = [];
  return {
    calls,
    store: {
      finishRuns: async (ends: readonly RunEnd[]) => {
        calls.push(ends.map((one) => one.runId));
        return answer(ends);
      },
    },
  };
}

describe('group commit of run ends', () => {
  it('Given ends that settle in one turn and more while that batch is written, when they are written, then the first turn goes as one batch and the rest as the next', async () => {
    let release: () => void = () => undefined;
    const firstWritten = new Promise<void>((resolve) => (release = resolve));
    const { calls, store } = storeAnswering(async (ends) => {
      if (calls.length === 1) await firstWritten;
      return ends.map((one) => finished(one.runId));
    });
    const batch = new GroupCommit((ends: readonly RunEnd[]) => store.finishRuns(ends));

    const first = [batch.write(end('a')), batch.write(end('b'))];
    await new Promise((resolve) => setImmediate(resolve));
    const later = [batch.write(end('c')), batch.write(end('d'))];
    release();

    expect((await Promise.all([...first, ...later])).map((one) => one?.run.id)).toEqual(['a', 'b', 'c', 'd']);
    expect(calls).toEqual([
      ['a', 'b'],
      ['c', 'd'],
    ]);
  });

  it('Given a batch that fails for one of its ends, when it is written, then each end is written alone and only that end fails', async () => {
    const { calls, store } = storeAnswering(async (ends) => {
      if (ends.some((one) => one.runId === 'bad')) throw new Error('the retry attempt is taken');
      return ends.map((one) => (one.runId === 'gone' ? null : finished(one.runId)));
    });
    const batch = new GroupCommit((ends: readonly RunEnd[]) => store.finishRuns(ends));

    const results = await Promise.allSettled(['a', 'bad', 'gone'].map((id) => batch.write(end(id))));

    expect(
      results.map((result) => (result.status === 'fulfilled' ? (result.value?.run.id ?? null) : 'failed')),
    ).toEqual(['a', 'failed', null]);
    expect(calls).toEqual([['a', 'bad', 'gone'], ['a'], ['bad'], ['gone']]);
  });

  it('Given a store that cannot be reached, when a batch is written, then every end of it fails at once, none written alone', async () => {
    const { calls, store } = storeAnswering(async () => {
      throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    });
    const batch = new GroupCommit((ends: readonly RunEnd[]) => store.finishRuns(ends));

    const results = await Promise.allSettled(['a', 'b'].map((id) => batch.write(end(id))));

    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(calls).toEqual([['a', 'b']]);
  });

  it('Given a gap, when a write had company, then the next waits until the gap after it began; after a write of one, the next goes at once', async () => {
    const clock = new FakeClock();
    const written: { ids: string[]; at: number }[] = [];
    const { store } = storeAnswering(async (ends) => {
      written.push({ ids: ends.map((one) => one.runId), at: clock.monotonic() });
      return ends.map((one) => finished(one.runId));
    });
    const batch = new GroupCommit((ends: readonly RunEnd[]) => store.finishRuns(ends), { clock, ms: 50 });

    const alone = batch.write(end('alone'));
    await clock.advance(0);
    await alone;
    const right = batch.write(end('right after'));
    await clock.advance(0);
    await right;
    const together = [batch.write(end('a')), batch.write(end('b'))];
    await clock.advance(10);
    await Promise.all(together);
    const next = batch.write(end('c'));
    await clock.advance(30);
    expect(written.map((write) => write.ids)).toEqual([['alone'], ['right after'], ['a', 'b']]);
    await clock.advance(10);
    await next;

    expect(written).toEqual([
      { ids: ['alone'], at: 0 },
      { ids: ['right after'], at: 0 },
      { ids: ['a', 'b'], at: 0 },
      { ids: ['c'], at: 50 },
    ]);
  });
});
