import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SchedError } from '../../src/core/errors.js';
import type { Job } from '../../src/core/job.js';
import type { Run } from '../../src/core/run.js';
import type { LocalAutonomy } from '../../src/daemon/autonomy/local-autonomy.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import { RunLauncher } from '../../src/daemon/run-launcher.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import { startPeerAutonomy } from '../support/host-scheduler-rig.js';
import { waitFor } from '../support/sched-harness.js';
import { createJob, newRun, outcome } from '../store/conformance/fixtures.js';
import { ScriptedExecutor, scriptedLauncherOptions } from './scripted-executor.js';

/**
 * A run that ends while this node reaches no majority (or no PostgreSQL) has its end kept offline by local
 * autonomy, to be written by the journal's replay. Until the replay has settled it, a fire of its job from
 * here must still name the run as ended: the store's copy shows it running. The launcher and local
 * autonomy are wired as the daemon wires them, on a real SQLite store whose end writes can be cut off.
 */
describe('the end of a run kept offline while the store is out of reach', () => {
  let dir: string;
  let store: SqliteStore;
  let events: DaemonEvents;
  let autonomy: LocalAutonomy;
  let launcher: RunLauncher;
  let commands: ScriptedExecutor;
  let job: Job;
  let away: boolean;
  let cutOffStore: Store;

  /**
   * This node's local autonomy and launcher, wired as the daemon wires them (a restarted daemon adopts the
   * ends a daemon before it kept offline), on a fresh event bus and clock.
   */
  async function startNode(): Promise<void> {
    const clock = new FakeClock();
    events = new DaemonEvents();
    autonomy = await startPeerAutonomy({ dir, store: cutOffStore, clock, events });
    commands = new ScriptedExecutor();
    launcher = new RunLauncher({
      ...scriptedLauncherOptions(commands, new ScriptedExecutor()),
      store: autonomy.launcherStore(cutOffStore),
      clock,
      events,
      keepEndOffline: (runId, jobId, ended) => autonomy.keepEndOffline(runId, jobId, ended),
    });
    launcher.adoptEndsKeptOffline(autonomy.endsKeptOffline());
  }

  async function stopNode(): Promise<void> {
    await launcher.settled();
    await autonomy.stop();
  }

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-kept-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    away = false;
    cutOffStore = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (!['finishRuns', 'finishRun'].includes(String(name)) || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          if (away) throw new SchedError('NO_QUORUM', 'no majority of the voters reachable');
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as Store;
    await startNode();
    job = await createJob(store, 'forbid');
  });

  afterEach(async () => {
    await stopNode();
    store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const running = (): Promise<Run> => store.insertRun(newRun(job.id, { state: 'running' }));

  async function endedRun(): Promise<string> {
    const run = await running();
    launcher.launch(run, job);
    commands.finish(run.id, outcome());
    await launcher.settled();
    return run.id;
  }

  /** The store is back: local autonomy replays its journal, as on the daemon's `store:reachable`. */
  async function storeBack(runId: string): Promise<void> {
    away = false;
    events.emit('store:reachable', { at: Date.now(), unreachableForMs: 1_000 });
    await waitFor(async () => (await store.findRun(runId))?.state !== 'running');
    await waitFor(async () => launcher.unwrittenEndsOf(job.id).length === 0);
  }

  it('Given a run that ended while the store was away, then it is named as unwritten until the replay has stored its end, then as written', async () => {
    away = true;
    const runId = await endedRun();
    expect((await store.findRun(runId))?.state).toBe('running');
    expect(launcher.unwrittenEndsOf(job.id)).toEqual([runId]);

    await storeBack(runId);

    expect((await store.findRun(runId))?.state).toBe('succeeded');
    expect(launcher.endedRunsOf(job.id)).toEqual([runId]);
  });

  it('Given a run recorded lost while the store was away (a restart found it running), then it is named as unwritten until the replay has stored that', async () => {
    away = true;
    const run = await running();
    await launcher.recordLost(run, job, 'the daemon was killed while it ran');
    expect((await store.findRun(run.id))?.state).toBe('running');
    expect(launcher.unwrittenEndsOf(job.id)).toEqual([run.id]);

    await storeBack(run.id);

    expect((await store.findRun(run.id))?.state).toBe('lost');
    expect(launcher.endedRunsOf(job.id)).toEqual([run.id]);
  });

  it('Given a daemon restarted while a run’s end was kept offline, then the new daemon names the run as unwritten until the replay has stored its end', async () => {
    away = true;
    const runId = await endedRun();
    await stopNode();

    await startNode();
    expect(launcher.unwrittenEndsOf(job.id)).toEqual([runId]);
    await storeBack(runId);

    expect((await store.findRun(runId))?.state).toBe('succeeded');
  });

  it('Given a run that ended with the store reachable, then its end is written and it is not named as unwritten', async () => {
    const runId = await endedRun();
    expect((await store.findRun(runId))?.state).toBe('succeeded');
    expect(launcher.unwrittenEndsOf(job.id)).toEqual([]);
    expect(launcher.endedRunsOf(job.id)).toEqual([runId]);
  });
});
