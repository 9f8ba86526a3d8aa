import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Job } from '../../src/core/job.js';
import type { Run, RunTrigger } from '../../src/core/run.js';
import { DaemonEvents } from '../../src/daemon/events.js';
import { RunGate } from '../../src/daemon/run-gate.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../support/fake-clock.js';
import { waitFor } from '../support/sched-harness.js';
import { createJob, newRun, outcome } from '../store/conformance/fixtures.js';

describe('a waiting run whose job runs on another node', () => {
  let dir: string;
  let store: SqliteStore;
  let clock: FakeClock;
  let gate: RunGate;
  let launched: string[];
  let job: Job;

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sched-gate-elsewhere-'));
    store = openSqliteStore(path.join(dir, 'sched.db'));
    clock = new FakeClock();
    launched = [];
    gate = new RunGate({
      store,
      clock,
      events: new DaemonEvents(),
      maxConcurrent: null,
      launch: (run) => void launched.push(run.id),
      kill: () => false,
    });
    job = await createJob(store, 'queued');
  });

  afterEach(async () => {
    gate.close();
    await gate.settled();
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A queued instant of the job, held here, while node-b's run of the job is running. */
  async function queuedBehindNodeB(
    trigger: RunTrigger = 'schedule',
  ): Promise<{ elsewhere: Run; queued: Run }> {
    const elsewhere = await store.insertRun(newRun(job.id, { node: 'node-b', state: 'running' }));
    const queued = await store.insertRun(
      newRun(job.id, { scheduledFor: elsewhere.scheduledFor + 1, trigger }),
    );
    gate.hold(queued, job);
    await gate.settled();
    return { elsewhere, queued };
  }

  it('given the other node still runs its run, when the gate looks again, then the waiting run still waits', async () => {
    const { queued } = await queuedBehindNodeB();

    await clock.advance(3_000);
    await gate.settled();

    expect(launched).toEqual([]);
    expect((await store.findRun(queued.id))?.state).toBe('scheduled');
  });

  it('given the other node ends its run, when a second passes, then the waiting run starts here', async () => {
    const { elsewhere, queued } = await queuedBehindNodeB();

    await store.finishRun(elsewhere.id, outcome());
    await clock.advance(1_000);

    await waitFor(async () => (launched.includes(queued.id) ? true : null), 5_000, 10);
    expect((await store.findRun(queued.id))?.state).toBe('running');
  });

  it.each<RunTrigger>(['retry', 'dependency'])(
    "given a waiting %s run, it too waits for the other node's run of the job and starts once it ends",
    async (trigger) => {
      const { elsewhere, queued } = await queuedBehindNodeB(trigger);
      await clock.advance(3_000);
      await gate.settled();
      expect(launched).toEqual([]);

      await store.finishRun(elsewhere.id, outcome());
      await clock.advance(1_000);

      await waitFor(async () => (launched.includes(queued.id) ? true : null), 5_000, 10);
    },
  );
});
