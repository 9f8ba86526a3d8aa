import { afterEach, describe, expect, it, vi } from 'vitest';
import { SqlStore } from '../../src/store/sql/sql-store.js';
import { waitFor } from '../support/sched-harness.js';
import { useVirtualDaemons, type VirtualDaemon } from '../support/virtual-daemon.js';

const MINUTE = 60_000;

async function addEveryMinute(daemon: VirtualDaemon, count: number): Promise<string[]> {
  const names = Array.from({ length: count }, (_, index) => `burst-${index}`);
  for (const name of names) await daemon.add({ name, cron: '* * * * *', shell: 'true' });
  return names;
}

/** Waits (real time, bounded) until each job has one run of the minute and none is still running. */
async function eachRanOnce(daemon: VirtualDaemon, names: string[]): Promise<void> {
  await waitFor(
    async () => {
      for (const name of names) {
        const runs = await daemon.runsOf(name);
        if (runs.length !== 1 || runs[0]!.state === 'running') return false;
      }
      return true;
    },
    60_000,
    50,
  );
}

describe('instants due together', () => {
  const { start } = useVirtualDaemons(afterEach);
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('given 200 jobs due at the same minute, writes their fires in one transaction and starts every run', async () => {
    const daemon = await start();
    const names = await addEveryMinute(daemon, 200);
    const together = vi.spyOn(SqlStore.prototype, 'recordFires');
    const alone = vi.spyOn(SqlStore.prototype, 'recordFire');

    await daemon.clock.advance(MINUTE);
    await eachRanOnce(daemon, names);

    expect(together).toHaveBeenCalledTimes(1);
    expect(together.mock.calls[0]![0]).toHaveLength(200);
    expect(alone).not.toHaveBeenCalled();
    for (const name of names) expect((await daemon.runsOf(name))[0]!.state).toBe('succeeded');
  });

  it('given a batch the store refuses as a whole, fires each of its jobs on its own, each instant once', async () => {
    const daemon = await start();
    const names = await addEveryMinute(daemon, 20);
    vi.spyOn(SqlStore.prototype, 'recordFires').mockRejectedValueOnce(
      new Error('duplicate key value violates unique constraint "runs_instant_unique"'),
    );
    const alone = vi.spyOn(SqlStore.prototype, 'recordFire');

    await daemon.clock.advance(MINUTE);
    await eachRanOnce(daemon, names);

    expect(alone).toHaveBeenCalledTimes(20);
    for (const name of names) {
      expect(await daemon.runsOf(name)).toEqual([
        expect.objectContaining({ state: 'succeeded', trigger: 'schedule' }),
      ]);
    }
  });
});
