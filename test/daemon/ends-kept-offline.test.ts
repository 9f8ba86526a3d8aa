import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import type { Job } from '../../src/core/job.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import { RunLauncher } from '../../src/daemon/run-launcher.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import { createJob, newRun, outcome } from '../store/conformance/fixtures.js';
import { ScriptedExecutor, scriptedLauncherOptions } from './scripted-executor.js';

/**
 * A run that ends while this node reaches no majority (or no PostgreSQL) has its end kept offline, to be
 * written by the journal's replay. Until the store has it, a fire of its job from here must still name the
 * run as ended: the store's copy shows it running.
 */
describe('the end of a run kept offline while the store is out of reach', () => {
  let dir: string;
  let store: SqliteStore;
  let launcher: RunLauncher;
  let commands: ScriptedExecutor;
  let job: Job;
  let away: boolean;
  const kept: string[] = [];

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-kept-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    away = false;
    kept.length = 0;
    const cutOffStore = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'finishRuns' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (away) throw new SchedError('NO_QUORUM', 'no majority of the voters reachable');
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as Store;
    commands = new ScriptedExecutor();
    launcher = new RunLauncher({
      ...scriptedLauncherOptions(commands, new ScriptedExecutor()),
      store: cutOffStore,
      clock: new FakeClock(),
      events: new DaemonEvents(),
      keepEndOffline: (runId) => {
        kept.push(runId);
        return true;
      },
    });
    job = await createJob(store, 'forbid');
  });

  afterEach(async () => {
    await launcher.settled();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function endedRun(): Promise<string> {
    const run = await store.insertRun(newRun(job.id, { state: 'running' }));
    launcher.launch(run, job);
    commands.finish(run.id, outcome());
    await launcher.settled();
    return run.id;
  }

  it('Given a run that ended while the store was away, then it is named as unwritten until its end is replayed, then as written', async () => {
    away = true;
    const runId = await endedRun();
    expect(kept).toEqual([runId]);
    expect((await store.findRun(runId))?.state).toBe('running');
    expect(launcher.unwrittenEndsOf(job.id)).toEqual([runId]);

    away = false;
    await store.finishRun(runId, outcome());
    launcher.endReplayed(runId);
    expect(launcher.unwrittenEndsOf(job.id)).toEqual([]);
    expect(launcher.endedRunsOf(job.id)).toEqual([runId]);
  });

  it('Given a run that ended with the store reachable, then its end is written and it is not named as unwritten', async () => {
    const runId = await endedRun();
    expect(kept).toEqual([]);
    expect((await store.findRun(runId))?.state).toBe('succeeded');
    expect(launcher.unwrittenEndsOf(job.id)).toEqual([]);
    expect(launcher.endedRunsOf(job.id)).toEqual([runId]);
  });
});
