import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../src/core/job.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import { RunGate } from '../../src/daemon/run-gate.js';
import { RunLauncher } from '../../src/daemon/run-launcher.js';
import { Scheduler } from '../../src/daemon/scheduler/scheduler.js';
import { newId } from '../../src/store/ids.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock } from '../support/fake-clock.js';
import { waitFor } from '../support/sched-harness.js';
import { definition, outcome, stamp } from '../store/conformance/fixtures.js';
import { ScriptedExecutor, scriptedLauncherOptions } from './scripted-executor.js';

/**
 * The scheduler and the launcher on a real SQLite store and a FakeClock, with the executor scripted and the
 * store's writes of run ends held back as long as a test says: a run that ended here while its end was
 * still being written (a PostgreSQL federation holds ends to write them together, and queues them under
 * load) when its job's next instant came.
 */
describe('a fire of a job whose last run ended here, its end not yet stored', () => {
  let dir: string;
  let store: SqliteStore;
  let clock: FakeClock;
  let commands: ScriptedExecutor;
  let scheduler: Scheduler;
  let launcher: RunLauncher;
  let job: Job;
  let other: Job;
  let endsHeld: Promise<void> | null;
  let releaseEnds: () => void;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-ends-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    clock = new FakeClock();
    endsHeld = null;
    const heldStore = new Proxy(store, {
      get(target, name, receiver) {
        const value = Reflect.get(target, name, receiver) as unknown;
        if (name !== 'finishRuns' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          await endsHeld;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    }) as Store;
    const events = new DaemonEvents();
    commands = new ScriptedExecutor();
    launcher = new RunLauncher({
      ...scriptedLauncherOptions(commands, new ScriptedExecutor()),
      store: heldStore,
      clock,
      events,
    });
    const gate = new RunGate({
      store: heldStore,
      clock,
      events,
      maxConcurrent: null,
      launch: (run, of) => launcher.launch(run, of),
      kill: (runId, reason) => launcher.kill(runId, reason),
    });
    scheduler = new Scheduler({
      store: heldStore,
      clock,
      events,
      node: 'node-a',
      runFence: () => 1,
      newId,
      gate,
      endedHere: (jobId) => launcher.endedRunsOf(jobId),
    });
    const now = clock.now();
    const everySecond = (name: string) =>
      store.createJob(
        {
          id: newId(),
          definition: definition(name, { schedule: { kind: 'every', intervalMs: 1_000, anchorMs: now } }),
          owner: 'alice',
          now,
          nextRunAt: now + 1_000,
        },
        stamp('job.create', now),
      );
    job = await everySecond('forbid');
    other = await everySecond('other');
    expect([job.policy.concurrency, other.policy.concurrency]).toEqual(['forbid', 'forbid']);
    await scheduler.start();
  });

  afterEach(async () => {
    releaseEnds?.();
    await scheduler.stop();
    await launcher.settled();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  function holdEnds(): void {
    endsHeld = new Promise<void>((resolve) => (releaseEnds = resolve));
  }

  /** Whether the launcher knows the job's run ended here. */
  const endedHere = (runId: string) => launcher.endedRunsOf(job.id).includes(runId);

  /** What the ledger says of instants that did not simply run (an instant fired on time has no entry). */
  const ledger = () => store.listOccurrences({ jobId: job.id, order: 'asc', limit: 100 });
  const runsOfJob = async () => (await store.listRuns({ jobId: job.id, limit: 100 })).items;

  /** The runs handed to the executor, of one job, oldest first. */
  async function handedOf(of: Job): Promise<string[]> {
    const runs = await Promise.all(commands.handed.map((id) => store.findRun(id)));
    return runs.flatMap((run) => (run?.jobId === of.id ? [run.id] : []));
  }

  /**
   * Fires the first instant of both jobs; the other's run ends and is stored, the job's ends here with its
   * end held: it stays `running` in the store.
   */
  async function firstRunEndedUnstored(): Promise<string> {
    await clock.advance(1_000);
    await waitFor(async () => commands.handed.length === 2);
    const [first] = (await handedOf(job)) as [string];
    const [othersFirst] = (await handedOf(other)) as [string];
    commands.finish(othersFirst, outcome({ finishedAt: clock.now() }));
    await launcher.settled();
    holdEnds();
    commands.finish(first, outcome({ finishedAt: clock.now() }));
    expect(endedHere(first)).toBe(true);
    expect((await store.findRun(first))?.state).toBe('running');
    return first;
  }

  it('Given the next instant comes due before its end is stored, then the instant runs (its end is not an overlap), the job due with it too, and the end is stored after', async () => {
    const first = await firstRunEndedUnstored();

    await clock.advance(1_000);
    await waitFor(async () => (await handedOf(job)).length === 2);
    expect((await handedOf(other)).length).toBe(2);
    expect(await ledger()).toEqual([]);
    expect((await store.findRun(first))?.state).toBe('running');
    expect(endedHere(first)).toBe(true);

    releaseEnds();
    await waitFor(async () => (await store.findRun(first))?.state === 'succeeded');
    expect((await runsOfJob()).map((run) => run.state).sort()).toEqual(['running', 'succeeded']);
    // Still known for a while: a fire that read the runs in flight before the end was stored found it running.
    expect(endedHere(first)).toBe(true);
    const [second] = (await handedOf(job)).slice(1) as [string];
    commands.finish(second, outcome({ finishedAt: clock.now() }));
    await launcher.settled();
    await clock.advance(10_000);
    commands.finish((await handedOf(job)).at(-1)!, outcome({ finishedAt: clock.now() }));
    await launcher.settled();
    expect(endedHere(first)).toBe(false);
  });

  it('Given its run still running here when the next instant comes due, then the instant is skipped as an overlap, as before', async () => {
    await clock.advance(1_000);
    await waitFor(async () => commands.handed.length === 2);
    const [first] = (await handedOf(job)) as [string];
    expect(endedHere(first)).toBe(false);

    await clock.advance(1_000);
    await waitFor(async () => (await ledger()).length === 1);
    expect((await ledger())[0]).toMatchObject({ outcome: 'skipped-overlap' });
    expect(await handedOf(job)).toEqual([first]);
  });
});
