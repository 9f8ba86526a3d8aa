import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DaemonEvents } from '../../src/daemon/events.js';
import { JOURNAL_AFTER_MS } from '../../src/daemon/scheduler/host-scheduler.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import { SECOND, startHostSchedulerRig, type HostSchedulerRig } from '../support/host-scheduler-rig.js';
import { waitFor } from '../support/sched-harness.js';
import { T0 } from '../store/conformance/fixtures.js';

/**
 * The real store, whose run inserts can be held up: what a peer's write looks like while its side keeps a
 * leader that cannot commit, or a database that stopped answering.
 */
function stallingStore(store: SqliteStore): { store: Store; stall(): void; release(): void } {
  let held: Array<() => void> | null = null;
  const insertRun: Store['insertRun'] = async (run) => {
    if (held !== null) await new Promise<void>((resolve) => held!.push(resolve));
    return store.insertRun(run);
  };
  return {
    store: new Proxy(store, {
      get: (target, property, receiver) =>
        property === 'insertRun' ? insertRun : (Reflect.get(target, property, receiver) as unknown),
    }) as Store,
    stall: () => (held = []),
    release: () => {
      const waiting = held ?? [];
      held = null;
      for (const resolve of waiting) resolve();
    },
  };
}

describe('every-host jobs beside a store slow to answer', () => {
  let dir: string;
  let sqlite: SqliteStore;
  let clock: FakeClock;
  let rig: HostSchedulerRig;
  let slow: ReturnType<typeof stallingStore>;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-slow-store-'));
    sqlite = openSqliteStore(path.join(dir, 'sched.db'));
    clock = new FakeClock(T0);
    slow = stallingStore(sqlite);
  });

  afterEach(async () => {
    slow.release();
    await rig.stop();
    await sqlite.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function startWith(store: Store): Promise<void> {
    rig = await startHostSchedulerRig({ dir, sqlite, store, clock, events: new DaemonEvents() });
  }

  const instantsLaunched = () => rig.launched.map((run) => (run.scheduledFor - T0) / SECOND);

  it('given a run insert the store does not answer, starts the run after JOURNAL_AFTER_MS from the journal, journals the instants after it at once, and the store takes them all once it answers', async () => {
    await startWith(slow.store);
    await clock.advance(2 * SECOND);
    expect(instantsLaunched()).toEqual([1, 2]);

    slow.stall();
    await clock.advance(SECOND + JOURNAL_AFTER_MS / 2);
    // The insert of instant 3 is unanswered: its run waits, but no longer than JOURNAL_AFTER_MS.
    expect(instantsLaunched()).toEqual([1, 2]);
    await clock.advance(JOURNAL_AFTER_MS / 2);
    // Instant 4, due meanwhile, goes to the journal at once.
    expect(instantsLaunched()).toEqual([1, 2, 3, 4]);
    await clock.advance(5 * SECOND);
    // Every instant ran on time, none passed over, the store still silent.
    expect(instantsLaunched()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);

    slow.release();
    await clock.advance(2 * SECOND);
    expect(instantsLaunched()).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    // The journal is replayed within a second or so, though the store was reachable all along: each run once.
    await waitFor(
      async () => {
        await clock.advance(SECOND);
        return (await sqlite.listRuns({ jobId: 'job-beat', limit: 100 })).items.length >= 12;
      },
      10_000,
      10,
    );
    const stored = (await sqlite.listRuns({ jobId: 'job-beat', limit: 100 })).items;
    const instants = stored.map((run) => (run.scheduledFor - T0) / SECOND).sort((a, b) => a - b);
    expect(instants.slice(0, 11)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(new Set(stored.map((run) => run.id)).size).toBe(stored.length);
  });
});
