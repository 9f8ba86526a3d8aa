import { EventEmitter } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../src/core/job.js';
import type { Run, RunOutcome } from '../../src/core/run.js';
import { systemClock } from '../../src/daemon/clock.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import type { CommandExecutor } from '../../src/daemon/executor/command-executor.js';
import type { HttpExecutor } from '../../src/daemon/executor/http-executor.js';
import { RunGate } from '../../src/daemon/run-gate.js';
import { LiveOutput } from '../../src/daemon/live-output.js';
import { RunLauncher } from '../../src/daemon/run-launcher.js';
import { newId } from '../../src/store/ids.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { createJob, newRun, outcome, T0 } from '../store/conformance/fixtures.js';

/** An executor that runs nothing: the test says when a run starts, ends, or cannot be handed over. */
class ScriptedExecutor {
  readonly handed: string[] = [];
  refuse: Error | null = null;
  private readonly emitter = new EventEmitter();

  on(event: string, listener: (runId: string, ...rest: never[]) => void): () => void {
    const heard = listener as (...args: unknown[]) => void;
    this.emitter.on(event, heard);
    return () => this.emitter.off(event, heard);
  }

  run(execution: { runId: string }): void {
    if (this.refuse) throw this.refuse;
    this.handed.push(execution.runId);
  }

  finish(runId: string, result: RunOutcome): void {
    this.emitter.emit('finished', runId, result);
  }

  kill(): boolean {
    return false;
  }

  runningCount(): number {
    return this.handed.length;
  }

  async stop(): Promise<void> {}
}

describe('a run ending here gives back what counted it', () => {
  let dir: string;
  let store: SqliteStore;
  let events: DaemonEvents;
  let commands: ScriptedExecutor;
  let launcher: RunLauncher;
  let gate: RunGate;
  let job: Job;
  let refusal: string | null;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-release-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    events = new DaemonEvents();
    commands = new ScriptedExecutor();
    const clock = { ...systemClock, now: () => T0 + 70_000 };
    launcher = new RunLauncher({
      store,
      clock,
      events,
      newId,
      node: 'node-a',
      runFence: () => 1,
      commands: commands as unknown as CommandExecutor,
      http: new ScriptedExecutor() as unknown as HttpExecutor,
      baseEnv: {},
      daemonAccount: { user: os.userInfo().username, isRoot: process.getuid?.() === 0 },
      waitForRetry: () => undefined,
      liveOutput: new LiveOutput(),
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

  async function startRun(): Promise<Run> {
    const run = await store.insertRun(newRun(job.id, { state: 'running' }));
    expect(gate.reserve()).toBe(true);
    gate.launchReserved(run, job);
    return run;
  }

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
