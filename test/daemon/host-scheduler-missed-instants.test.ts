import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_MISFIRE_SETTINGS } from '../../src/core/policy/misfire.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { SECOND, startHostSchedulerRig, type HostSchedulerRig } from '../support/host-scheduler-rig.js';
import { T0 } from '../store/conformance/fixtures.js';

describe('every-host instants passed over while the daemon was held up', () => {
  let dir: string;
  let sqlite: SqliteStore;
  let clock: FakeClock;
  let rig: HostSchedulerRig;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-host-missed-'));
    sqlite = openSqliteStore(path.join(dir, 'sched.db'));
    clock = new FakeClock(T0);
  });

  afterEach(async () => {
    await rig.stop();
    await sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  type JobShape = Pick<Parameters<typeof startHostSchedulerRig>[0], 'policy' | 'schedule' | 'timezone'>;

  /** The rig on this test's store and clock, its job shaped as asked (every second in UTC by default). */
  async function startRig(job: JobShape = {}): Promise<void> {
    rig = await startHostSchedulerRig({
      dir,
      sqlite,
      store: sqlite,
      clock,
      events: new DaemonEvents(),
      ...job,
    });
  }

  async function started(policy?: JobShape['policy']): Promise<void> {
    await startRig({ policy });
    await clock.advance(2 * SECOND);
    expect(launched()).toEqual([
      { at: 1, trigger: 'schedule' },
      { at: 2, trigger: 'schedule' },
    ]);
  }

  /** The daemon's timers fire `ms` late, as when its event loop was blocked (the wall clock ran on, they did not). */
  async function heldUp(ms: number): Promise<void> {
    await clock.setWall(clock.now() + ms);
  }

  const launched = () =>
    rig.launched.map((run) => ({ at: (run.scheduledFor - T0) / SECOND, trigger: run.trigger }));

  const ledger = async () =>
    (await sqlite.listOccurrences({ jobId: rig.job.id, order: 'asc', limit: 100 }))
      .filter((entry) => entry.outcome !== 'ran')
      .map((entry) => ({
        at: (entry.scheduledFor - T0) / SECOND,
        outcome: entry.outcome,
        host: entry.host,
        reason: entry.reason,
      }));

  it('given a fire under two seconds late, runs the instant and then at once the one it ran into, recording nothing missed', async () => {
    await started();
    await heldUp(1_500);
    await clock.advance(SECOND);
    // Instant 3 fired at 4.5 s; instant 4 was already due, and fired right after it rather than being passed over.
    expect(launched().map((run) => run.at)).toEqual([1, 2, 3, 4]);
    await clock.advance(SECOND);
    expect(launched().map((run) => run.at)).toEqual([1, 2, 3, 4, 5]);
    expect(await ledger()).toEqual([]);
  });

  it('given a hold-up of ten seconds, catches up the latest instant by the default misfire policy and records every other one, on this node, with the reason', async () => {
    await started();
    await heldUp(10 * SECOND);
    await clock.advance(SECOND);
    // The timer of instant 3 fired at 13 s: instants 3 to 13 fell due meanwhile.
    expect(launched().slice(2)).toEqual([{ at: 13, trigger: 'catchup' }]);
    const missed = await ledger();
    expect(missed.map((entry) => entry.at)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    for (const entry of missed) {
      expect(entry.outcome).toBe('missed-while-down');
      expect(entry.host).toBe('node-a');
      expect(entry.reason).toMatch(
        /^on node node-a: it fell due .* only the latest missed instant was caught up \(--misfire latest\)/,
      );
    }
    // Then on time again.
    await clock.advance(SECOND);
    expect(launched().slice(3)).toEqual([{ at: 14, trigger: 'schedule' }]);
  });

  it('given --misfire skip, runs none of the instants the hold-up passed and records them all', async () => {
    await started({ misfire: { ...DEFAULT_MISFIRE_SETTINGS, policy: { kind: 'skip' } } });
    await heldUp(5 * SECOND);
    await clock.advance(SECOND);
    expect(launched().slice(2)).toEqual([]);
    expect((await ledger()).map((entry) => entry.at)).toEqual([3, 4, 5, 6, 7, 8]);
    await clock.advance(SECOND);
    expect(launched().slice(2)).toEqual([{ at: 9, trigger: 'schedule' }]);
  });

  it('given a cron job whose wall time the spring-forward skips under --dst-gap skip, records that instant on this node as dst-skipped when it fires the one before', async () => {
    // 2026-03-07 12:00 UTC: the night after next, New York's clocks jump from 02:00 to 03:00.
    clock = new FakeClock(Date.UTC(2026, 2, 6, 12));
    await startRig({
      schedule: { kind: 'cron', expression: '0 30 2 * * *' },
      timezone: 'America/New_York',
      policy: { dst: { gap: 'skip', repeat: 'first' } },
    });
    await clock.advanceTo(Date.UTC(2026, 2, 7, 8));
    // 02:30 EST on March 7 ran; 02:30 on March 8 never exists.
    expect(rig.launched.map((run) => new Date(run.scheduledFor).toISOString())).toEqual([
      '2026-03-07T07:30:00.000Z',
    ]);
    const skipped = (await sqlite.listOccurrences({ jobId: rig.job.id, limit: 10 })).filter(
      (entry) => entry.outcome === 'dst-skipped',
    );
    expect(skipped).toHaveLength(1);
    expect(new Date(skipped[0]!.scheduledFor).toISOString()).toBe('2026-03-08T07:00:00.000Z');
    expect(skipped[0]!.host).toBe('node-a');
    expect(skipped[0]!.reason).toMatch(/^on node node-a: that wall time does not exist/);
  });
});
