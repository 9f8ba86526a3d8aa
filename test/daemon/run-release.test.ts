import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../src/core/job.js';
import type { Run } from '../../src/core/run.js';
import { systemClock } from '../../src/daemon/clock.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import { RunGate } from '../../src/daemon/run-gate.js';
import { RunLauncher } from '../../src/daemon/run-launcher.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createJob, newRun, outcome, T0 } from '../store/conformance/fixtures.js';
import { ScriptedExecutor, scriptedLauncherOptions } from './scripted-executor.js';

describe('a run launched here: what its start and end write, and what it gives back', () => {
  let dir: string;
  let store: SqliteStore;
  let events: DaemonEvents;
  let commands: ScriptedExecutor;
  let http: ScriptedExecutor;
  let launcher: RunLauncher;
  let gate: RunGate;
  let job: Job;
  let refusal: string | null;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-release-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    events = new DaemonEvents();
    commands = new ScriptedExecutor();
    http = new ScriptedExecutor();
    const clock = { ...systemClock, now: () => T0 + 70_000 };
    launcher = new RunLauncher({
      ...scriptedLauncherOptions(commands, http),
      store,
      clock,
      events,
      refuseLaunch: () => refusal,
    });
    refusal = null;
    gate = new RunGate({
      store,
      clock,
      events,
      maxConcurrent: 1,
      launch: (run, of) => launcher.launch(run, of),
      kill: (runId, reason) => launcher.kill(runId, reason),
    });
    job = await createJob(store, 'pinned');
  });

  afterEach(async () => {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  async function startRun(of: Job = job, scheduledFor = T0 + 60_000): Promise<Run> {
    const run = await store.insertRun(newRun(of.id, { state: 'running', scheduledFor }));
    expect(gate.reserve()).toBe(true);
    gate.launchReserved(run, of);
    return run;
  }

  it('stores a started process’s pid and start at once, and an HTTP run’s start (no pid) with its end', async () => {
    const command = await startRun();
    commands.start(command.id, 4242, T0 + 70_010);
    await launcher.settled();
    expect(await store.findRun(command.id)).toMatchObject({ pid: 4242, startedAt: T0 + 70_010 });
    commands.finish(command.id, outcome());
    await launcher.settled();

    // The launcher hands a run by its job's target kind; the scripted executor sends nothing.
    const hook = await startRun({ ...job, target: { kind: 'http' } as Job['target'] }, T0 + 61_000);
    http.start(hook.id, null, T0 + 70_020);
    await launcher.settled();
    // Only its event: the row is as the fire wrote it until the end.
    expect(await store.findRun(hook.id)).toMatchObject({ pid: null, startedAt: hook.startedAt });
    expect(
      (await store.readEvents({ after: 0, limit: 100 })).filter(
        (e) => e.runId === hook.id && e.type === 'run:started',
      ),
    ).toMatchObject([{ type: 'run:started', data: { pid: null, at: T0 + 70_020 } }]);
    http.finish(hook.id, outcome({ exitCode: null, httpStatus: 204 }));
    await launcher.settled();

    expect(await store.findRun(hook.id)).toMatchObject({ state: 'succeeded', startedAt: T0 + 70_020 });
    expect(await store.findRun(command.id)).toMatchObject({ state: 'succeeded', startedAt: T0 + 70_010 });
  });

  it('records nothing when a run left behind turns out to have ended before it could be recorded lost', async () => {
    const reconciled: string[] = [];
    events.on('run:reconciled', ({ run }) => reconciled.push(run.id));
    const run = await store.insertRun(newRun(job.id, { state: 'running' }));
    // Its end reached the store between the start's listing of leftovers and their recording.
    await store.finishRun(run.id, outcome());

    await launcher.recordLost(run, job, 'the daemon was killed');

    expect((await store.findRun(run.id))?.state).toBe('succeeded');
    expect(reconciled).toEqual([run.id]);
  });

  it('frees the job and the slot when the run finishes after another node recorded it lost', async () => {
    const reconciled: string[] = [];
    events.on('run:reconciled', ({ run }) => reconciled.push(run.id));
    const run = await startRun();
    expect(gate.overlap(job).decision).toEqual({ action: 'skip', reason: 'overlap' });

    // The coordinator, while this node was paused, recorded the run lost.
    await store.finishRun(
      run.id,
      outcome({ state: 'lost', exitCode: null, error: 'node stopped heartbeating' }),
    );
    commands.finish(run.id, outcome());
    await launcher.settled();

    expect(reconciled).toEqual([run.id]);
    expect((await store.findRun(run.id))?.state).toBe('lost');
    expect(gate.isRunning(job.id)).toBe(false);
    expect(gate.overlap(job).decision).toEqual({ action: 'start' });
    expect(gate.reserve()).toBe(true);
  });

  it('frees the job and the slot when the run cannot be handed to its executor, and records it failed', async () => {
    commands.refuse = new Error('command executor is stopped');
    const run = await startRun();
    await launcher.settled();

    const stored = await store.findRun(run.id);
    expect(stored?.state).toBe('failed');
    expect(stored?.error).toContain('command executor is stopped');
    expect(gate.isRunning(job.id)).toBe(false);
    expect(gate.reserve()).toBe(true);
  });

  it('frees the job and the slot when the run is gone from the store by the time it finishes', async () => {
    const run = await startRun();
    await store.finishRun(run.id, outcome());
    await store.pruneRunsFinishedBefore(['succeeded'], T0 + 10 * 60_000, 10);
    expect(await store.findRun(run.id)).toBeNull();
    commands.finish(run.id, outcome());
    await launcher.settled();

    expect(gate.isRunning(job.id)).toBe(false);
    expect(gate.reserve()).toBe(true);
  });

  it('frees the job and the slot when the run may not start here (a peer whose lease ran out), records it cancelled with why, and starts nothing', async () => {
    refusal = 'this node had lost touch with the majority';
    const run = await startRun();
    await launcher.settled();

    const stored = await store.findRun(run.id);
    expect(stored?.state).toBe('cancelled');
    expect(stored?.error).toBe('this node had lost touch with the majority');
    expect(commands.handed).toEqual([]);
    expect(gate.isRunning(job.id)).toBe(false);
    expect(gate.reserve()).toBe(true);
  });
});
