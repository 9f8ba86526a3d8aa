import { afterEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../support/fake-clock.js';
import { useVirtualDaemons, type VirtualDaemon } from '../support/virtual-daemon.js';

const DAY = 86_400_000;

/** Moves on a day at a time, letting each day's runs end before the next. */
async function days(daemon: VirtualDaemon, count: number): Promise<void> {
  for (let day = 0; day < count; day++) {
    await daemon.clock.advance(DAY);
    await daemon.idle();
  }
}

describe('DST in virtual time', () => {
  const { start } = useVirtualDaemons(afterEach);

  it('given a 02:30 New York job and the spring-forward, skips the wall time that does not exist and says why', async () => {
    const daemon = await start(new FakeClock(Date.parse('2026-03-06T12:00:00Z')));
    await daemon.add({
      name: 'gap',
      cron: '30 2 * * *',
      timezone: 'America/New_York',
      dstGap: 'skip',
      argv: ['true'],
    });

    await days(daemon, 4);

    const runs = await daemon.runsOf('gap');
    expect(runs.map((run) => new Date(run.scheduledFor).toISOString())).toEqual([
      '2026-03-07T07:30:00.000Z',
      '2026-03-09T06:30:00.000Z',
      '2026-03-10T06:30:00.000Z',
    ]);
    const skipped = (await daemon.ledgerOf('gap')).filter((entry) => entry.outcome === 'dst-skipped');
    expect(skipped).toHaveLength(1);
    expect(await daemon.why('gap', skipped[0]!.scheduledFor)).toMatch(
      /did not run: that wall time does not exist \(the clocks jumped from 02:00 to 03:00\) and the job is set to --dst-gap skip/,
    );
  });

  it('given a 01:30 New York job and the fall-back with --dst-repeat first, runs the repeated wall time once', async () => {
    const daemon = await start(new FakeClock(Date.parse('2026-10-31T12:00:00Z')));
    await daemon.add({
      name: 'fold',
      cron: '30 1 * * *',
      timezone: 'America/New_York',
      dstRepeat: 'first',
      argv: ['true'],
    });

    await days(daemon, 2);

    const runs = await daemon.runsOf('fold');
    expect(runs.map((run) => new Date(run.scheduledFor).toISOString())).toEqual([
      '2026-11-01T05:30:00.000Z',
      '2026-11-02T06:30:00.000Z',
    ]);
    expect(runs.every((run) => run.state === 'succeeded')).toBe(true);
  });
});
