import { afterEach, describe, expect, it } from 'vitest';
import { useVirtualDaemons, type RunSummary, type VirtualDaemon } from '../support/virtual-daemon.js';

const HOUR = 3_600_000;

function instantsOf(runs: RunSummary[]): number[] {
  return runs.map((run) => run.scheduledFor);
}

async function started(start: () => Promise<VirtualDaemon>, misfire: string): Promise<VirtualDaemon> {
  const daemon = await start();
  await daemon.add({ name: 'tick', every: '1s', misfire, argv: ['true'] });
  await daemon.run(3_000);
  expect(await daemon.runsOf('tick')).toHaveLength(3);
  return daemon;
}

/** An every-1s job that ran 3 s, then the wall clock jumped a minute ahead and 2 s more passed. */
async function jumpedForwardAMinute(start: () => Promise<VirtualDaemon>, misfire: string) {
  const daemon = await started(start, misfire);
  const before = daemon.clock.now();
  await daemon.clock.setWall(before + 60_000);
  await daemon.run(2_000);
  return { daemon, before, runs: await daemon.runsOf('tick') };
}

describe('the wall clock stepping (see the rule atop src/daemon/scheduler/due-window.ts)', () => {
  const { start } = useVirtualDaemons(afterEach);

  it('given a jump forward of a minute and --misfire latest, runs the latest passed instant once and records the others missed', async () => {
    const { daemon, before, runs } = await jumpedForwardAMinute(() => start(), 'latest');
    expect(new Set(instantsOf(runs)).size).toBe(runs.length);
    // The jump is seen when the timer armed for the next instant wakes, 1 s of monotonic time later.
    const wokeAt = before + 60_000 + 1_000;
    const catchups = runs.filter((run) => run.trigger === 'catchup');
    expect(instantsOf(catchups)).toEqual([wokeAt]);
    const missed = (await daemon.ledgerOf('tick')).filter((entry) => entry.outcome === 'missed-while-down');
    expect(missed).toHaveLength(60);
    expect(missed.every((entry) => entry.scheduledFor > before && entry.scheduledFor < wokeAt)).toBe(true);
    // After the catch-up the schedule goes on from the new wall time, once a second.
    const after = runs.filter((run) => run.trigger === 'schedule' && run.scheduledFor > before);
    expect(instantsOf(after)).toEqual([wokeAt + 1_000]);
  });

  it('given a jump forward of a minute and --misfire skip, runs none of the passed instants', async () => {
    const { runs, before } = await jumpedForwardAMinute(() => start(), 'skip');
    expect(runs.filter((run) => run.trigger === 'catchup')).toHaveLength(0);
    expect(
      runs.filter((run) => run.scheduledFor > before && run.scheduledFor <= before + 60_000),
    ).toHaveLength(0);
    expect(new Set(instantsOf(runs)).size).toBe(runs.length);
  });

  it('given a step back of an hour, fires nothing again and keeps the next instant until the wall clock reaches it', async () => {
    const daemon = await started(() => start(), 'all');
    const before = daemon.clock.now();
    const fired = instantsOf(await daemon.runsOf('tick'));

    await daemon.clock.setWall(before - HOUR);
    await daemon.run(5_000);
    expect(instantsOf(await daemon.runsOf('tick'))).toEqual(fired);

    await daemon.clock.advanceTo(before - 500);
    await daemon.run(2_000);

    const runs = await daemon.runsOf('tick');
    expect(instantsOf(runs)).toEqual([...fired, before + 1_000]);
    expect(runs.every((run) => run.trigger === 'schedule')).toBe(true);
    expect(runs.every((run) => run.state === 'succeeded')).toBe(true);
  });

  it('given a step back while a retry waits, starts the retry only when the wall clock reaches its due time again', async () => {
    const daemon = await start();
    await daemon.add({
      name: 'flaky',
      every: '1h',
      retries: 1,
      backoff: '10s',
      jitter: false,
      shell: 'exit 1',
    });
    await daemon.call('job.trigger', { ref: 'flaky' });
    await daemon.idle();
    const waiting = (await daemon.runsOf('flaky'))[1]!;
    expect(waiting.state).toBe('scheduled');

    await daemon.clock.setWall(daemon.clock.now() - 60_000);
    await daemon.run(20_000, 1_000);
    expect((await daemon.runsOf('flaky'))[1]!.state).toBe('scheduled');
    await daemon.clock.advanceTo(waiting.dueAt);
    await daemon.idle();

    const retried = (await daemon.runsOf('flaky'))[1]!;
    expect(retried).toMatchObject({ state: 'failed', startedAt: waiting.dueAt });
  });
});
