import { afterEach, describe, expect, it } from 'vitest';
import type { LedgerEntry } from '../../src/core/ledger/entry.js';
import { FakeClock } from '../support/fake-clock.js';
import { useVirtualDaemons } from '../support/virtual-daemon.js';
import { overlaps } from '../support/run-overlaps.js';

describe('misfires and pauses in virtual time', () => {
  const { home, start } = useVirtualDaemons(afterEach);

  it('given instants missed while the daemon was down, handles them by each misfire policy and why says what happened', async () => {
    const clock = new FakeClock();
    const dir = home();
    let daemon = await start(clock, dir);
    await daemon.add({ name: 'skip', every: '1s', misfire: 'skip', argv: ['true'] });
    await daemon.add({ name: 'latest', every: '1s', misfire: 'latest', argv: ['true'] });
    await daemon.add({ name: 'all', every: '1s', misfire: 'all', argv: ['true'] });
    await daemon.add({ name: 'count2', every: '1s', misfire: 'count:2', argv: ['true'] });
    await daemon.add({ name: 'window', every: '1s', misfire: 'all', catchupWindow: '2s', argv: ['true'] });
    await daemon.run(1_500);
    await daemon.stop();
    const downAt = clock.now();
    await clock.advance(5_000);
    daemon = await start(clock, dir);
    const upAt = clock.now();
    await daemon.run(4_000);

    const missedWhileDown = (entries: LedgerEntry[]) =>
      entries.filter((entry) => entry.scheduledFor > downAt && entry.scheduledFor < upAt);

    const skipGap = missedWhileDown(await daemon.ledgerOf('skip'));
    expect(skipGap).toHaveLength(5);
    expect(skipGap.every((entry) => entry.outcome === 'missed-while-down')).toBe(true);
    expect((await daemon.runsOf('skip')).filter((run) => run.trigger === 'catchup')).toHaveLength(0);
    expect(await daemon.why('skip', skipGap[1]!.scheduledFor)).toMatch(
      /did not run: it fell due while the scheduler was not running and the job is set to --misfire skip/,
    );

    const latestCatchups = (await daemon.runsOf('latest')).filter((run) => run.trigger === 'catchup');
    expect(latestCatchups).toHaveLength(1);
    expect(
      missedWhileDown(await daemon.ledgerOf('latest')).filter(
        (entry) => entry.outcome === 'missed-while-down',
      ),
    ).toHaveLength(4);
    expect(await daemon.why('latest', latestCatchups[0]!.scheduledFor)).toMatch(
      /ran at .* because it fell due while the scheduler was not running and was caught up .* late \(--misfire latest\)/,
    );

    const allCatchups = (await daemon.runsOf('all')).filter((run) => run.trigger === 'catchup');
    expect(allCatchups).toHaveLength(5);
    expect(allCatchups.every((run) => run.state === 'succeeded')).toBe(true);
    expect(overlaps(allCatchups)).toBe(0);
    const inOrder = allCatchups.map((run) => run.scheduledFor);
    expect(inOrder).toEqual([...inOrder].sort((a, b) => a - b));
    expect(
      (await daemon.ledgerOf('all')).filter((entry) => entry.outcome === 'missed-while-down'),
    ).toHaveLength(0);

    expect((await daemon.runsOf('count2')).filter((run) => run.trigger === 'catchup')).toHaveLength(2);

    const outside = (await daemon.ledgerOf('window')).filter(
      (entry) => entry.outcome === 'outside-catchup-window',
    );
    expect(outside.length).toBeGreaterThanOrEqual(2);
    expect(await daemon.why('window', outside[0]!.scheduledFor)).toMatch(/outside the 2s catch-up window/);
    expect(
      (await daemon.runsOf('window')).filter((run) => run.trigger === 'catchup').length,
    ).toBeGreaterThanOrEqual(1);
  });

  it('given a pause, records the instants it held back and why says so', async () => {
    const daemon = await start();
    await daemon.add({ name: 'held', every: '1s', misfire: 'skip', argv: ['true'] });
    await daemon.run(1_200);
    await daemon.call('job.pause', { ref: 'held' });
    await daemon.run(3_500);
    await daemon.call('job.resume', { ref: 'held' });
    await daemon.run(500);

    const paused = (await daemon.ledgerOf('held')).filter((entry) => entry.outcome === 'paused');
    expect(paused).toHaveLength(3);
    expect(await daemon.why('held', paused[0]!.scheduledFor)).toMatch(
      /did not run: it fell due while the job was paused/,
    );
  });

  it('given a spread, fires at instant plus a stable offset, the same after a restart', async () => {
    const clock = new FakeClock();
    const dir = home();
    let daemon = await start(clock, dir);
    await daemon.add({ name: 'spread', every: '2s', spread: '1500ms', argv: ['true'] });
    const offsets = async () =>
      (await daemon.runsOf('spread'))
        .filter((run) => run.trigger === 'schedule')
        .map((run) => [run.dueAt - run.scheduledFor, run.startedAt! - run.scheduledFor]);
    await daemon.run(6_000);
    const before = await offsets();
    await daemon.stop();
    daemon = await start(clock, dir);
    await daemon.run(4_000);
    const after = await offsets();

    expect(before.length).toBeGreaterThanOrEqual(2);
    expect(after.length).toBeGreaterThan(before.length);
    const offset = before[0]![0]!;
    expect(offset).toBeGreaterThanOrEqual(0);
    expect(offset).toBeLessThan(1_500);
    // Every fire, before and after the restart, is at its instant plus the same offset (to the 250 ms step).
    for (const [dueOffset, startOffset] of after) {
      expect(dueOffset).toBe(offset);
      expect(startOffset! - offset).toBeGreaterThanOrEqual(0);
      expect(startOffset! - offset).toBeLessThan(250);
    }
  });
});
